/* SPDX-License-Identifier: MIT */
/* The flat profile as a GitHub-flavoured markdown table (job summaries,
 * pull-request comments). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "formats.h"

void
markdown_cell(FILE *out, const char *s)
{
	for (; *s; s++) {
		if (*s == '|')
			fputs("\\|", out);
		else if (*s == '`')
			fputc('\'', out);
		else if (*s == '\n' || *s == '\r')
			fputc(' ', out);
		else
			fputc(*s, out);
	}
}

static void
md_summary(FILE *out, const struct report *r)
{
	fputs("**profrun**: `", out);
	markdown_cell(out, module_display(r->procs[0].p->exe));
	fprintf(out, "`: %" PRIu64 " samples, %.1f%% in the executable",
		r->total, report_percent(r, r->main));
	if (r->rate_measured)
		fprintf(out, ", %.1f Hz, %.2f s CPU", r->rate_hz, r->cpu_known);
	if (!r->complete)
		fputs(" (cut short)", out);
	if (r->run->skipped > 0)
		fprintf(out, " (partial: %zu unreadable member%s)",
			r->run->skipped, r->run->skipped == 1 ? "" : "s");
	if (r->run->nmissing > 0)
		fprintf(out, " (partial: %zu process%s left no profile)",
			r->run->nmissing, r->run->nmissing == 1 ? "" : "es");
	fputs("\n\n", out);
}

static void
md_row(FILE *out, const struct report *r, const struct func *f)
{
	const char *base;

	fprintf(out, "| %.2f | ", report_percent(r, f->samples));
	if (r->stacks.present)
		fprintf(out, "%.2f | ", report_percent(r, f->inclusive));
	fprintf(out, "%" PRIu64 " | %.3f | ", f->samples,
		report_seconds(r, f->samples));
	if (f->kernel > 0)
		fprintf(out, "%.0f%%",
			100.0 * (double)f->kernel / (double)f->samples);
	fputs(" | `", out);
	markdown_cell(out, f->name);
	fputs("` | ", out);
	if (f->file) {
		base = strrchr(f->file, '/');
		markdown_cell(out, base ? base + 1 : f->file);
		fprintf(out, ":%d", f->line);
	}
	fputs(" |\n", out);
}

static int
report_markdown(const struct report *r, FILE *out)
{
	size_t i, n = r->funcs.n;
	uint64_t rest = 0;

	if (r->opts->top > 0 && (size_t)r->opts->top < n)
		n = (size_t)r->opts->top;
	md_summary(out, r);
	if (r->stacks.present)
		fputs("| % | total % | samples | seconds | kernel | function | source |\n"
		      "|--:|--:|--:|--:|--:|:--|:--|\n",
		      out);
	else
		fputs("| % | samples | seconds | kernel | function | source |\n"
		      "|--:|--:|--:|--:|:--|:--|\n",
		      out);
	for (i = 0; i < n; i++)
		md_row(out, r, &r->funcs.v[i]);
	for (i = n; i < r->funcs.n; i++)
		rest += r->funcs.v[i].samples;
	if (n < r->funcs.n)
		fprintf(out,
			"| %.2f |%s %" PRIu64
			" | %.3f | | *%zu more functions* | |\n",
			report_percent(r, rest), r->stacks.present ? " |" : "",
			rest, report_seconds(r, rest), r->funcs.n - n);
	/* the functions include the libraries' unless --main-only */
	if (r->outside > 0 && r->opts->main_only)
		fprintf(out,
			"| %.2f |%s %" PRIu64
			" | %.3f | | *outside the executable* | |\n",
			report_percent(r, r->outside),
			r->stacks.present ? " |" : "", r->outside,
			report_seconds(r, r->outside));
	return 0;
}

REPORT_FORMAT(markdown, "a GitHub-flavoured table", report_markdown, false);

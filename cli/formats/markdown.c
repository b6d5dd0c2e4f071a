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
	if (report_bursts_noted(r))
		fprintf(out,
			" (samples in bursts: shares vary as with %" PRIu64
			" samples taken one by one)",
			report_effective(r));
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
md_row(FILE *out, const struct report *r, const struct func *f, bool modules)
{
	char buf[4096];
	const char *base;

	fprintf(out, "| %.2f | ", report_percent(r, f->samples));
	if (r->stacks.present)
		fprintf(out, "%.2f | ", report_percent(r, f->inclusive));
	fprintf(out, "%" PRIu64 " | %.3f | ", f->samples,
		report_seconds_split(r, f->samples, f->offcpu));
	if (f->kernel > 0)
		fprintf(out, "%.0f%%",
			100.0 * (double)f->kernel / (double)f->samples);
	fputs(" | ", out);
	if (modules) {
		fputc('`', out);
		markdown_cell(out, module_display(f->module));
		fputs("` | ", out);
	}
	fputc('`', out);
	markdown_cell(out, cell_function(f, modules, buf, sizeof(buf)));
	fputs("` | ", out);
	if (f->file) {
		base = strrchr(f->file, '/');
		markdown_cell(out, base ? base + 1 : f->file);
		fprintf(out, ":%d", f->line);
	}
	fputs(" |\n", out);
}

/* The header of the table: "total %" with stacks, "module" with several
 * modules. */
static void
md_header(FILE *out, bool stacks, bool modules)
{
	fputs(stacks ? "| % | total % |" : "| % |", out);
	fputs(" samples | seconds | kernel |", out);
	fputs(modules ? " module | function | source |\n"
		      : " function | source |\n",
	      out);
	fputs(stacks ? "|--:|--:|" : "|--:|", out);
	fputs("--:|--:|--:|", out);
	fputs(modules ? ":--|:--|:--|\n" : ":--|:--|\n", out);
}

/* A row of the table saying what its rows leave out: WHAT, N samples. */
static void
md_rest(FILE *out, const struct report *r, uint64_t n, bool modules,
	const char *what)
{
	fprintf(out, "| %.2f |%s %" PRIu64 " | %.3f | |%s %s | |\n",
		report_percent(r, n), r->stacks.present ? " |" : "", n,
		report_seconds(r, n), modules ? " |" : "", what);
}

static int
report_markdown(const struct report *r, FILE *out)
{
	size_t i, listed = report_rows(r, &r->funcs), n = listed;
	/* a module column when several modules have samples */
	bool modules = report_modules(r, &r->funcs);
	uint64_t rest = 0;
	char what[64];

	if (r->opts->top > 0 && (size_t)r->opts->top < n)
		n = (size_t)r->opts->top;
	md_summary(out, r);
	md_header(out, r->stacks.present, modules);
	for (i = 0; i < n; i++)
		md_row(out, r, &r->funcs.v[i], modules);
	for (i = n; i < listed; i++)
		rest += r->funcs.v[i].samples;
	if (n < listed) {
		snprintf(what, sizeof(what), "*%zu more functions*",
			 listed - n);
		md_rest(out, r, rest, modules, what);
	}
	/* the functions include the libraries' unless --main-only */
	if (r->outside > 0 && r->opts->main_only)
		md_rest(out, r, r->outside, modules,
			"*outside the executable*");
	return 0;
}

REPORT_FORMAT(markdown, "a GitHub-flavoured table", report_markdown, false);

/* SPDX-License-Identifier: MIT */
/* `profrun diff` output: text for a terminal, markdown for a pull-request
 * comment, JSON (schema profrun-diff/1) for machines.  Deterministic. */
#include <inttypes.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "diff.h"
#include "formats.h"
#include "json.h"

static size_t
shown_rows(const struct diff *d)
{
	size_t n = d->nrows, flagged = d->regressions + d->improvements;
	size_t top = d->opts->top > 0 ? (size_t)d->opts->top : n;

	/* flagged rows are always shown */
	top = top > flagged ? top : flagged;
	return n < top ? n : top;
}

static void
p_text(char *buf, size_t len, double p)
{
	if (p < 1e-16)
		snprintf(buf, len, "<1e-16");
	else if (p < 0.001)
		snprintf(buf, len, "%.1e", p);
	else
		snprintf(buf, len, "%.3f", p);
}

static const char *
method_text(void)
{
	return "two-proportion z-test (continuity-corrected), Holm-adjusted";
}

static void
verdict(const struct diff *d, FILE *out, bool md)
{
	size_t i, shown = 0;

	if (d->regressions == 0) {
		fprintf(out, "%sno regression%s", md ? "**" : "",
			md ? "**" : "");
	} else {
		fprintf(out, "%s%zu regression%s%s:", md ? "**" : "",
			d->regressions, d->regressions == 1 ? "" : "s",
			md ? "**" : "");
		for (i = 0; i < d->nrows; i++) {
			const struct diff_row *r = &d->rows[i];

			if (r->status != DIFF_REGRESSION &&
			    r->status != DIFF_NEW)
				continue;
			fprintf(out, "%s %s%s%s (%+.1f points%s)",
				shown++ ? "," : "", md ? "`" : "", r->name,
				md ? "`" : "", r->delta,
				r->status == DIFF_NEW ? ", new" : "");
		}
	}
	if (d->improvements)
		fprintf(out, "; %zu improvement%s", d->improvements,
			d->improvements == 1 ? "" : "s");
	fputc('\n', out);
}

/* ---------------------------------------------------------------- text */

static void
text_row(FILE *out, const struct diff_row *r)
{
	char p[32];

	p_text(p, sizeof(p), r->p_value);
	fprintf(out, "%7.2f %7.2f %+8.2f %8s  %-11s %s", r->base_pct,
		r->new_pct, r->delta, p,
		r->status == DIFF_UNCHANGED ? "" : diff_status_name(r->status),
		r->name);
	if (r->module)
		fprintf(out, " (%s)", r->module);
	fputc('\n', out);
}

static int
diff_text(const struct diff *d, FILE *out)
{
	size_t i, n = shown_rows(d);

	fprintf(out,
		"profrun diff: BASE %s (%" PRIu64 " samples), NEW %s (%" PRIu64
		" samples)\n",
		d->base.path, d->base.total, d->new.path, d->new.total);
	fprintf(out,
		"method: %s at %g%% family-wise confidence over %zu functions; flagged when a share changes by more than %g points\n\n",
		method_text(), d->opts->confidence, d->nrows,
		d->opts->threshold);
	if (d->opts->inclusive)
		fprintf(out,
			"shares: inclusive (samples with the function anywhere on the stack; they overlap)\n\n");
	fprintf(out, "%7s %7s %8s %8s  %-11s %s\n", "base %", "new %", "change",
		"p-value", "status", "function");
	for (i = 0; i < n; i++)
		text_row(out, &d->rows[i]);
	if (n < d->nrows)
		fprintf(out, "... %zu more functions, none flagged\n",
			d->nrows - n);
	fputc('\n', out);
	verdict(d, out, false);
	fflush(out);
	return ferror(out) ? -1 : 0;
}

/* ---------------------------------------------------------------- markdown */

static void
md_row(FILE *out, const struct diff_row *r)
{
	bool flagged = r->status != DIFF_UNCHANGED;
	char p[32];

	p_text(p, sizeof(p), r->p_value);
	fputs("| `", out);
	markdown_cell(out, r->name);
	fputs("` | ", out);
	if (r->module)
		markdown_cell(out, r->module);
	fprintf(out, " | %.2f | %.2f | %s%+.2f%s | %s | %s |\n", r->base_pct,
		r->new_pct, flagged ? "**" : "", r->delta, flagged ? "**" : "",
		p, flagged ? diff_status_name(r->status) : "");
}

static int
diff_markdown(const struct diff *d, FILE *out)
{
	size_t i, n = shown_rows(d);

	fputs("### profrun diff: ", out);
	verdict(d, out, true);
	fputs("\n| function | module | base % | new % | change (points) | p-value | status |\n"
	      "|:--|:--|--:|--:|--:|--:|:--|\n",
	      out);
	for (i = 0; i < n; i++)
		md_row(out, &d->rows[i]);
	if (n < d->nrows)
		fprintf(out,
			"| *%zu more functions, none flagged* | | | | | | |\n",
			d->nrows - n);
	fputs("\nBASE `", out);
	markdown_cell(out, d->base.path);
	fprintf(out, "`: %" PRIu64 " samples; NEW `", d->base.total);
	markdown_cell(out, d->new.path);
	fprintf(out,
		"`: %" PRIu64
		" samples.  %s at %g%% family-wise confidence over %zu functions; flagged beyond %g points.\n",
		d->new.total, method_text(), d->opts->confidence, d->nrows,
		d->opts->threshold);
	fflush(out);
	return ferror(out) ? -1 : 0;
}

/* ---------------------------------------------------------------- JSON */

static json_object *
json_pvalue(double p)
{
	char buf[64];

	snprintf(buf, sizeof(buf), "%.3g", p);
	return json_object_new_double_s(p, buf);
}

static json_object *
json_row(const struct diff_row *r)
{
	json_object *o = json_object_new_object();

	json_add_string(o, "name", r->name);
	json_object_object_add(o, "module",
			       r->module ? json_utf8_string(r->module) : NULL);
	json_add_u64(o, "base_samples", r->base);
	json_add_u64(o, "new_samples", r->new);
	json_object_object_add(o, "base_percent", json_decimal(r->base_pct, 2));
	json_object_object_add(o, "new_percent", json_decimal(r->new_pct, 2));
	json_object_object_add(o, "change_points", json_decimal(r->delta, 2));
	json_object_object_add(o, "p_value", json_pvalue(r->p_value));
	json_object_object_add(o, "significant",
			       json_object_new_boolean(r->significant));
	json_object_object_add(
		o, "status",
		json_object_new_string(diff_status_name(r->status)));
	return o;
}

static json_object *
json_side(const struct diff_side *s)
{
	json_object *o = json_object_new_object();

	json_add_string(o, "path", s->path);
	json_object_object_add(
		o, "kind",
		json_object_new_string(s->from_json ? "json" : "profile"));
	json_add_u64(o, "samples", s->total);
	return o;
}

static json_object *
json_diff(const struct diff *d)
{
	json_object *o = json_object_new_object();
	json_object *m = json_object_new_object();
	json_object *rows = json_object_new_array();
	size_t i;

	json_object_object_add(o, "schema",
			       json_object_new_string("profrun-diff/1"));
	json_object_object_add(o, "base", json_side(&d->base));
	json_object_object_add(o, "new", json_side(&d->new));
	json_object_object_add(m, "test",
			       json_object_new_string(method_text()));
	json_object_object_add(m, "confidence",
			       json_decimal(d->opts->confidence, 2));
	json_object_object_add(m, "threshold_points",
			       json_decimal(d->opts->threshold, 2));
	json_add_u64(m, "functions_compared", d->nrows);
	json_object_object_add(o, "method", m);
	json_add_u64(o, "regressions", d->regressions);
	json_add_u64(o, "improvements", d->improvements);
	json_object_object_add(o, "fails",
			       json_object_new_boolean(diff_fails(d)));
	for (i = 0; i < d->nrows; i++)
		json_object_array_add(rows, json_row(&d->rows[i]));
	json_object_object_add(o, "functions", rows);
	return o;
}

static int
diff_json(const struct diff *d, FILE *out)
{
	json_print(json_diff(d), out);
	fflush(out);
	return ferror(out) ? -1 : 0;
}

static int
diff_render(const void *arg, FILE *out)
{
	const struct diff *d = arg;

	if (strcmp(d->opts->format, "json") == 0)
		return diff_json(d, out);
	if (strcmp(d->opts->format, "markdown") == 0)
		return diff_markdown(d, out);
	return diff_text(d, out);
}

/* Printable and valid UTF-8 like the report: the names come from files
 * anyone can hand us. */
int
diff_write(const struct diff *d, FILE *out)
{
	return cli_write_rendered(diff_render, d, out);
}

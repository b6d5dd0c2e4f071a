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

size_t
diff_shown_rows(const struct diff *d, const struct diff_rows *rows)
{
	size_t n = rows->n, flagged = rows->regressions + rows->improvements;
	size_t top = d->opts->top > 0 ? (size_t)d->opts->top : n;

	/* flagged rows are always shown */
	top = top > flagged ? top : flagged;
	return n < top ? n : top;
}

void
diff_p_text(char *buf, size_t len, double p)
{
	if (p < 1e-16)
		snprintf(buf, len, "<1e-16");
	else if (p < 0.001)
		snprintf(buf, len, "%.1e", p);
	else
		snprintf(buf, len, "%.3f", p);
}

const char *
diff_method_text(void)
{
	return "two-proportion z-test (continuity-corrected), Holm-adjusted";
}

void
diff_verdict(const struct diff *d, FILE *out, bool md)
{
	size_t i, shown = 0, max = md ? 10 : SIZE_MAX;

	if (d->regressions == 0) {
		fprintf(out, "%sno regression%s", md ? "**" : "",
			md ? "**" : "");
	} else {
		fprintf(out, "%s%zu regression%s%s:", md ? "**" : "",
			d->regressions, d->regressions == 1 ? "" : "s",
			md ? "**" : "");
		for (i = 0; i < d->nrows && shown < max; i++) {
			const struct diff_row *r = &d->rows[i];

			if (r->status != DIFF_REGRESSION &&
			    r->status != DIFF_NEW)
				continue;
			fprintf(out, "%s %s", shown++ ? "," : "",
				md ? "`" : "");
			if (md)
				markdown_cell(out, r->name);
			else
				fputs(r->name, out);
			fprintf(out, "%s (%+.1f points%s)", md ? "`" : "",
				r->delta, r->status == DIFF_NEW ? ", new" : "");
		}
		if (shown < d->regressions)
			fprintf(out, " and %zu more", d->regressions - shown);
	}
	if (d->improvements)
		fprintf(out, "; %zu improvement%s", d->improvements,
			d->improvements == 1 ? "" : "s");
	fputc('\n', out);
}

void
diff_same_notes(const struct diff *d, FILE *out, bool md)
{
	const char *q = md ? "`" : "";

	for (size_t i = 0; i < d->nsame; i++) {
		const struct diff_same *m = &d->same[i];

		fprintf(out, "%smodule %s", md ? "> " : "", q);
		if (md)
			markdown_cell(out, m->base);
		else
			fputs(m->base, out);
		fprintf(out, "%s of BASE compared as %s", q, q);
		if (md)
			markdown_cell(out, m->new);
		else
			fputs(m->new, out);
		fprintf(out, "%s of NEW (%s)\n", q,
			m->automatic
				? "the one main executable of each; --same maps modules by hand"
				: "--same");
	}
}

/* ---------------------------------------------------------------- text */

static void
text_row(FILE *out, const struct diff_row *r)
{
	char p[32];

	diff_p_text(p, sizeof(p), r->p_value);
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
	struct diff_rows gate = {d->rows, d->nrows, d->regressions,
				 d->improvements};
	size_t i, n = diff_shown_rows(d, &gate);
	char bs[96], ns[96];

	fprintf(out, "profrun diff: BASE %s (%s), NEW %s (%s)\n", d->base.path,
		diff_side_samples(&d->base, bs, sizeof(bs)), d->new.path,
		diff_side_samples(&d->new, ns, sizeof(ns)));
	fprintf(out,
		"method: %s at %g%% family-wise confidence over %zu functions; flagged when a share changes by more than %g points\n\n",
		diff_method_text(), d->opts->confidence, d->nrows,
		d->opts->threshold);
	diff_same_notes(d, out, false);
	if (d->nsame)
		fputc('\n', out);
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
	diff_verdict(d, out, false);
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

/* The inclusive samples of both sides of R's function, when compared. */
static void
json_row_inclusive(json_object *o, const struct diff_row *i)
{
	json_object_object_add(o, "base_inclusive",
			       i ? json_object_new_uint64(i->base) : NULL);
	json_object_object_add(o, "new_inclusive",
			       i ? json_object_new_uint64(i->new) : NULL);
	json_object_object_add(o, "base_inclusive_percent",
			       i ? json_decimal(i->base_pct, 2) : NULL);
	json_object_object_add(o, "new_inclusive_percent",
			       i ? json_decimal(i->new_pct, 2) : NULL);
	json_object_object_add(o, "inclusive_change_points",
			       i ? json_decimal(i->delta, 2) : NULL);
	json_object_object_add(
		o, "inclusive_status",
		i ? json_object_new_string(diff_status_name(i->status)) : NULL);
}

/* The comparison of inclusive shares: every function on a stack of
 * either side (callers only too), in the rows' schema. */
static json_object *
json_inclusive(const struct diff *d)
{
	const struct diff_row *v = d->opts->inclusive ? d->rows : d->incl.v;
	size_t n = d->opts->inclusive ? d->nrows : d->incl.n;
	json_object *o = json_object_new_object();
	json_object *rows = json_object_new_array();

	json_add_u64(o, "functions_compared", n);
	json_add_u64(o, "regressions",
		     d->opts->inclusive ? d->regressions : d->incl.regressions);
	json_add_u64(o, "improvements",
		     d->opts->inclusive ? d->improvements
					: d->incl.improvements);
	for (size_t i = 0; i < n; i++)
		json_object_array_add(rows, json_row(&v[i]));
	json_object_object_add(o, "functions", rows);
	return o;
}

static json_object *
json_same(const struct diff *d)
{
	json_object *a = json_object_new_array();

	for (size_t i = 0; i < d->nsame; i++) {
		json_object *o = json_object_new_object();

		json_add_string(o, "base", d->same[i].base);
		json_add_string(o, "new", d->same[i].new);
		json_object_object_add(
			o, "automatic",
			json_object_new_boolean(d->same[i].automatic));
		json_object_array_add(a, o);
	}
	return a;
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
	/* as many samples taken one by one as vary as much (docs/diff.md) */
	json_add_u64(o, "effective_samples", diff_side_effective(s));
	return o;
}

static json_object *
json_diff(const struct diff *d)
{
	json_object *o = json_object_new_object();
	json_object *m = json_object_new_object();
	json_object *rows = json_object_new_array();
	bool incl = d->opts->inclusive || diff_has_incl(d);
	size_t i;

	json_object_object_add(o, "schema",
			       json_object_new_string("profrun-diff/1"));
	json_object_object_add(o, "base", json_side(&d->base));
	json_object_object_add(o, "new", json_side(&d->new));
	json_object_object_add(m, "test",
			       json_object_new_string(diff_method_text()));
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
	for (i = 0; i < d->nrows; i++) {
		json_object *r = json_row(&d->rows[i]);

		if (incl)
			json_row_inclusive(r, diff_incl_row(d, &d->rows[i]));
		json_object_array_add(rows, r);
	}
	json_object_object_add(o, "functions", rows);
	json_object_object_add(o, "modules_matched", json_same(d));
	if (incl)
		json_object_object_add(o, "inclusive", json_inclusive(d));
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
	if (strcmp(d->opts->format, "html") == 0)
		return diff_html(d, out);
	return diff_text(d, out);
}

/* Printable and valid UTF-8 like the report: the names come from files
 * anyone can hand us. */
int
diff_write(const struct diff *d, FILE *out)
{
	return cli_write_rendered(diff_render, d, out);
}

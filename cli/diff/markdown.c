/* SPDX-License-Identifier: MIT */
/*
 * `profrun diff --format markdown`: the verdict, the table of the gate's
 * shares and, when both sides have stacks, the table of inclusive shares,
 * for a pull-request comment or a job summary.  A comment holds at most
 * 65,536 characters: the tables are cut to fit (each row is measured in
 * bytes, never fewer than its characters), with a line saying how many
 * rows were left out.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff.h"
#include "formats.h"

/* Room kept for a table's closing line ("N more rows ..."). */
#define MD_CUT_LINE 256

static void
md_row(FILE *out, const struct diff_row *r)
{
	bool flagged = r->status != DIFF_UNCHANGED;
	char p[32];

	diff_p_text(p, sizeof(p), r->p_value);
	fputs("| `", out);
	markdown_cell(out, r->name);
	fputs("` | ", out);
	if (r->module)
		markdown_cell(out, r->module);
	fprintf(out, " | %.2f | %.2f | %s%+.2f%s | %s | %s |\n", r->base_pct,
		r->new_pct, flagged ? "**" : "", r->delta, flagged ? "**" : "",
		p, flagged ? diff_status_name(r->status) : "");
}

/* One table: its rows rendered, and how many of them fit. */
struct md_table {
	const struct diff_rows *rows;
	char **text;	/* the rows shown (--top), each rendered */
	size_t *len;	/* and its length */
	size_t n, kept; /* rows shown; of them, fitting in the limit */
};

static int
md_render(struct md_table *t, const struct diff *d)
{
	size_t i;

	t->n = diff_shown_rows(d, t->rows);
	t->text = calloc(t->n + 1, sizeof(*t->text));
	t->len = calloc(t->n + 1, sizeof(*t->len));
	if (!t->text || !t->len)
		return -1;
	for (i = 0; i < t->n; i++) {
		FILE *m = open_memstream(&t->text[i], &t->len[i]);

		if (!m)
			return -1;
		md_row(m, &t->rows->v[i]);
		if (fclose(m) != 0)
			return -1;
	}
	return 0;
}

static void
md_free(struct md_table *t)
{
	for (size_t i = 0; t->text && i < t->n; i++)
		free(t->text[i]);
	free(t->text);
	free(t->len);
}

/* Keep T's rows from T->kept on while they fit in *BUDGET bytes. */
static void
md_fit(struct md_table *t, size_t *budget)
{
	while (t->kept < t->n && t->len[t->kept] <= *budget)
		*budget -= t->len[t->kept++];
}

static void
md_table_write(FILE *out, const struct md_table *t)
{
	size_t i, left = t->rows->n - t->kept;
	size_t flagged = t->rows->regressions + t->rows->improvements;

	fputs("| function | module | base % | new % | change (points) | p-value | status |\n"
	      "|:--|:--|--:|--:|--:|--:|:--|\n",
	      out);
	for (i = 0; i < t->kept; i++)
		fwrite(t->text[i], 1, t->len[i], out);
	if (t->kept < t->n)
		fprintf(out,
			"| *%zu more rows left out to stay under GitHub's 65,536 characters (%zu of them flagged); `--format json` lists them all* | | | | | | |\n",
			left, flagged > t->kept ? flagged - t->kept : 0);
	else if (left > 0)
		fprintf(out,
			"| *%zu more functions, none flagged* | | | | | | |\n",
			left);
}

static int
md_string(char **s, size_t *len, void (*fn)(const struct diff *, FILE *),
	  const struct diff *d)
{
	FILE *m = open_memstream(s, len);

	if (!m)
		return -1;
	fn(d, m);
	return fclose(m) == 0 ? 0 : -1;
}

static void
md_head(const struct diff *d, FILE *out)
{
	fputs("### profrun diff: ", out);
	diff_verdict(d, out, true);
	fputc('\n', out);
	diff_same_notes(d, out, true);
	if (d->nsame)
		fputc('\n', out);
	if (d->opts->inclusive)
		fputs("Shares are inclusive: samples with the function anywhere on the stack.\n\n",
		      out);
}

static void
md_incl_head(const struct diff *d, FILE *out)
{
	fprintf(out,
		"\n#### Inclusive shares (samples with the function anywhere on the stack): %zu grew, %zu shrank\n\n",
		d->incl.regressions, d->incl.improvements);
}

static void
md_foot(const struct diff *d, FILE *out)
{
	char bs[96], ns[96];

	fputs("\nBASE `", out);
	markdown_cell(out, d->base.path);
	fprintf(out, "`: %s; NEW `",
		diff_side_samples(&d->base, bs, sizeof(bs)));
	markdown_cell(out, d->new.path);
	fprintf(out,
		"`: %s.  %s at %g%% family-wise confidence over %zu functions; flagged beyond %g points.\n",
		diff_side_samples(&d->new, ns, sizeof(ns)), diff_method_text(),
		d->opts->confidence, d->nrows, d->opts->threshold);
}

/* Fit both tables in what the fixed parts leave: each gets half, and what
 * one does not use goes to the other. */
static void
md_fit_all(struct md_table *t, size_t ntables, size_t fixed)
{
	size_t budget = fixed < DIFF_MARKDOWN_LIMIT
				? DIFF_MARKDOWN_LIMIT - fixed
				: 0,
	       half = ntables > 1 ? budget / 2 : budget;

	budget -= half;
	md_fit(&t[0], &half);
	budget += half;
	for (size_t i = 1; i < ntables; i++)
		md_fit(&t[i], &budget);
	md_fit(&t[0], &budget);
}

int
diff_markdown(const struct diff *d, FILE *out)
{
	struct diff_rows gate = {d->rows, d->nrows, d->regressions,
				 d->improvements};
	struct md_table t[2] = {{.rows = &gate}, {.rows = &d->incl}};
	size_t ntables = diff_has_incl(d) ? 2 : 1;
	char *head = NULL, *incl = NULL, *foot = NULL;
	size_t lhead = 0, lincl = 0, lfoot = 0;
	int ret = -1;

	if (md_string(&head, &lhead, md_head, d) ||
	    md_string(&incl, &lincl, md_incl_head, d) ||
	    md_string(&foot, &lfoot, md_foot, d) || md_render(&t[0], d) ||
	    (ntables > 1 && md_render(&t[1], d)))
		goto done;
	md_fit_all(t, ntables,
		   lhead + lfoot + (ntables > 1 ? lincl : 0) +
			   ntables * (2 * MD_CUT_LINE));
	fwrite(head, 1, lhead, out);
	md_table_write(out, &t[0]);
	if (ntables > 1) {
		fwrite(incl, 1, lincl, out);
		md_table_write(out, &t[1]);
	}
	fwrite(foot, 1, lfoot, out);
	fflush(out);
	ret = ferror(out) ? -1 : 0;
done:
	free(head);
	free(incl);
	free(foot);
	md_free(&t[0]);
	md_free(&t[1]);
	return ret;
}

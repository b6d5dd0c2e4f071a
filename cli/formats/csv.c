/* SPDX-License-Identifier: MIT */
/*
 * The CSV report (RFC 4180): a header row, then one row per function in
 * report order; CRLF line ends; a field is quoted when it holds a comma,
 * a quote or a line break, with quotes doubled.  Unknown file and line
 * are empty fields.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "formats.h"

static void
csv_field(FILE *out, const char *s)
{
	if (!s)
		return;
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, out);
		return;
	}
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', out);
		fputc(*s, out);
	}
	fputc('"', out);
}

static void
csv_row(FILE *out, const struct report *r, const struct func *f, size_t rank)
{
	fprintf(out, "%zu,", rank);
	csv_field(out, f->name);
	fputc(',', out);
	csv_field(out, f->symbol);
	fputc(',', out);
	csv_field(out, f->module);
	fprintf(out, ",%" PRIu64 ",%.2f,%.3f,", f->samples,
		report_percent(r, f->samples),
		report_seconds_split(r, f->samples, f->offcpu));
	csv_field(out, f->file);
	fputc(',', out);
	if (f->file && f->line > 0)
		fprintf(out, "%d", f->line);
	fprintf(out, ",%" PRIu64, f->kernel);
	if (r->stacks.present)
		fprintf(out, ",%" PRIu64 ",%.2f", f->inclusive,
			report_percent(r, f->inclusive));
	fputs("\r\n", out);
}

static int
report_csv(const struct report *r, FILE *out)
{
	size_t i, n = r->funcs.n;

	if (r->opts->top > 0 && (size_t)r->opts->top < n)
		n = (size_t)r->opts->top;
	fputs("rank,name,symbol,module,samples,percent,seconds,file,line,"
	      "kernel_samples",
	      out);
	fputs(r->stacks.present ? ",inclusive,inclusive_percent\r\n" : "\r\n",
	      out);
	for (i = 0; i < n; i++)
		csv_row(out, r, &r->funcs.v[i], i + 1);
	return 0;
}

REPORT_FORMAT(csv, "one row per function (RFC 4180)", report_csv, false);

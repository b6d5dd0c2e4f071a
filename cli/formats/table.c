/* SPDX-License-Identifier: MIT */
/* The table of report formats, and writing a report in one of them. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "calls.h"
#include "cli.h"
#include "formats.h"

/* Each format is one file (formats/NAME.c defines format_NAME) and one
 * row here; the first is the default. */
extern const struct report_format format_text, format_json, format_csv,
	format_markdown, format_gmon, format_pprof, format_folded, format_html,
	format_speedscope, format_trace;

static const struct report_format *const formats[] = {
	&format_text,	    &format_json,  &format_csv,	   &format_markdown,
	&format_gmon,	    &format_pprof, &format_folded, &format_html,
	&format_speedscope, &format_trace,
};

#define NFORMATS (sizeof(formats) / sizeof(formats[0]))

const struct report_format *
report_format_find(const char *name)
{
	size_t i;

	for (i = 0; i < NFORMATS; i++)
		if (strcmp(formats[i]->name, name) == 0)
			return formats[i];
	return NULL;
}

const struct report_format *
report_format_at(size_t i)
{
	return i < NFORMATS ? formats[i] : NULL;
}

/* F's writer, then OUT flushed: 0, or -1 when either failed. */
static int
write_flushed(const struct report_format *f, const struct report *r, FILE *out)
{
	int ret = f->write(r, out);

	fflush(out);
	return ret || ferror(out) ? -1 : 0;
}

struct rendering {
	const struct report_format *f;
	const struct report *r;
};

static int
render_report(const void *arg, FILE *mem)
{
	const struct rendering *x = arg;

	return write_flushed(x->f, x->r, mem);
}

int
report_write(const struct report *r, const char *format, FILE *out)
{
	const struct report_format *f =
		report_format_find(format ? format : "text");

	if (!f)
		f = formats[0];
	if (calls_check(r))
		return -1;
	if (f->binary && isatty(fileno(out))) {
		cli_error(
			"report: the %s format is binary; redirect it to a file or use -o FILE",
			f->name);
		return -1;
	}
	if (f->binary)
		return write_flushed(f, r, out);
	/* every name in a textual report comes from files anyone can hand us */
	return cli_write_rendered(render_report,
				  &(struct rendering){.f = f, .r = r}, out);
}

/* SPDX-License-Identifier: MIT */
/* The table of report formats. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "formats.h"

static const struct report_format formats[] = {
	{"text", report_text, false}, {"json", report_json, false},
	{"csv", report_csv, false},   {"markdown", report_markdown, false},
	{"gmon", export_gmon, true},  {"pprof", export_pprof, true},
};

#define NFORMATS (sizeof(formats) / sizeof(formats[0]))

const struct report_format *
report_format_find(const char *name)
{
	size_t i;

	for (i = 0; i < NFORMATS; i++)
		if (strcmp(formats[i].name, name) == 0)
			return &formats[i];
	return NULL;
}

const char *
report_format_names(void)
{
	return "text|json|csv|markdown|gmon|pprof";
}

struct rendering {
	const struct report_format *f;
	const struct report *r;
};

static int
render_report(const void *arg, FILE *mem)
{
	const struct rendering *x = arg;

	return x->f->write(x->r, mem);
}

int
report_write(const struct report *r, const char *format, FILE *out)
{
	const struct report_format *f =
		report_format_find(format ? format : "text");

	if (!f)
		f = &formats[0];
	if (f->binary && isatty(fileno(out))) {
		cli_error(
			"report: the %s format is binary; redirect it to a file or use -o FILE",
			f->name);
		return -1;
	}
	if (f->binary)
		return f->write(r, out);
	/* every name in a textual report comes from files anyone can hand us */
	return cli_write_rendered(render_report,
				  &(struct rendering){.f = f, .r = r}, out);
}

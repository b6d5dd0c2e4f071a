/* SPDX-License-Identifier: MIT */
/* The table of report formats. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "export.h"
#include "utf8.h"

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

void
cli_printable(char *s, size_t len, bool keep_newlines)
{
	size_t i;

	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		bool eol = c == '\n' ||
			   (c == '\r' && i + 1 < len && s[i + 1] == '\n');

		if ((c < 0x20 && c != '\t' && !(eol && keep_newlines)) ||
		    c == 0x7f)
			s[i] = '?';
	}
}

int
cli_write_rendered(int (*render)(const void *arg, FILE *mem), const void *arg,
		   FILE *out)
{
	char *text = NULL, *valid = NULL;
	size_t len = 0, n = 0;
	FILE *mem = open_memstream(&text, &len);
	int ret;

	if (!mem)
		return -1;
	ret = render(arg, mem);
	if (fclose(mem) != 0)
		ret = -1;
	if (ret == 0) {
		cli_printable(text, len, true);
		valid = utf8_valid(text, len, &n);
		if (!valid || fwrite(valid, 1, n, out) != n || fflush(out) != 0)
			ret = -1;
	}
	free(valid);
	free(text);
	return ret;
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

/* SPDX-License-Identifier: MIT */
/* The CLI's messages, and text made safe for a terminal (util/cli.h). */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "utf8.h"

static cli_message_fn *message_sink;

void
cli_set_message_sink(cli_message_fn *fn)
{
	message_sink = fn;
}

static void __attribute__((format(printf, 2, 0)))
vmessage(bool warning, const char *fmt, va_list ap)
{
	char *msg;
	int len;

	if (!message_sink)
		fflush(stdout);
	len = vasprintf(&msg, fmt, ap);
	if (len >= 0) /* messages quote paths and strings from profiles */
		cli_printable(msg, (size_t)len, false);
	if (message_sink) {
		message_sink(warning, len < 0 ? "(out of memory)" : msg);
	} else {
		fputs("profrun: ", stderr);
		if (warning)
			fputs("warning: ", stderr);
		fputs(len < 0 ? "(out of memory)" : msg, stderr);
		fputc('\n', stderr);
	}
	if (len >= 0)
		free(msg);
}

void
cli_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmessage(false, fmt, ap);
	va_end(ap);
}

void
cli_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmessage(true, fmt, ap);
	va_end(ap);
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
		    c == 0x7f) {
			s[i] = '?';
		} else if (c == 0xc2 && i + 1 < len &&
			   (unsigned char)s[i + 1] >= 0x80 &&
			   (unsigned char)s[i + 1] <= 0x9f) {
			/* U+0080..U+009F, the C1 controls (CSI among them) */
			s[i] = '?';
			s[++i] = '?';
		}
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

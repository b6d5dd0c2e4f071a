/* SPDX-License-Identifier: MIT */
/* profrun: entry point; dispatches to one file per subcommand. */
#define _GNU_SOURCE
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

struct subcommand {
	const char *name;
	int (*run)(int argc, char **argv);
};

static const struct subcommand subcommands[] = {
	{"report", cmd_report},
	{"merge", cmd_merge},
	{"diff", cmd_diff},
	{"annotate", cmd_annotate},
};

static void
vmessage(const char *kind, const char *fmt, va_list ap)
{
	fflush(stdout);
	char *msg;
	int len = vasprintf(&msg, fmt, ap);

	fputs("profrun: ", stderr);
	if (kind)
		fputs(kind, stderr);
	if (len < 0) {
		fputs("(out of memory)\n", stderr);
		return;
	}
	/* messages quote paths and strings from profiles: no escapes */
	cli_printable(msg, (size_t)len, false);
	fputs(msg, stderr);
	fputc('\n', stderr);
	free(msg);
}

void
cli_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmessage(NULL, fmt, ap);
	va_end(ap);
}

void
cli_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmessage("warning: ", fmt, ap);
	va_end(ap);
}

int
main(int argc, char **argv)
{
	size_t i;

	if (argc >= 2) {
		for (i = 0; i < sizeof(subcommands) / sizeof(subcommands[0]);
		     i++) {
			if (strcmp(argv[1], subcommands[i].name) == 0)
				return subcommands[i].run(argc - 1, argv + 1);
		}
	}
	return cmd_run(argc, argv);
}

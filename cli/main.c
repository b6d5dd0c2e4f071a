/* SPDX-License-Identifier: MIT */
/* profrun: entry point; dispatches to one file per subcommand. */
#define _GNU_SOURCE
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "cmds.h"

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

/* A closed standard descriptor would be the next file opened (an -o
 * output, say), and messages meant for stderr would land in it: give each
 * closed one /dev/null, and note it, so that a program profrun runs gets
 * it closed again, as it was. */
static void
fill_closed_std_fds(void)
{
	for (int fd = 0; fd <= 2; fd++) {
		if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
			continue;
		int nul = open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);

		if (nul == fd)
			cli_filled_std_fds |= 1u << fd;
		else if (nul >= 0) /* lower ones are open now */
			close(nul);
	}
}

int
main(int argc, char **argv)
{
	size_t i;

	fill_closed_std_fds();
	if (argc >= 2) {
		for (i = 0; i < sizeof(subcommands) / sizeof(subcommands[0]);
		     i++) {
			if (strcmp(argv[1], subcommands[i].name) == 0)
				return subcommands[i].run(argc - 1, argv + 1);
		}
	}
	return cmd_run(argc, argv);
}

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
#include "run-env.h"

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

/* Called by the dynamic linker before any constructor, even a preloaded
 * library's: `profrun PROGRAM` with an LD_PRELOAD of the user's starts
 * again without it (run-env.c).  The C library has not set environ yet. */
static void
before_constructors(int argc, char **argv, char **envp)
{
	if (environ == NULL)
		environ = envp;
	for (size_t i = 0;
	     argc >= 2 && i < sizeof(subcommands) / sizeof(subcommands[0]); i++)
		if (strcmp(argv[1], subcommands[i].name) == 0)
			return;
	run_env_restart(argv);
}

__attribute__((section(".preinit_array"), used)) static void (*const preinit)(
	int, char **, char **) = before_constructors;

int
main(int argc, char **argv)
{
	size_t i;

	for (i = 0;
	     argc >= 2 && i < sizeof(subcommands) / sizeof(subcommands[0]);
	     i++) {
		if (strcmp(argv[1], subcommands[i].name) == 0) {
			fill_closed_std_fds();
			return subcommands[i].run(argc - 1, argv + 1);
		}
	}
	run_env_take_aside();
	fill_closed_std_fds();
	return cmd_run(argc, argv);
}

/* SPDX-License-Identifier: MIT */
/* profrun: entry point; dispatches to one file per subcommand. */
#define _GNU_SOURCE
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

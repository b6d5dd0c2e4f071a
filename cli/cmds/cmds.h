/* SPDX-License-Identifier: MIT */
/* The subcommands main.c dispatches to, one file each in cli/cmds/. */
#ifndef PROFRUN_CLI_CMDS_H
#define PROFRUN_CLI_CMDS_H

#include <stddef.h>
#include <stdio.h>

#include "cli.h"
#include "report.h"

/* `profrun report [OPTIONS] PROFILE`; argv[0] is "report". */
int cmd_report(int argc, char **argv);

/* `profrun merge -o OUT PROFILE...`; argv[0] is "merge". */
int cmd_merge(int argc, char **argv);

/* `profrun diff BASE NEW`; argv[0] is "diff". */
int cmd_diff(int argc, char **argv);

/* `profrun annotate [OPTIONS] [FUNCTION...] PROFILE`. */
int cmd_annotate(int argc, char **argv);

/* `profrun [OPTIONS] [--] PROGRAM [ARGS...]`. */
int cmd_run(int argc, char **argv);

/* Print the report of PATH (a run directory or one member file) to OUT.
 * Errors are printed as one line "profrun: PATH: reason" on stderr.
 * Returns EXIT_OK or EXIT_FAIL. */
int report_path(const char *path, const struct report_opts *opts, FILE *out);

/* The same for the N profiles PATHS, added up. */
int report_paths(char *const *paths, size_t n, const struct report_opts *opts,
		 FILE *out);

/* The standard descriptors (bit N: fd N) that were closed when profrun
 * started and now hold /dev/null (main.c). */
extern unsigned cli_filled_std_fds;

#endif /* PROFRUN_CLI_CMDS_H */

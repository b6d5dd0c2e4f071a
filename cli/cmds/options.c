/* SPDX-License-Identifier: MIT */
/* Command-line pieces shared by `profrun report` and `profrun annotate`. */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>

#include "file.h"
#include "options.h"

long
opt_number(const char *s, long min, long max)
{
	char *end;
	long v;

	if (s[0] < '0' || s[0] > '9')
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return -1;
	return v;
}

int
opt_usage_error(const char *cmd, const char *what, const char *arg)
{
	cli_error("%s: %s '%s' (see profrun %s --help)", cmd, what, arg, cmd);
	return EXIT_USAGE;
}

int
opt_top(const char *cmd, const char *arg, int *top)
{
	long v = strcmp(arg, "all") == 0 ? 0 : opt_number(arg, 1, INT_MAX);

	if (v < 0)
		return opt_usage_error(
			cmd, "--top needs a number >= 1 or 'all', not", arg);
	*top = (int)v;
	return -1;
}

/* The option getopt_long just rejected. */
static const char *
rejected(const char *last_arg)
{
	static char buf[3];

	if (optopt == 0 || optopt >= 256)
		return optind > 0 ? last_arg : "?";
	snprintf(buf, sizeof(buf), "-%c", optopt);
	return buf;
}

int
opt_append(const char ***v, size_t *n, const char *s)
{
	const char **t = realloc(*v, (*n + 1) * sizeof(*t));

	if (!t) {
		cli_error("out of memory");
		return EXIT_FAIL;
	}
	t[(*n)++] = s;
	*v = t;
	return -1;
}

int
opt_shared(const char *cmd, int c, const char *last_arg,
	   struct report_opts *opts)
{
	long v;

	switch (c) {
	case OPT_FORCE:
		opts->force = true;
		return -1;
	case OPT_PID:
		v = opt_number(optarg, 1, INT_MAX);
		if (v < 0)
			return opt_usage_error(
				cmd, "--pid needs a process id, not", optarg);
		opts->pid = v;
		return -1;
	case OPT_NO_DEMANGLE:
		opts->no_demangle = true;
		return -1;
	case OPT_DEBUG_DIR:
		return opt_append(&opts->debug_dirs, &opts->ndebug_dirs,
				  optarg);
	case OPT_SYSROOT:
		if (cli_set_sysroot(optarg) < 0)
			return opt_usage_error(
				cmd,
				errno == ENOTDIR
					? "--sysroot needs a directory, not"
					: "--sysroot cannot be read:",
				optarg);
		return -1;
	case ':':
		return opt_usage_error(cmd, "missing value for",
				       rejected(last_arg));
	case '?':
		return opt_usage_error(cmd, "unknown option",
				       rejected(last_arg));
	default:
		return -2;
	}
}

int
opt_calls(int c, struct report_opts *opts)
{
	switch (c) {
	case OPT_CALLERS:
		opts->callers = optarg;
		return -1;
	case OPT_CALLEES:
		opts->callees = optarg;
		return -1;
	case OPT_CALL_GRAPH:
		opts->call_graph = true;
		return -1;
	default:
		return -2;
	}
}

void
opt_fini(struct report_opts *opts)
{
	free(opts->debug_dirs);
	opts->debug_dirs = NULL;
	opts->ndebug_dirs = 0;
}

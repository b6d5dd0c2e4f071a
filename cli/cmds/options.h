/* SPDX-License-Identifier: MIT */
/* Command-line pieces shared by the subcommands that read profiles. */
#ifndef PROFRUN_CLI_OPTIONS_H
#define PROFRUN_CLI_OPTIONS_H

#include <getopt.h>

#include "cli.h"
#include "report.h"

/* getopt_long values of the shared options; subcommands number their own
 * from OPT_OWN on. */
enum {
	OPT_FORCE = 256,
	OPT_PID,
	OPT_NO_DEMANGLE,
	OPT_DEBUG_DIR,
	OPT_SYSROOT,
	OPT_CALLERS,
	OPT_CALLEES,
	OPT_CALL_GRAPH,
	OPT_OWN,
};

/* clang-format off */
/* The shared options, for a struct option table. */
#define SYMBOL_OPTIONS \
	{"force", no_argument, NULL, OPT_FORCE}, \
	{"pid", required_argument, NULL, OPT_PID}, \
	{"no-demangle", no_argument, NULL, OPT_NO_DEMANGLE}, \
	{"debug-dir", required_argument, NULL, OPT_DEBUG_DIR}, \
	{"sysroot", required_argument, NULL, OPT_SYSROOT}

/* Their help lines. */
#define SYMBOL_OPTIONS_HELP \
	"  --pid N             only the process N\n" \
	"  --no-demangle       raw C++/Rust symbol names\n" \
	"  --debug-dir DIR     look for debug files in DIR too (a build-id\n" \
	"                      tree, or the .gnu_debuglink file); repeatable\n" \
	"  --sysroot DIR       the profiled machine's files under DIR first (a\n" \
	"                      qemu -L root, a container's or a device's root)\n" \
	"  --force             report even if the binary's build-id changed\n"
/* The views of the call stacks (report's; a run's without --call-graph,
 * which there means recording them), and their help lines. */
#define CALLS_OPTIONS \
	{"callers", required_argument, NULL, OPT_CALLERS}, \
	{"callees", required_argument, NULL, OPT_CALLEES}
#define CALL_GRAPH_OPTION {"call-graph", no_argument, NULL, OPT_CALL_GRAPH}

#define CALLS_OPTIONS_HELP \
	"  --callers FUNC      who calls FUNC (its shown or raw name), each\n" \
	"                      caller with its share of the samples with FUNC\n" \
	"                      on the stack (profiles recorded with -g)\n" \
	"  --callees FUNC      whom FUNC calls, likewise\n"
#define CALL_GRAPH_HELP \
	"  --call-graph        gprof's call graph: each function by its total\n" \
	"                      samples, its callers above, its callees below\n" \
	"                      (these views replace the flat table; text, json)\n"
/* clang-format on */

/* A decimal number in [MIN, MAX], or -1 (MIN is at least 0). */
long opt_number(const char *s, long min, long max);

/* "profrun: CMD: WHAT 'ARG' (see profrun CMD --help)"; returns
 * EXIT_USAGE. */
int opt_usage_error(const char *cmd, const char *what, const char *arg);

/* --top ARG of CMD (a number >= 1, or "all": 0) into *TOP.  Returns -1 to go on, or
 * EXIT_USAGE after saying why not. */
int opt_top(const char *cmd, const char *arg, int *top);

/* Handle C if it is a shared option (or getopt's ':' and '?').  Returns
 * -1 to go on, the exit status to stop with, or -2 when C is the
 * subcommand's own.  LAST_ARG is the argument getopt looked at last. */
int opt_shared(const char *cmd, int c, const char *last_arg,
	       struct report_opts *opts);

/* Handle C if it is one of CALLS_OPTIONS or CALL_GRAPH_OPTION: -1 to go
 * on, or -2 when it is none of them. */
int opt_calls(int c, struct report_opts *opts);

/* Append S to the array *V of *N strings.  Returns -1 to go on, or
 * EXIT_FAIL when out of memory. */
int opt_append(const char ***v, size_t *n, const char *s);

/* Free what opt_shared allocated in OPTS. */
void opt_fini(struct report_opts *opts);

#endif /* PROFRUN_CLI_OPTIONS_H */

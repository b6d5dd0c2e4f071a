/* SPDX-License-Identifier: MIT */
/* `profrun report`: print the profile of a finished (or cut short) run. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmds.h"
#include "file.h"
#include "formats.h"
#include "options.h"
#include "report.h"

/* The help, around the list of formats (formats/table.c). */
static const char report_usage_head[] =
	"Usage: profrun report [OPTIONS] PROFILE...\n"
	"\n"
	"Print the flat profile of PROFILE, a run directory (one <pid>.prof\n"
	"file per process) or a single member file.  Several PROFILEs are\n"
	"added up as one.\n"
	"\n"
	"Options:\n"
	"  --format FMT        output format (default: text):\n";
static const char report_usage_tail[] =
	"  -o, --output FILE   write to FILE instead of stdout (never one of the\n"
	"                      inputs)\n"
	"  --top N             show only the N hottest functions (and lines); 'all'\n"
	"                      shows every one (the default)\n"
	"  --sort KEY          order functions by 'self' samples (the default)\n"
	"                      or by 'total', the samples with the function\n"
	"                      anywhere on the stack: every function on a\n"
	"                      stack is listed, callers without samples of\n"
	"                      their own too (profiles recorded with -g)\n"
	"  --lines             also the profile by source line (file:line),\n"
	"                      each line with the innermost function it\n"
	"                      belongs to (an inlined helper's, not its caller's)\n"
	"  --inline            split each function's samples among the\n"
	"                      functions inlined into it, shown as\n"
	"                      \"helper [inlined into caller]\"\n"
	"  --by-process        one section per process instead of merging,\n"
	"                      by CPU time (highest first)\n"
	"  --processes         a table of the processes by CPU time (highest\n"
	"                      first): CPU seconds and share, samples, and the\n"
	"                      command line cut to what tells them apart\n"
	"  --by-thread         a table of each process's threads: samples,\n"
	"                      share and CPU time, and names as the threads\n"
	"                      set them\n"
	"  --tid N             only the process of thread N, and only that\n"
	"                      thread in the thread table (function rows stay\n"
	"                      the process's: samples are counted per process)\n"
	"  --module NAME       only the functions of module NAME (a path or a\n"
	"                      file name: libc.so.6, [vdso], [unknown])\n"
	"  --time START-END    only the samples taken START to END seconds\n"
	"                      after each process's start (END may be left\n"
	"                      out: to its end); +START-END: after the run's\n"
	"                      start.  Every view is of that window (profiles\n"
	"                      keep the times of each process's first 65536\n"
	"                      samples)\n"
	"  --main-only         only the main executables, as before shared\n"
	"                      libraries were attributed: the samples outside\n"
	"                      them stay counted in the header\n" CALLS_OPTIONS_HELP
		CALL_GRAPH_HELP SYMBOL_OPTIONS_HELP
	"  -h, --help          show this help\n"
	"\n"
	"Debug information is found in the binary, through .gnu_debuglink and\n"
	"the build-id tree (/usr/lib/debug and each --debug-dir), and, when\n"
	"DEBUGINFOD_URLS is set, from debuginfod servers.\n"
	"\n"
	"Samples in shared libraries are symbolized like the executable, from\n"
	"the library file recorded at run time (a library updated since then\n"
	"is reported by address); the vdso from its image in the profile;\n"
	"what fell in no known module is one [unknown] entry.\n"
	"\n"
	"Exit status: 0 success, 1 unusable profile or binary, 3 partial\n"
	"report (members of the run that could not be read, damaged or for\n"
	"lack of memory, are left out and named in the report), 64 usage\n"
	"error.\n";

enum {
	OPT_FORMAT = OPT_OWN,
	OPT_TOP,
	OPT_BY_PROCESS,
	OPT_LINES,
	OPT_INLINE,
	OPT_MODULE,
	OPT_MAIN_ONLY,
	OPT_BY_THREAD,
	OPT_TID,
	OPT_SORT,
	OPT_PROCESSES,
	OPT_TIME,
};

/* -o FILE, or NULL for stdout. */
static const char *report_output;

static const struct option report_options[] = {
	{"format", required_argument, NULL, OPT_FORMAT},
	{"output", required_argument, NULL, 'o'},
	{"top", required_argument, NULL, OPT_TOP},
	{"by-process", no_argument, NULL, OPT_BY_PROCESS},
	{"lines", no_argument, NULL, OPT_LINES},
	{"inline", no_argument, NULL, OPT_INLINE},
	{"module", required_argument, NULL, OPT_MODULE},
	{"main-only", no_argument, NULL, OPT_MAIN_ONLY},
	{"by-thread", no_argument, NULL, OPT_BY_THREAD},
	{"tid", required_argument, NULL, OPT_TID},
	{"sort", required_argument, NULL, OPT_SORT},
	{"processes", no_argument, NULL, OPT_PROCESSES},
	{"time", required_argument, NULL, OPT_TIME},
	CALLS_OPTIONS,
	CALL_GRAPH_OPTION,
	SYMBOL_OPTIONS,
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

static void
print_usage(void)
{
	const struct report_format *f;
	size_t i;

	fputs(report_usage_head, stdout);
	for (i = 0; (f = report_format_at(i)) != NULL; i++)
		printf("                        %-11s %s\n", f->name, f->what);
	fputs(report_usage_tail, stdout);
}

/* The switch the option C turns on, or NULL when C takes a value. */
static bool *
option_flag(int c, struct report_opts *opts)
{
	switch (c) {
	case OPT_BY_PROCESS:
		return &opts->by_process;
	case OPT_LINES:
		return &opts->lines;
	case OPT_INLINE:
		return &opts->inlines;
	case OPT_MAIN_ONLY:
		return &opts->main_only;
	case OPT_BY_THREAD:
		return &opts->by_thread;
	case OPT_PROCESSES:
		return &opts->processes;
	default:
		return NULL;
	}
}

/* A number of seconds at *S, moving *S past it: 0, or -1 when there is
 * none there, or it is negative or not finite. */
static int
seconds_at(const char **s, double *v)
{
	char *end;

	if (**s < '0' || **s > '9')
		return -1;
	errno = 0;
	*v = strtod(*s, &end);
	if (errno || !isfinite(*v) || *v < 0)
		return -1;
	*s = end;
	return 0;
}

/* --time [+]START-[END] into OPTS: 0, or -1 when it is not one. */
static int
parse_window(const char *arg, struct report_opts *opts)
{
	const char *s = arg;

	opts->time_from_run = *s == '+';
	s += opts->time_from_run;
	opts->time_hi = -1;
	if (seconds_at(&s, &opts->time_lo) || *s++ != '-')
		return -1;
	if (*s != '\0' && (seconds_at(&s, &opts->time_hi) || *s != '\0' ||
			   opts->time_hi <= opts->time_lo))
		return -1;
	opts->windowed = true;
	return 0;
}

/* Returns -1 to go on, or the exit status. */
static int
parse_option(int c, struct report_opts *opts)
{
	bool *flag = option_flag(c, opts);
	long v;

	if (flag) {
		*flag = true;
		return -1;
	}
	switch (c) {
	case OPT_FORMAT:
		if (!report_format_find(optarg))
			return opt_usage_error("report", "unknown format",
					       optarg);
		opts->format = optarg;
		return -1;
	case OPT_TOP:
		return opt_top("report", optarg, &opts->top);
	case 'o':
		report_output = optarg;
		return -1;
	case OPT_MODULE:
		opts->module = optarg;
		return -1;
	case OPT_SORT:
		if (strcmp(optarg, "self") != 0 && strcmp(optarg, "total") != 0)
			return opt_usage_error(
				"report", "--sort takes 'self' or 'total', not",
				optarg);
		opts->sort_total = strcmp(optarg, "total") == 0;
		return -1;
	case OPT_TID:
		v = opt_number(optarg, 1, INT_MAX);
		if (v < 0)
			return opt_usage_error("report",
					       "--tid needs a thread id, not",
					       optarg);
		opts->tid = v;
		opts->by_thread = true;
		return -1;
	case OPT_TIME:
		if (parse_window(optarg, opts))
			return opt_usage_error(
				"report",
				"--time needs START-END in seconds (END may be left out; +START-END from the run's start), not",
				optarg);
		return -1;
	case 'h':
		print_usage();
		return EXIT_OK;
	default:
		return opt_usage_error("report", "unknown option", "?");
	}
}

static int report_to_file(char *const *paths, size_t n,
			  const struct report_opts *opts);

int
cmd_report(int argc, char **argv)
{
	struct report_opts opts = {.format = "text"};
	int c, ret = -1;

	optind = 0; /* full reset: main may have used getopt already */
	opterr = 0;
	report_output = NULL;
	while (ret < 0 && (c = getopt_long(argc, argv, ":ho:", report_options,
					   NULL)) != -1) {
		ret = opt_shared("report", c, argv[optind - 1], &opts);
		if (ret == -2)
			ret = opt_calls(c, &opts);
		if (ret == -2)
			ret = parse_option(c, &opts);
	}
	if (ret < 0 && report_opts_calls(&opts) &&
	    strcmp(opts.format, "text") != 0 &&
	    strcmp(opts.format, "json") != 0)
		ret = opt_usage_error(
			"report",
			"--callers, --callees and --call-graph are views of the text and json formats, not",
			opts.format);
	if (ret < 0 && optind == argc) {
		cli_error(
			"report: missing PROFILE (see profrun report --help)");
		ret = EXIT_USAGE;
	}
	if (ret < 0)
		ret = report_to_file(argv + optind, (size_t)(argc - optind),
				     &opts);
	opt_fini(&opts);
	return ret;
}

/* Write the report to -o FILE (in full or not at all), or stdout. */
static int
report_to_file(char *const *paths, size_t n, const struct report_opts *opts)
{
	struct cli_output o;
	int ret, c;

	if (!report_output)
		return report_paths(paths, n, opts, stdout);
	c = cli_output_open(&o, report_output);
	if (c < 0) {
		if (c == -1)
			cli_error("%s: %s", report_output, strerror(errno));
		return EXIT_FAIL;
	}
	ret = report_paths(paths, n, opts, o.f);
	/* a partial report is a report: written, and its status says so */
	c = cli_output_close(&o, ret == EXIT_OK || ret == EXIT_PARTIAL);
	if (c < 0 && (ret == EXIT_OK || ret == EXIT_PARTIAL)) {
		if (c == -1)
			cli_error("%s: %s", report_output, strerror(errno));
		ret = EXIT_FAIL;
	}
	return ret;
}

int
report_path(const char *path, const struct report_opts *opts, FILE *out)
{
	char *paths[1] = {(char *)path};

	return report_paths(paths, 1, opts, out);
}

int
report_paths(char *const *paths, size_t n, const struct report_opts *opts,
	     FILE *out)
{
	const struct report_format *f = report_format_find(opts->format);
	struct report_opts o = *opts;
	struct run run;
	struct report r;
	int ret;

	o.timeline = f != NULL && f->timeline;
	opts = &o;
	if (run_load_many(paths, n, &run))
		return EXIT_FAIL;
	if (opts->windowed && run_limit_time(&run, opts->time_lo, opts->time_hi,
					     opts->time_from_run)) {
		run_fini(&run);
		return EXIT_FAIL;
	}
	if (report_build(&r, &run, opts)) {
		run_fini(&run);
		return EXIT_FAIL;
	}
	ret = report_write(&r, opts->format, out);
	if (ret && ferror(out))
		cli_error("%s: cannot write the report", run.path);
	if (ret == 0 && run.skipped > 0)
		cli_error("%s: partial report: %zu member%s could not be read",
			  run.path, run.skipped, run.skipped == 1 ? "" : "s");
	if (ret == 0 && run.nmissing > 0)
		cli_error("%s: partial report: %zu process%s left no profile",
			  run.path, run.nmissing,
			  run.nmissing == 1 ? "" : "es");
	report_fini(&r);
	ret = ret ? EXIT_FAIL : run_partial(&run) ? EXIT_PARTIAL : EXIT_OK;
	run_fini(&run);
	return ret;
}

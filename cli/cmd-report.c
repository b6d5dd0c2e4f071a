/* SPDX-License-Identifier: MIT */
/* `profrun report`: print the profile of a finished (or cut short) run. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "export.h"
#include "report.h"

static const char report_usage[] =
	"Usage: profrun report [OPTIONS] PROFILE...\n"
	"\n"
	"Print the flat profile of PROFILE, a run directory (one <pid>.prof\n"
	"file per process) or a single member file.  Several PROFILEs are\n"
	"added up as one.\n"
	"\n"
	"Options:\n"
	"  --format FMT        output format (default: text):\n"
	"                        text      the flat profile for a terminal\n"
	"                        json      schema profrun-report/1\n"
	"                        csv       one row per function (RFC 4180)\n"
	"                        markdown  a GitHub-flavoured table\n"
	"                        gmon      gmon.out for 'gprof -p BINARY FILE'\n"
	"                        pprof     gzipped profile.proto for pprof\n"
	"  -o, --output FILE   write to FILE instead of stdout\n"
	"  --top N             show only the N hottest functions\n"
	"  --by-process        one section per process instead of merging\n"
	"  --pid N             only the process N\n"
	"  --force             report even if the binary's build-id changed\n"
	"  -h, --help          show this help\n"
	"\n"
	"Exit status: 0 success, 1 unusable profile or binary, 64 usage "
	"error.\n";

enum {
	OPT_FORMAT = 256,
	OPT_TOP,
	OPT_FORCE,
	OPT_BY_PROCESS,
	OPT_PID,
};

/* The argument getopt_long looked at last, for messages. */
static const char *last_arg = "?";

/* -o FILE, or NULL for stdout. */
static const char *report_output;

static const struct option report_options[] = {
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "output", required_argument, NULL, 'o' },
	{ "top", required_argument, NULL, OPT_TOP },
	{ "force", no_argument, NULL, OPT_FORCE },
	{ "by-process", no_argument, NULL, OPT_BY_PROCESS },
	{ "pid", required_argument, NULL, OPT_PID },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* A decimal number in [MIN, MAX], or -1 (MIN is at least 0). */
static long
parse_number(const char *s, long min, long max)
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

static int
usage_error(const char *what, const char *arg)
{
	cli_error("report: %s '%s' (see profrun report --help)", what, arg);
	return EXIT_USAGE;
}

/* The option getopt_long just rejected. */
static const char *
bad_option(void)
{
	static char buf[3];

	if (optopt == 0 || optopt >= 256)
		return optind > 0 ? last_arg : "?";
	snprintf(buf, sizeof(buf), "-%c", optopt);
	return buf;
}

/* Returns -1 to go on, or the exit status. */
static int
parse_option(int c, struct report_opts *opts)
{
	long v;

	switch (c) {
	case OPT_FORMAT:
		if (!report_format_find(optarg))
			return usage_error("unknown format", optarg);
		opts->format = optarg;
		return -1;
	case OPT_TOP:
		v = parse_number(optarg, 1, INT_MAX);
		if (v < 0)
			return usage_error("--top needs a number >= 1, not", optarg);
		opts->top = (int)v;
		return -1;
	case 'o':
		report_output = optarg;
		return -1;
	case OPT_FORCE:
		opts->force = true;
		return -1;
	case OPT_BY_PROCESS:
		opts->by_process = true;
		return -1;
	case OPT_PID:
		v = parse_number(optarg, 1, INT_MAX);
		if (v < 0)
			return usage_error("--pid needs a process id, not", optarg);
		opts->pid = v;
		return -1;
	case 'h':
		fputs(report_usage, stdout);
		return EXIT_OK;
	case ':':
		return usage_error("missing value for", bad_option());
	default:
		return usage_error("unknown option", bad_option());
	}
}

static int report_to_file(char *const *paths, size_t n,
			  const struct report_opts *opts);

int
cmd_report(int argc, char **argv)
{
	struct report_opts opts = { .format = "text" };
	int c, ret;

	optind = 0; /* full reset: main may have used getopt already */
	opterr = 0;
	report_output = NULL;
	while ((c = getopt_long(argc, argv, ":ho:", report_options, NULL)) != -1) {
		last_arg = argv[optind - 1];
		ret = parse_option(c, &opts);
		if (ret >= 0)
			return ret;
	}
	if (optind == argc) {
		cli_error("report: missing PROFILE (see profrun report --help)");
		return EXIT_USAGE;
	}
	return report_to_file(argv + optind, (size_t)(argc - optind), &opts);
}

/* Write the report to -o FILE, or stdout. */
static int
report_to_file(char *const *paths, size_t n, const struct report_opts *opts)
{
	FILE *out = stdout;
	int ret;

	if (report_output) {
		out = fopen(report_output, "we");
		if (!out) {
			cli_error("%s: %s", report_output, strerror(errno));
			return EXIT_FAIL;
		}
	}
	ret = report_paths(paths, n, opts, out);
	if (out != stdout && fclose(out) != 0 && ret == EXIT_OK) {
		cli_error("%s: %s", report_output, strerror(errno));
		ret = EXIT_FAIL;
	}
	if (ret != EXIT_OK && out != stdout)
		unlink(report_output);
	return ret;
}

int
report_path(const char *path, const struct report_opts *opts, FILE *out)
{
	char *paths[1] = { (char *)path };

	return report_paths(paths, 1, opts, out);
}

int
report_paths(char *const *paths, size_t n, const struct report_opts *opts,
	     FILE *out)
{
	struct run run;
	struct report r;
	int ret;

	if (run_load_many(paths, n, &run))
		return EXIT_FAIL;
	if (report_build(&r, &run, opts)) {
		run_fini(&run);
		return EXIT_FAIL;
	}
	ret = report_write(&r, opts->format, out);
	if (ret && ferror(out))
		cli_error("%s: cannot write the report", run.path);
	report_fini(&r);
	run_fini(&run);
	return ret ? EXIT_FAIL : EXIT_OK;
}

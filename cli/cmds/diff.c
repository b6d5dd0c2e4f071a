/* SPDX-License-Identifier: MIT */
/* `profrun diff BASE NEW`: compare two flat profiles; exit 1 on a real
 * regression, so that it can gate a CI job. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmds.h"
#include "file.h"
#include "diff.h"

static const char diff_usage[] =
	"Usage: profrun diff [OPTIONS] BASE NEW\n"
	"\n"
	"Compare the flat profiles BASE and NEW, each a profile (run directory\n"
	"or member file) or a JSON report ('profrun report --format json', e.g.\n"
	"a baseline committed to the repository).  Functions match by name\n"
	"(and module).  For each: its share of the samples in BASE and NEW,\n"
	"the change in percentage points, and whether the change is\n"
	"significant: a two-proportion z-test with continuity correction,\n"
	"Holm-adjusted over all functions compared, so that two runs of an\n"
	"unchanged program raise a false alarm at most 1% of the time at the\n"
	"default confidence (docs/diff.md).\n"
	"\n"
	"A function is a regression when its share grew significantly and by\n"
	"more than --threshold points; a new function with such a share counts\n"
	"too.  Markdown adds the changes of inclusive shares when both sides\n"
	"have stacks, and stays under 65,536 characters (a GitHub comment).\n"
	"\n"
	"Options:\n"
	"  --format FMT        text (default), markdown, json, or html (a page:\n"
	"                      the flame graph of NEW coloured by the change\n"
	"                      of each function's inclusive share; bars per\n"
	"                      function when a side has no stacks)\n"
	"  --threshold PTS     smallest change in percentage points that\n"
	"                      counts (default 1.0)\n"
	"  --confidence PCT    family-wise confidence, percent (default 99)\n"
	"  --fail-on WHAT      regression (default): exit 1 on a regression;\n"
	"                      any: also on a significant improvement;\n"
	"                      none: never exit 1\n"
	"  --top N             rows shown in text and markdown (default 20;\n"
	"                      0 = all; flagged rows are always shown)\n"
	"  --force             symbolize profiles of rebuilt binaries anyway\n"
	"  --same A=B          module A of BASE is module B of NEW (by path or\n"
	"                      file name; repeatable).  Without it, when each\n"
	"                      side has one main executable, they are one\n"
	"                      module whatever their names\n"
	"  --inclusive         compare inclusive shares (samples with the\n"
	"                      function anywhere on the stack; profiles\n"
	"                      recorded with -g, or their JSON reports)\n"
	"  -o, --output FILE   write to FILE instead of stdout\n"
	"  -h, --help          show this help\n"
	"\n"
	"Exit status: 0 no regression (as --fail-on defines it), 1 regression,\n"
	"2 error (unreadable or unsupported input, bad command line).\n";

enum {
	DIFF_OK = 0,
	DIFF_REGRESSED = 1,
	DIFF_ERROR = 2,
	OPT_FORMAT = 256,
	OPT_THRESHOLD,
	OPT_CONFIDENCE,
	OPT_FAIL_ON,
	OPT_TOP,
	OPT_FORCE,
	OPT_INCLUSIVE,
	OPT_SAME,
};

static const struct option diff_options[] = {
	{"format", required_argument, NULL, OPT_FORMAT},
	{"threshold", required_argument, NULL, OPT_THRESHOLD},
	{"confidence", required_argument, NULL, OPT_CONFIDENCE},
	{"fail-on", required_argument, NULL, OPT_FAIL_ON},
	{"top", required_argument, NULL, OPT_TOP},
	{"force", no_argument, NULL, OPT_FORCE},
	{"inclusive", no_argument, NULL, OPT_INCLUSIVE},
	{"same", required_argument, NULL, OPT_SAME},
	{"output", required_argument, NULL, 'o'},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

static int
diff_usage_error(const char *what, const char *arg)
{
	cli_error("diff: %s '%s' (see profrun diff --help)", what, arg);
	return DIFF_ERROR;
}

/* A decimal number in [MIN, MAX], or -1. */
static double
parse_real(const char *s, double min, double max)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !(v >= min && v <= max))
		return -1;
	return v;
}

/* *V from S, a number in [MIN, MAX]; WHAT says what it must be.  Returns
 * -1 to go on, or the exit status. */
static int
real_option(const char *s, double min, double max, double *v, const char *what)
{
	*v = parse_real(s, min, max);
	return *v < 0 ? diff_usage_error(what, s) : -1;
}

static int
parse_fail_on(const char *s, struct diff_opts *o)
{
	if (strcmp(s, "regression") == 0)
		o->fail_on = FAIL_ON_REGRESSION;
	else if (strcmp(s, "any") == 0)
		o->fail_on = FAIL_ON_ANY;
	else if (strcmp(s, "none") == 0)
		o->fail_on = FAIL_ON_NONE;
	else
		return diff_usage_error(
			"--fail-on takes regression, any or none, not", s);
	return -1;
}

/* Returns -1 to go on, or the exit status. */
static int
diff_option(int c, struct diff_opts *o, const char **output)
{
	switch (c) {
	case OPT_FORMAT:
		if (strcmp(optarg, "text") && strcmp(optarg, "markdown") &&
		    strcmp(optarg, "json") && strcmp(optarg, "html"))
			return diff_usage_error("unknown format", optarg);
		o->format = optarg;
		return -1;
	case OPT_THRESHOLD:
		return real_option(optarg, 0, 100, &o->threshold,
				   "--threshold needs points in [0, 100], not");
	case OPT_CONFIDENCE:
		return real_option(
			optarg, 50, 99.9999999, &o->confidence,
			"--confidence needs a percentage in [50, 100), not");
	case OPT_FAIL_ON:
		return parse_fail_on(optarg, o);
	case OPT_TOP:
		o->top = (int)parse_real(optarg, 0, INT_MAX);
		return o->top < 0 || strchr(optarg, '.')
			       ? diff_usage_error("--top needs a count, not",
						  optarg)
			       : -1;
	case OPT_FORCE:
		o->force = true;
		return -1;
	case OPT_INCLUSIVE:
		o->inclusive = true;
		return -1;
	case OPT_SAME:
		if (!strchr(optarg, '=') || optarg[0] == '=' ||
		    strchr(optarg, '=')[1] == '\0')
			return diff_usage_error(
				"--same takes BASE_MODULE=NEW_MODULE, not",
				optarg);
		o->same[o->nsame++] = optarg;
		return -1;
	case 'o':
		*output = optarg;
		return -1;
	case 'h':
		fputs(diff_usage, stdout);
		return DIFF_OK;
	default:
		return -2; /* the caller names the bad option */
	}
}

static int
diff_run(const char *base, const char *new, const struct diff_opts *opts,
	 const char *output)
{
	struct diff d = {.opts = opts};
	struct cli_output o = {.f = stdout};
	int ret = DIFF_ERROR, c = 0;
	bool written;

	if (diff_side_load(&d.base, base, opts) ||
	    diff_side_load(&d.new, new, opts))
		goto done;
	if (diff_compute(&d))
		goto done;
	if (output && (c = cli_output_open(&o, output)) < 0) {
		if (c == -1)
			cli_error("diff: %s: %s", output, strerror(errno));
		goto done;
	}
	written = diff_write(&d, o.f) == 0;
	if (output && (c = cli_output_close(&o, written)) < 0)
		written = false;
	if (!written && c == -2)
		goto done; /* an input: said */
	if (!written) {
		cli_error("diff: %s: cannot write", output ? output : "stdout");
		goto done;
	}
	ret = diff_fails(&d) ? DIFF_REGRESSED : DIFF_OK;
done:
	diff_fini(&d);
	return ret;
}

static int
diff_parse(int argc, char **argv, struct diff_opts *o)
{
	const char *output = NULL;
	int c, ret;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":ho:", diff_options, NULL)) !=
	       -1) {
		ret = diff_option(c, o, &output);
		if (ret == -2)
			return diff_usage_error(c == ':' ? "missing value for"
							 : "unknown option",
						argv[optind - 1]);
		if (ret >= 0)
			return ret;
	}
	if (argc - optind != 2) {
		cli_error(
			"diff: expected BASE and NEW (see profrun diff --help)");
		return DIFF_ERROR;
	}
	return diff_run(argv[optind], argv[optind + 1], o, output);
}

int
cmd_diff(int argc, char **argv)
{
	struct diff_opts o = {.format = "text",
			      .threshold = 1.0,
			      .confidence = 99.0,
			      .top = 20};
	int ret;

	/* at most one --same per argument */
	o.same = calloc((size_t)argc + 1, sizeof(*o.same));
	if (!o.same) {
		cli_error("diff: out of memory");
		return DIFF_ERROR;
	}
	ret = diff_parse(argc, argv, &o);
	free(o.same);
	return ret;
}

/* SPDX-License-Identifier: MIT */
/* `profrun annotate`: the source of the hottest (or named) functions. */
#define _GNU_SOURCE
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "annotate.h"
#include "cmds.h"
#include "options.h"

static const char annotate_usage[] =
	"Usage: profrun annotate [OPTIONS] [FUNCTION...] PROFILE\n"
	"\n"
	"Print the source of the hottest functions of PROFILE (or of the\n"
	"FUNCTIONs named: shown name, raw symbol, or C++ name without its\n"
	"arguments), each line with its samples and percent of all samples.\n"
	"Code inlined from other files is shown under its own file.\n"
	"\n"
	"Options:\n"
	"  --top N             the N hottest functions (default 3)\n"
	"  --source-dir DIR    look for sources under DIR first (DIR/PATH,\n"
	"                      then DIR with fewer leading directories of\n"
	"                      PATH, down to DIR/BASENAME); repeatable\n"
	"  --color=WHEN        highlight hot lines: auto (default: when stdout\n"
	"                      is a terminal and NO_COLOR is unset), always,\n"
	"                      never\n" SYMBOL_OPTIONS_HELP
	"  -h, --help          show this help\n"
	"\n"
	"A source file that cannot be read is said once on stderr; its\n"
	"sampled lines are still shown by number.\n"
	"\n"
	"Exit status: 0 success, 1 unusable profile or binary, or no function\n"
	"named has samples, 64 usage error.\n";

enum {
	OPT_TOP = OPT_OWN,
	OPT_SOURCE_DIR,
	OPT_COLOR,
};

static const struct option annotate_options[] = {
	{"top", required_argument, NULL, OPT_TOP},
	{"source-dir", required_argument, NULL, OPT_SOURCE_DIR},
	{"color", required_argument, NULL, OPT_COLOR},
	SYMBOL_OPTIONS,
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

enum color { COLOR_AUTO, COLOR_ALWAYS, COLOR_NEVER };

struct annotate_cmd {
	struct report_opts ropts;
	struct annotate_opts aopts;
	enum color color;
};

static int
parse_color(const char *s, enum color *c)
{
	if (strcmp(s, "auto") == 0)
		*c = COLOR_AUTO;
	else if (strcmp(s, "always") == 0)
		*c = COLOR_ALWAYS;
	else if (strcmp(s, "never") == 0)
		*c = COLOR_NEVER;
	else
		return opt_usage_error(
			"annotate", "--color takes auto, always or never, not",
			s);
	return -1;
}

/* Returns -1 to go on, or the exit status. */
static int
parse_option(int c, struct annotate_cmd *cmd)
{
	switch (c) {
	case OPT_TOP:
		return opt_top("annotate", optarg, &cmd->aopts.top);
	case OPT_SOURCE_DIR:
		return opt_append(&cmd->aopts.source_dirs,
				  &cmd->aopts.nsource_dirs, optarg);
	case OPT_COLOR:
		return parse_color(optarg, &cmd->color);
	case 'h':
		fputs(annotate_usage, stdout);
		return EXIT_OK;
	default:
		return opt_usage_error("annotate", "unknown option", "?");
	}
}

/* NO_COLOR (no-color.org): set and not empty turns "auto" off. */
static bool
want_color(enum color c, FILE *out)
{
	const char *no = getenv("NO_COLOR");

	if (c != COLOR_AUTO)
		return c == COLOR_ALWAYS;
	return isatty(fileno(out)) && !(no && no[0]);
}

static int
annotate_path(const char *path, struct annotate_cmd *cmd, FILE *out)
{
	struct run run;
	struct report r;
	int ret;

	if (run_load(path, &run))
		return EXIT_FAIL;
	if (report_build(&r, &run, &cmd->ropts)) {
		run_fini(&run);
		return EXIT_FAIL;
	}
	cmd->aopts.color = want_color(cmd->color, out);
	ret = annotate_print(&r, &cmd->aopts, out);
	report_fini(&r);
	run_fini(&run);
	return ret;
}

int
cmd_annotate(int argc, char **argv)
{
	struct annotate_cmd cmd = {.ropts = {.format = "text",
					     .lines = true,
					     .lines_by_caller = true},
				   .aopts = {.top = 3}};
	int c, ret = -1;

	optind = 0;
	opterr = 0;
	while (ret < 0 && (c = getopt_long(argc, argv, ":h", annotate_options,
					   NULL)) != -1) {
		ret = opt_shared("annotate", c, argv[optind - 1], &cmd.ropts);
		if (ret == -2)
			ret = parse_option(c, &cmd);
	}
	if (ret < 0 && optind >= argc) {
		cli_error(
			"annotate: missing PROFILE (see profrun annotate --help)");
		ret = EXIT_USAGE;
	}
	if (ret < 0) {
		cmd.aopts.names = (const char **)argv + optind;
		cmd.aopts.nnames = (size_t)(argc - optind - 1);
		ret = annotate_path(argv[argc - 1], &cmd, stdout);
	}
	opt_fini(&cmd.ropts);
	free(cmd.aopts.source_dirs);
	return ret;
}

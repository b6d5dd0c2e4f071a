/* SPDX-License-Identifier: MIT */
/* `profrun merge -o OUT PROFILE...`: add profiles up exactly. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cmds.h"
#include "merge.h"

static const char merge_usage[] =
	"Usage: profrun merge -o OUT [--force] PROFILE...\n"
	"\n"
	"Add up PROFILEs (run directories or member files) of the same binary\n"
	"into the run directory OUT, e.g. repeated CI runs gathered into one\n"
	"baseline.  Counts are summed exactly in 64 bits (no 16-bit\n"
	"truncation).  Members of the same binary are merged into one member\n"
	"file; a multi-process run keeps one member per binary.  Samples in\n"
	"shared libraries and the vdso are kept per library function (two\n"
	"builds of a library stay apart; vdso samples of an input whose vdso\n"
	"differs from the first one's count as unknown).  OUT is\n"
	"created, or replaced when it is a run directory; it may be one of\n"
	"the PROFILEs.\n"
	"\n"
	"Options:\n"
	"  -o, --output OUT    the merged run directory (required)\n"
	"      --force         merge profiles of different builds by function\n"
	"                      name into the first PROFILE's binary\n"
	"  -h, --help          show this help\n"
	"\n"
	"Exit status: 0 merged, 2 unusable input (unreadable profile, another\n"
	"binary without --force, OUT not replaceable), 3 merged but partial\n"
	"(members of an input could not be read, or processes left none),\n"
	"64 usage error.\n";

enum { MERGE_FAIL = 2, OPT_FORCE = 256 };

static const struct option merge_options[] = {
	{"output", required_argument, NULL, 'o'},
	{"force", no_argument, NULL, OPT_FORCE},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

static int
merge_usage_error(const char *what, const char *arg)
{
	cli_error("merge: %s%s (see profrun merge --help)", what, arg);
	return EXIT_USAGE;
}

int
cmd_merge(int argc, char **argv)
{
	const char *out = NULL;
	bool force = false;
	int c;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":ho:", merge_options, NULL)) !=
	       -1) {
		if (c == 'o') {
			out = optarg;
		} else if (c == OPT_FORCE) {
			force = true;
		} else if (c == 'h') {
			fputs(merge_usage, stdout);
			return EXIT_OK;
		} else {
			return merge_usage_error(c == ':' ? "missing value for "
							  : "unknown option ",
						 argv[optind - 1]);
		}
	}
	if (!out)
		return merge_usage_error("missing -o OUT", "");
	if (optind == argc)
		return merge_usage_error("missing PROFILE", "");
	switch (merge_profiles(argv + optind, (size_t)(argc - optind), out,
			       force)) {
	case 0:
		return EXIT_OK;
	case 1:
		return EXIT_PARTIAL;
	default:
		return MERGE_FAIL;
	}
}

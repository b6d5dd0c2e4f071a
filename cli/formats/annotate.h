/* SPDX-License-Identifier: MIT */
/* Annotated source: the lines of the hottest functions with samples. */
#ifndef PROFRUN_CLI_ANNOTATE_H
#define PROFRUN_CLI_ANNOTATE_H

#include <stdbool.h>
#include <stdio.h>

#include "report.h"

struct annotate_opts {
	const char **names; /* functions to show; none: the hottest */
	size_t nnames;
	int top;		  /* how many of the hottest (default 3) */
	const char **source_dirs; /* where else to look for sources */
	size_t nsource_dirs;
	bool color; /* highlight hot lines */
};

/* Print the annotated source of R's functions (R built with lines) to
 * OUT.  Sources that cannot be read are warned about once each, and
 * their lines shown by number.  Returns EXIT_OK, or EXIT_FAIL when no
 * function asked for has samples or OUT cannot be written. */
int annotate_print(const struct report *r, const struct annotate_opts *o,
		   FILE *out);

#endif /* PROFRUN_CLI_ANNOTATE_H */

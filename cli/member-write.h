/* SPDX-License-Identifier: MIT */
/* Writing profrun member files from exact counts (profrun merge). */
#ifndef PROFRUN_CLI_MEMBER_WRITE_H
#define PROFRUN_CLI_MEMBER_WRITE_H

#include "profile.h"

/* What a member file holds besides its header's layout fields. */
struct member {
	struct profrun_header hdr; /* identity, timing, outcome; layout
				      fields are filled in by the writer */
	const char *exe;
	const char *note;		      /* NULL for none */
	const struct profile_sample *samples; /* sorted, inside the text */
	size_t n;
};

/* Write M to the new file PATH (never replacing one).  Counts above 65535
 * go through a carry table sized for them.  Returns 0, or -1 after
 * printing an error. */
int member_write(const char *path, struct member *m);

#endif /* PROFRUN_CLI_MEMBER_WRITE_H */

/* SPDX-License-Identifier: MIT */
/* Writing the merged run directory. */
#ifndef PROFRUN_CLI_MERGE_OUT_H
#define PROFRUN_CLI_MERGE_OUT_H

#include "image.h"

/* Write one member file per image of IMAGES into the run directory OUT
 * (created, or replaced when it is a run directory).  SAME are the
 * members the images were built from; FOREIGN were merged by name into
 * the image of REF's binary, so their headers combine into that one.
 * Returns 0, or -1 after printing an error. */
int merge_out_write(const char *out, const struct image_set *images,
		    const struct profile **same, size_t nsame,
		    const struct profile **foreign, size_t nforeign,
		    const struct profile *ref);

#endif /* PROFRUN_CLI_MERGE_OUT_H */

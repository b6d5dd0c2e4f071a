/* SPDX-License-Identifier: MIT */
/* Naming and merging stacks into a struct report_stacks, one process at a
 * time (stacks-build.c): for the report's call stacks, and for the
 * timeline's (timeline.c), whose samples refer to their trace by index. */
#ifndef PROFRUN_CLI_STACKS_BUILDER_H
#define PROFRUN_CLI_STACKS_BUILDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "report.h"

struct builder;

/* A builder of R's stacks into S, naming with SZ; NULL when out of
 * memory. */
struct builder *stacks_builder_new(struct report *r, struct report_stacks *s,
				   struct symbolizer *sz);

/* The stacks that follow are P's (with UNWIND, copied stacks to unwind).
 * Returns 0, or -1 when out of memory. */
int stacks_builder_use(struct builder *b, const struct profile *p, bool unwind);

/* The copied stack ST, unwound, named and merged: its trace's index into
 * *AT (SIZE_MAX when it has no frame).  Returns 0, or non-zero when out of
 * memory (stacks_builder_failed). */
int stacks_builder_stack(struct builder *b, const struct profile_stack *st,
			 size_t *at);

/* The function at the timeline key KEY (PC | generation << 48), as a
 * trace of one frame (STACK_LEAF): its index into *AT, like the above. */
int stacks_builder_leaf(struct builder *b, uint64_t key, size_t *at);

bool stacks_builder_failed(const struct builder *b);
void stacks_builder_free(struct builder *b);

#endif /* PROFRUN_CLI_STACKS_BUILDER_H */

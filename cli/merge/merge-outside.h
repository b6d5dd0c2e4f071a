/* SPDX-License-Identifier: MIT */
/* Merging the samples outside the main executables (PC tables and module
 * records) of the members of one binary. */
#ifndef PROFRUN_CLI_MERGE_OUTSIDE_H
#define PROFRUN_CLI_MERGE_OUTSIDE_H

#include <stdbool.h>

#include "member-write.h"
#include "profile.h"

struct merge_obj;
struct merge_frame;
struct merge_stack;

/* The objects seen so far, their samples at link-time addresses. */
struct merge_outside {
	struct merge_obj *v;
	size_t n, cap;
	bool any;	     /* some input had a PC table */
	const uint8_t *vdso; /* the image kept (of the first vdso seen) */
	uint32_t vdso_size;
	bool vdso_seen;
	uint64_t unmapped;     /* in no object, or in one not kept */
	uint64_t lost;	       /* inputs' PC tables were full */
	uint32_t modules_lost; /* inputs' objects without a record */

	/* call stacks, unwound: frames by object and link-time address */
	struct merge_frame *frames;
	size_t nframes, frames_cap;
	struct merge_stack *stacks;
	size_t nstacks, stacks_cap;
	bool any_stacks;	/* some input had stacks */
	uint64_t stack_samples; /* all samples of those inputs */
	uint64_t stacks_total;	/* samples their stacks stand for */
	uint32_t stack_max;

	/* built by merge_outside_finish */
	struct member_module *mods;
	struct profile_sample *pcs;
	size_t nmods, npcs;
};

/* Add the PC table of P.  A FOREIGN member (another build of the main
 * binary, merged by name) has its samples in that binary counted as
 * unknown.  Returns 0, or -1 when out of memory. */
int merge_outside_add(struct merge_outside *mo, const struct profile *p,
		      bool foreign);

/* Add the call stacks of P (unwound now, or already unwound in a merged
 * member), their frames kept by object and link-time address like the
 * PCs above.  Returns 0, or -1 after printing an error. */
int merge_outside_add_stacks(struct merge_outside *mo, const struct profile *p,
			     bool foreign);

/* The region of the stacks added (struct profrun_frames and its records,
 * PCs in the layout merge_outside_finish made; main-executable frames at
 * LOAD_BIAS) into *BUF, *SIZE bytes (allocated); *BUF NULL when no input
 * had stacks.  Returns 0, or -1 when out of memory. */
int merge_outside_frames(const struct merge_outside *mo, uint64_t load_bias,
			 uint8_t **buf, size_t *size);

/* Give every object an address range of its own and fill OUT with the
 * records and the PCs (runtime addresses in that layout).  OUT is left
 * NULL when no input had a PC table.  Returns 0, or -1 when out of
 * memory. */
int merge_outside_finish(struct merge_outside *mo,
			 const struct member_outside **out,
			 struct member_outside *buf);

void merge_outside_fini(struct merge_outside *mo);

#endif /* PROFRUN_CLI_MERGE_OUTSIDE_H */

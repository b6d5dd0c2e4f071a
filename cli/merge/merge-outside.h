/* SPDX-License-Identifier: MIT */
/* Merging the samples outside the main executables (PC tables and module
 * records) of the members of one binary. */
#ifndef PROFRUN_CLI_MERGE_OUTSIDE_H
#define PROFRUN_CLI_MERGE_OUTSIDE_H

#include <stdbool.h>

#include "member-write.h"
#include "profile.h"

struct merge_obj;

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

/* Give every object an address range of its own and fill OUT with the
 * records and the PCs (runtime addresses in that layout).  OUT is left
 * NULL when no input had a PC table.  Returns 0, or -1 when out of
 * memory. */
int merge_outside_finish(struct merge_outside *mo,
			 const struct member_outside **out,
			 struct member_outside *buf);

void merge_outside_fini(struct merge_outside *mo);

#endif /* PROFRUN_CLI_MERGE_OUTSIDE_H */

/* SPDX-License-Identifier: MIT */
/* Writing profrun member files from exact counts (profrun merge). */
#ifndef PROFRUN_CLI_MEMBER_WRITE_H
#define PROFRUN_CLI_MEMBER_WRITE_H

#include "profile.h"

/* One object record (struct profrun_module), loaded in generation 1. */
struct member_module {
	const char *path;
	const char *build_id; /* hex, "" when none */
	uint32_t kind;	      /* enum profrun_module_kind */
	uint64_t start, end;  /* runtime range */
	uint64_t bias;	      /* runtime - link-time */
};

/* Where the samples outside the main executable fell. */
struct member_outside {
	const struct profile_sample *pcs; /* distinct runtime PCs (< 2^48,
					   * not 0) of generation 1 */
	size_t npcs;
	const struct member_module *mods;
	size_t nmods;
	const uint8_t *vdso; /* image, or NULL */
	uint32_t vdso_size;
	uint64_t lost, unmapped; /* pcs_lost, pcs_unmapped */
	uint32_t modules_lost;
};

/* What a member file holds besides its header's layout fields. */
struct member {
	struct profrun_header hdr; /* identity, timing, outcome; layout
				      fields are filled in by the writer */
	const char *exe;
	const char *note;		      /* NULL for none */
	const struct profile_sample *samples; /* sorted, inside the text */
	size_t n;
	const struct member_outside *outside; /* NULL: a count only */
	/* call stacks already unwound: a struct profrun_frames and its
	 * records (region kind PROFRUN_REGION_FRAMES); NULL = none */
	const uint8_t *frames;
	size_t frames_size;
	uint64_t frames_off; /* set by the writer */
	uint64_t paused_ns;  /* CPU time while sampling was paused: kept in a
			     * pause record (through the region list) */
	uint64_t pause_off;  /* set by the writer */
};

/* Write M to the new file PATH (never replacing one).  Counts above 65535
 * go through a carry table sized for them; the PC table has a power of
 * two of slots, at least twice the PCs when the reader's limits allow
 * (PCs that find no slot are counted in pcs_lost).  Returns 0, or -1 after
 * printing an error. */
int member_write(const char *path, struct member *m);

#endif /* PROFRUN_CLI_MEMBER_WRITE_H */

/* SPDX-License-Identifier: MIT */
/*
 * The offspring of a member (region PROFRUN_REGION_OFFSPRING, found only
 * through the region list): the processes the image started (fork,
 * posix_spawn) and the images it exec'd, each with why it cannot be
 * profiled when it cannot, and the wait status the program saw.  A file
 * without it recorded none (an earlier writer, or a merged member).
 */
#include <stdlib.h>
#include <string.h>

#include "profile.h"

/* Far above PROFRUN_OFFSPRING_SLOTS and PROFRUN_OFFSPRING_PATHS. */
#define PROFILE_MAX_OFFSPRING_BYTES (1u << 22)

/* The path at OFF (from the region's start) of the path area [LO, LO +
 * SIZE) copied into AREA (NUL-terminated at SIZE), or NULL. */
static const char *
child_path(const char *area, uint64_t lo, uint64_t size, uint32_t off)
{
	if (off < lo || off - lo >= size)
		return NULL;
	return area + (off - lo);
}

/* The region of SIZE bytes at REG into P. */
static int
parse_region(const uint8_t *reg, uint64_t size, struct profile *p, char *err,
	     size_t errlen)
{
	struct profrun_offspring o;
	uint64_t lo, n;

	memcpy(&o, reg, sizeof(o));
	if (o.slot_count == 0)
		return 0; /* no child */
	lo = sizeof(o) + (uint64_t)o.slot_count * sizeof(struct profrun_child);
	if (lo + o.path_size > size)
		return profile_fail(
			err, errlen,
			"offspring records larger than their region");
	n = o.claimed < o.slot_count ? o.claimed : o.slot_count;
	p->children_unrecorded = o.claimed - n;
	p->child_paths = malloc(o.path_size + 1);
	p->children = calloc(n ? n : 1, sizeof(*p->children));
	if (!p->child_paths || !p->children)
		return profile_fail(err, errlen, "out of memory");
	memcpy(p->child_paths, reg + lo, o.path_size);
	p->child_paths[o.path_size] = '\0';
	for (uint64_t i = 0; i < n; i++) {
		struct profrun_child c;
		struct profile_child *d = &p->children[p->nchildren];

		memcpy(&c, reg + sizeof(o) + i * sizeof(c), sizeof(c));
		if (c.pid <= 0 || c.kind < PROFRUN_CHILD_FORK ||
		    c.kind > PROFRUN_CHILD_EXEC)
			continue; /* not written yet, or a newer kind */
		d->pid = c.pid;
		d->kind = c.kind;
		d->reason = c.reason;
		d->flags = c.flags;
		d->status = c.status;
		d->path =
			child_path(p->child_paths, lo, o.path_size, c.path_off);
		p->nchildren++;
	}
	return 0;
}

int
profile_parse_offspring(const uint8_t *buf, size_t avail, struct profile *p,
			char *err, size_t errlen)
{
	struct profrun_region e;
	bool later;

	if (!profile_find_region(buf, &p->hdr, PROFRUN_REGION_OFFSPRING, &e) ||
	    e.version != 1)
		return 0; /* none, or a layout of a newer writer */
	p->has_offspring = true;
	if (profile_region_later(&e, sizeof(struct profrun_offspring),
				 PROFILE_MAX_OFFSPRING_BYTES / 8, avail,
				 "offspring region", &p->offspring_off,
				 &p->offspring_size, &later, err, errlen))
		return -1;
	if (later)
		return 0; /* read later, from the file */
	return parse_region(buf + e.off, e.size, p, err, errlen);
}

int
profile_offspring_load(int fd, struct profile *p, char *err, size_t errlen)
{
	return profile_region_load(fd, &p->offspring_off, &p->offspring_size,
				   "offspring region", parse_region, p, err,
				   errlen);
}

/* SPDX-License-Identifier: MIT */
/*
 * The list of a member's regions (struct profrun_region): every entry
 * inside the file, the kinds this reader knows where the header puts
 * them, and a kind it does not know refused only when the writer marked
 * it required.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile.h"

/* Far above what any writer lists. */
#define PROFILE_MAX_REGIONS 256u

size_t
profile_region_list_regions(const struct profrun_header *h, struct region *r)
{
	if (h->regions_off == 0 && h->region_count == 0)
		return 0;
	r->what = "region list";
	r->off = h->regions_off;
	r->size = (uint64_t)h->region_count * sizeof(struct profrun_region);
	return 1;
}

/* Where the header puts a region of KIND; false for a kind this reader
 * does not know. */
static bool
header_place(const struct profrun_header *h, uint32_t kind, uint64_t *off,
	     uint64_t *size)
{
	switch (kind) {
	case PROFRUN_REGION_STRINGS:
		*off = h->strings_off, *size = h->strings_size;
		return true;
	case PROFRUN_REGION_WRAPS:
		*off = h->wraps_off;
		*size = (uint64_t)h->wrap_slots * sizeof(struct profrun_wrap);
		return true;
	case PROFRUN_REGION_HIST:
		*off = h->hist_off, *size = h->nbuckets * 2;
		return true;
	case PROFRUN_REGION_PCS:
		*off = h->pcs_off;
		*size = (uint64_t)h->pc_slots * sizeof(struct profrun_pc);
		return true;
	case PROFRUN_REGION_MODULES:
		*off = h->modules_off;
		*size = (uint64_t)h->module_slots *
			sizeof(struct profrun_module);
		return true;
	case PROFRUN_REGION_MODSTR:
		*off = h->modstr_off, *size = h->modstr_size;
		return true;
	case PROFRUN_REGION_VDSO:
		*off = h->vdso_off, *size = h->vdso_size;
		return true;
	case PROFRUN_REGION_THREADS:
		*off = h->threads_off;
		*size = (uint64_t)h->thread_slots *
			sizeof(struct profrun_thread);
		return true;
	case PROFRUN_REGION_DIRECTORY:
		*off = h->regions_off;
		*size = (uint64_t)h->region_count *
			sizeof(struct profrun_region);
		return true;
	default:
		return false;
	}
}

/* A kind this reader knows that the header does not place: found
 * through the list alone, and checked by its own reader. */
static bool
list_only(uint32_t kind)
{
	return kind == PROFRUN_REGION_STACKS || kind == PROFRUN_REGION_PAUSE ||
	       kind == PROFRUN_REGION_FRAMES || kind == PROFRUN_REGION_ARGV ||
	       kind == PROFRUN_REGION_LOG || kind == PROFRUN_REGION_JIT ||
	       kind == PROFRUN_REGION_TIMELINE ||
	       kind == PROFRUN_REGION_OFFSPRING;
}

/* One entry, checked.  Returns 0, or -1 with a reason in ERR. */
static int
check_entry(const struct profrun_header *h, const struct profrun_region *e,
	    uint32_t i, char *err, size_t errlen)
{
	uint64_t off, size;

	if (e->size > h->file_size || e->off > h->file_size - e->size)
		return profile_fail(err, errlen,
				    "region %u (kind %u) out of range", i,
				    e->kind);
	if (list_only(e->kind) && e->version == 1)
		return 0; /* checked by its reader */
	if (!header_place(h, e->kind, &off, &size)) {
		if (e->flags & PROFRUN_REGION_REQUIRED)
			return profile_fail(
				err, errlen,
				"needs a newer profrun: it holds records of kind %u (version %u), which this one cannot read",
				e->kind, e->version);
		return 0; /* a kind of a newer writer: skipped */
	}
	if (e->version != 1 && (e->flags & PROFRUN_REGION_REQUIRED))
		return profile_fail(
			err, errlen,
			"needs a newer profrun: region kind %u has layout version %u",
			e->kind, e->version);
	/* the vdso's room is listed before its image is copied in */
	if (e->kind == PROFRUN_REGION_VDSO && size == 0 && off == e->off)
		return 0;
	if (e->off != off || e->size != size)
		return profile_fail(
			err, errlen,
			"region list disagrees with the header about region kind %u",
			e->kind);
	return 0;
}

int
profile_check_region_list(const uint8_t *buf, size_t avail, struct profile *p,
			  char *err, size_t errlen)
{
	const struct profrun_header *h = &p->hdr;
	struct profrun_region e;
	bool stacks = false;

	if (h->region_count > PROFILE_MAX_REGIONS)
		return profile_fail(err, errlen,
				    "region list of %u entries (at most %u)",
				    h->region_count, PROFILE_MAX_REGIONS);
	for (uint32_t i = 0; i < h->region_count; i++) {
		memcpy(&e, buf + h->regions_off + (uint64_t)i * sizeof(e),
		       sizeof(e));
		if (check_entry(h, &e, i, err, errlen))
			return -1;
		if (e.kind != PROFRUN_REGION_STACKS &&
		    e.kind != PROFRUN_REGION_FRAMES)
			continue;
		if (stacks)
			return profile_fail(err, errlen,
					    "region list has two stack areas");
		stacks = true;
		if (e.kind == PROFRUN_REGION_STACKS
			    ? profile_parse_stacks(buf, avail, p, &e, err,
						   errlen)
			    : profile_parse_frames(buf, avail, p, &e, err,
						   errlen))
			return -1;
	}
	return 0;
}

bool
profile_find_region(const uint8_t *buf, const struct profrun_header *h,
		    uint32_t kind, struct profrun_region *out)
{
	for (uint32_t i = 0; i < h->region_count; i++) {
		memcpy(out, buf + h->regions_off + (uint64_t)i * sizeof(*out),
		       sizeof(*out));
		if (out->kind == kind)
			return true;
	}
	return false;
}

int
profile_region_later(const struct profrun_region *e, size_t head,
		     uint64_t max_entries, size_t avail, const char *what,
		     uint64_t *off, uint64_t *size, bool *later, char *err,
		     size_t errlen)
{
	*later = false;
	if (e->size < head || e->size > head + 8ull * max_entries)
		return profile_fail(
			err, errlen,
			"%s of %llu bytes (at least %zu, at most "
			"%llu)",
			what, (unsigned long long)e->size, head,
			(unsigned long long)(head + 8ull * max_entries));
	if (e->off + e->size <= avail)
		return 0;
	*off = e->off; /* after what was read: later */
	*size = e->size;
	*later = true;
	return 0;
}

int
profile_region_load(int fd, uint64_t *off, uint64_t *size, const char *what,
		    int (*parse)(const uint8_t *rec, uint64_t size,
				 struct profile *p, char *err, size_t errlen),
		    struct profile *p, char *err, size_t errlen)
{
	uint8_t *rec;
	int ret;

	if (*size == 0)
		return 0;
	rec = malloc(*size);
	if (!rec)
		return profile_fail(err, errlen, "out of memory");
	ret = profile_pread_all(fd, rec, *size, *off);
	if (ret)
		ret = profile_fail(err, errlen, "%s: read error", what);
	else
		ret = parse(rec, *size, p, err, errlen);
	free(rec);
	*size = 0;
	return ret;
}

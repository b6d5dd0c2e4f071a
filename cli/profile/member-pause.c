/* SPDX-License-Identifier: MIT */
/*
 * The pause record of a member file (struct profrun_pause, region kind
 * PROFRUN_REGION_PAUSE, found only through the region list): how much CPU
 * time the process and each of its threads used while sampling was
 * paused.  A file without it was never paused.
 */
#include <stdlib.h>
#include <string.h>

#include "profile.h"

/* Far above PROFRUN_THREAD_SLOTS (the thread records' own limit). */
#define PROFILE_MAX_PAUSE_SLOTS (1u << 16)

/* The paused CPU of each thread record, from the u64 per slot after the
 * record; never more than the thread's own CPU time. */
static void
read_thread_paused(const uint8_t *arr, struct profile *p)
{
	p->thread_paused_ns = 0;
	for (size_t i = 0; i < p->nthreads; i++) {
		struct profile_thread *t = &p->threads[i];
		uint64_t v;

		memcpy(&v, arr + (uint64_t)t->slot * sizeof(v), sizeof(v));
		t->paused_ns = v < t->cpu_ns ? v : t->cpu_ns;
		p->thread_paused_ns += t->paused_ns;
	}
}

/* The record of SIZE bytes at REC (its region's whole extent) into P. */
static int
parse_record(const uint8_t *rec, uint64_t size, struct profile *p, char *err,
	     size_t errlen)
{
	uint64_t need;

	memcpy(&p->pause, rec, sizeof(p->pause));
	if (p->pause.thread_slots == 0 && p->pause.flags == 0 &&
	    p->pause.pauses == 0 && p->pause.paused_cpu_ns == 0 &&
	    p->pause.dropped == 0) {
		p->has_pause = true; /* left untouched: never paused */
		return 0;
	}
	need = sizeof(p->pause) + (uint64_t)p->pause.thread_slots * 8;
	if (p->pause.thread_slots != p->hdr.thread_slots || size < need)
		return profile_fail(
			err, errlen,
			"pause record does not match the thread records");
	if (p->pause.paused_cpu_ns >= PLAUSIBLE_SAMPLES)
		return profile_fail(err, errlen, "implausible paused CPU time");
	read_thread_paused(rec + sizeof(p->pause), p);
	p->has_pause = true;
	return 0;
}

int
profile_parse_pause(const uint8_t *buf, size_t avail, struct profile *p,
		    char *err, size_t errlen)
{
	const struct profrun_header *h = &p->hdr;
	struct profrun_region e;
	bool later;

	if (!profile_find_region(buf, h, PROFRUN_REGION_PAUSE, &e) ||
	    e.version != 1)
		return 0; /* never paused, or a layout of a newer writer */
	if (profile_region_later(&e, sizeof(p->pause), PROFILE_MAX_PAUSE_SLOTS,
				 avail, "pause record", &p->pause_off,
				 &p->pause_size, &later, err, errlen))
		return -1;
	if (later)
		return 0; /* read later, from the file */
	return parse_record(buf + e.off, e.size, p, err, errlen);
}

int
profile_pause_load(int fd, struct profile *p, char *err, size_t errlen)
{
	return profile_region_load(fd, p->pause_off, &p->pause_size,
				   "pause record", parse_record, p, err,
				   errlen);
}

double
profile_paused_seconds(const struct profile *p)
{
	double paused = (double)p->pause.paused_cpu_ns / 1e9,
	       cpu = profile_cpu_seconds(p);

	if (!p->has_pause)
		return 0;
	return cpu >= 0 && paused > cpu ? cpu : paused;
}

/* SPDX-License-Identifier: MIT */
/*
 * The pause record of a member file (struct profrun_pause, region kind
 * PROFRUN_REGION_PAUSE, found only through the region list): how much CPU
 * time the process and each of its threads used while sampling was
 * paused.  A file without it was never paused.
 */
#include <string.h>

#include "profile.h"

/* The first entry of KIND in the checked region list of BUF, or false. */
static bool
find_region(const uint8_t *buf, const struct profrun_header *h, uint32_t kind,
	    struct profrun_region *out)
{
	for (uint32_t i = 0; i < h->region_count; i++) {
		memcpy(out, buf + h->regions_off + (uint64_t)i * sizeof(*out),
		       sizeof(*out));
		if (out->kind == kind)
			return true;
	}
	return false;
}

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

int
profile_parse_pause(const uint8_t *buf, struct profile *p, char *err,
		    size_t errlen)
{
	const struct profrun_header *h = &p->hdr;
	struct profrun_region e;
	uint64_t need;

	if (!find_region(buf, h, PROFRUN_REGION_PAUSE, &e) || e.version != 1)
		return 0; /* never paused, or a layout of a newer writer */
	if (e.size < sizeof(p->pause))
		return profile_fail(err, errlen, "pause record too small");
	memcpy(&p->pause, buf + e.off, sizeof(p->pause));
	need = sizeof(p->pause) + (uint64_t)p->pause.thread_slots * 8;
	if (p->pause.thread_slots != h->thread_slots || e.size < need)
		return profile_fail(
			err, errlen,
			"pause record does not match the thread records");
	if (p->pause.paused_cpu_ns >= PLAUSIBLE_SAMPLES)
		return profile_fail(err, errlen, "implausible paused CPU time");
	read_thread_paused(buf + e.off + sizeof(p->pause), p);
	p->has_pause = true;
	return 0;
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

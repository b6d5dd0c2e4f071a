/* SPDX-License-Identifier: MIT */
/*
 * The wall region of a member file (struct profrun_wall, region kind
 * PROFRUN_REGION_WALL, found only through the region list; profrun
 * --wall): runs of samples of threads blocked in a system call.  Each
 * sample counts where a CPU sample at its PC would (the histogram or the
 * outside PCs), so every view shows blocked time beside CPU time; the
 * runs themselves are kept for what only they say (the system call, the
 * share off the CPU), and their samples join the timeline, spread evenly
 * over each run.
 */
#include <stdlib.h>
#include <string.h>

#include "profile.h"

/* 16 times PROFRUN_WALL_SLOTS runs: 32 MiB read at most. */
#define PROFILE_MAX_WALL_SLOTS (1u << 20)

#define NS_MASK ((1ull << PROFRUN_TIMELINE_NS_BITS) - 1)

int
profile_parse_wall(const uint8_t *buf, struct profile *p, char *err,
		   size_t errlen)
{
	struct profrun_region e;

	if (!profile_find_region(buf, &p->hdr, PROFRUN_REGION_WALL, &e))
		return 0;
	if (e.size < sizeof(struct profrun_wall) ||
	    (e.size - sizeof(struct profrun_wall)) /
			    sizeof(struct profrun_blocked) >
		    PROFILE_MAX_WALL_SLOTS)
		return profile_fail(err, errlen, "wall region of %llu bytes",
				    (unsigned long long)e.size);
	p->wall_off = e.off;
	p->wall_size = e.size;
	return 0;
}

/* The time of sample I of run B. */
static uint64_t
sample_ns(const struct profile_blocked *b, uint32_t i)
{
	if (b->count < 2)
		return b->t_ns;
	return b->t_ns + (b->last_ns - b->t_ns) * i / (b->count - 1);
}

/* The N records R into P's blocked runs, checked. */
static int
read_runs(const struct profrun_blocked *r, uint64_t n, struct profile *p,
	  char *err, size_t errlen)
{
	uint32_t slots = p->hdr.thread_slots;

	p->blocked = malloc((n ? n : 1) * sizeof(*p->blocked));
	if (p->blocked == NULL)
		return profile_fail(err, errlen, "out of memory");
	for (uint64_t i = 0; i < n; i++) {
		struct profile_blocked b;
		uint64_t t = r[i].when & NS_MASK;

		if (r[i].count == 0)
			continue; /* claimed, never stored */
		b.key = r[i].key;
		b.thread = (uint32_t)(r[i].when >> PROFRUN_TIMELINE_NS_BITS);
		b.nr = r[i].nr;
		b.count = r[i].count;
		b.t_ns = t;
		b.last_ns = r[i].last_ns < t ? t : r[i].last_ns;
		if ((b.key & PROFRUN_PC_MASK) == 0 || b.nr < -1 ||
		    (b.thread != PROFRUN_TIMELINE_NO_THREAD &&
		     b.thread >= slots))
			return profile_fail(err, errlen,
					    "wall record %llu is bad",
					    (unsigned long long)i);
		p->blocked[p->nblocked++] = b;
		p->blocked_samples += b.count;
	}
	if (p->blocked_samples >= PLAUSIBLE_SAMPLES / 2)
		return profile_fail(err, errlen, "implausible sample counts");
	return 0;
}

/* The samples of P's runs as keys into the counts, and as ticks when P has
 * a timeline. */
static int
add_samples(struct profile *p, char *err, size_t errlen)
{
	uint64_t *keys, n = 0;
	struct profile_tick *t = NULL;
	int ret;

	keys = malloc((p->blocked_samples ? p->blocked_samples : 1) *
		      sizeof(*keys));
	if (keys == NULL)
		return profile_fail(err, errlen, "out of memory");
	if (p->has_timeline) {
		t = realloc(p->ticks,
			    (p->nticks + p->blocked_samples + 1) * sizeof(*t));
		if (t == NULL) {
			free(keys);
			return profile_fail(err, errlen, "out of memory");
		}
		p->ticks = t;
	}
	for (size_t i = 0; i < p->nblocked; i++) {
		const struct profile_blocked *b = &p->blocked[i];

		for (uint32_t j = 0; j < b->count; j++) {
			keys[n++] = b->key;
			if (t)
				t[p->nticks++] = (struct profile_tick){
					sample_ns(b, j), b->key, b->thread,
					true};
		}
	}
	ret = profile_add_keys(p, keys, n, err, errlen);
	free(keys);
	if (ret == 0 && t)
		profile_sort_ticks(p);
	return ret;
}

int
profile_wall_load(int fd, struct profile *p, char *err, size_t errlen)
{
	struct profrun_wall head;
	struct profrun_blocked *r;
	uint64_t room, n;
	int ret;

	if (p->wall_size == 0)
		return 0;
	room = (p->wall_size - sizeof(head)) / sizeof(*r);
	if (profile_pread_all(fd, &head, sizeof(head), p->wall_off))
		return profile_fail(err, errlen, "wall region: read error");
	p->wall_size = 0;
	if (head.slot_count > room)
		return profile_fail(err, errlen,
				    "wall region of %u records does not fit "
				    "its region",
				    head.slot_count);
	n = head.claimed < head.slot_count ? head.claimed : head.slot_count;
	p->has_wall = true;
	p->wall_interval_ns = head.interval_ns;
	p->blocked_lost = head.lost;
	p->wall_wakes = head.wakes;
	p->wall_cpu_ns = head.cpu_ns;
	p->wall_tid = head.sampler_tid;
	r = malloc((n ? n : 1) * sizeof(*r));
	if (r == NULL)
		return profile_fail(err, errlen, "out of memory");
	ret = profile_pread_all(fd, r, n * sizeof(*r),
				p->wall_off + sizeof(head));
	if (ret)
		ret = profile_fail(err, errlen, "wall region: read error");
	else
		ret = read_runs(r, n, p, err, errlen);
	free(r);
	if (ret == 0)
		ret = add_samples(p, err, errlen);
	return ret;
}

uint64_t
profile_wall_limit(struct profile *p, uint64_t lo_ns, uint64_t hi_ns)
{
	size_t out = 0;

	p->blocked_samples = 0;
	for (size_t i = 0; i < p->nblocked; i++) {
		struct profile_blocked b = p->blocked[i];
		uint32_t first = UINT32_MAX, last = 0, in = 0;

		for (uint32_t j = 0; j < b.count; j++) {
			uint64_t t = sample_ns(&p->blocked[i], j);

			if (t < lo_ns || t >= hi_ns)
				continue;
			if (first == UINT32_MAX)
				first = j;
			last = j;
			in++;
		}
		if (in == 0)
			continue;
		b.t_ns = sample_ns(&p->blocked[i], first);
		b.last_ns = sample_ns(&p->blocked[i], last);
		b.count = in;
		p->blocked[out++] = b;
		p->blocked_samples += in;
	}
	p->nblocked = out;
	p->blocked_lost = 0;
	return p->blocked_samples;
}

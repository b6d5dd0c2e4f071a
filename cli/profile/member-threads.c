/* SPDX-License-Identifier: MIT */
/*
 * The thread records of a member file (struct profrun_thread), and what
 * they tell about the process's CPU time: how much its sampled threads
 * used, and how much no timer of ours covered.
 */
#include <stdlib.h>
#include <string.h>

#include "profile.h"
#include "cli.h"

/* Far above PROFRUN_THREAD_SLOTS, small enough to read at once. */
#define PROFILE_MAX_THREAD_SLOTS (1u << 16)

size_t
profile_thread_regions(const struct profrun_header *h, struct region *r)
{
	if (h->threads_off == 0 && h->thread_slots == 0)
		return 0;
	r->what = "thread records";
	r->off = h->threads_off;
	r->size = (uint64_t)h->thread_slots * sizeof(struct profrun_thread);
	return 1;
}

/* One record into T; false when it cannot be one a writer made. */
static bool
read_record(const struct profrun_thread *s, struct profile_thread *t)
{
	if (s->samples >= PLAUSIBLE_SAMPLES || s->cpu_ns < s->cpu_start_ns)
		return false;
	t->tid = s->tid;
	t->flags = s->flags;
	t->samples = s->samples;
	t->cpu_ns = s->cpu_ns - s->cpu_start_ns;
	t->cpu_start_ns = s->cpu_start_ns;
	if (s->tid < 0)
		t->cpu_ns = s->cpu_ns + s->cpu_live_ns;
	memcpy(t->name, s->name, sizeof(s->name));
	t->name[sizeof(t->name) - 1] = '\0';
	cli_printable(t->name, strlen(t->name), false);
	return true;
}

int
profile_parse_threads(const uint8_t *buf, struct profile *p, char *err,
		      size_t errlen)
{
	const struct profrun_header *h = &p->hdr;
	struct profrun_thread s;
	struct profile_thread *t;
	size_t n = 0;

	if (h->thread_slots == 0)
		return 0;
	if (h->thread_slots > PROFILE_MAX_THREAD_SLOTS)
		return profile_fail(err, errlen,
				    "thread table of %u slots (at most %u)",
				    h->thread_slots, PROFILE_MAX_THREAD_SLOTS);
	/* not cleared: a table of 1024 slots holds a few records */
	p->threads = malloc(h->thread_slots * sizeof(*p->threads));
	if (!p->threads)
		return profile_fail(err, errlen, "out of memory");
	for (uint32_t i = 0; i < h->thread_slots; i++) {
		memcpy(&s, buf + h->threads_off + (uint64_t)i * sizeof(s),
		       sizeof(s));
		if (s.tid == 0 || (s.tid < 0 && s.samples == 0 &&
				   s.cpu_ns == 0 && s.cpu_live_ns == 0))
			continue;
		p->threads[n] = (struct profile_thread){0};
		if (!read_record(&s, &p->threads[n]))
			return profile_fail(err, errlen,
					    "thread record %u is bad", i);
		p->threads[n].slot = i;
		if (s.tid > 0 && !(s.flags & PROFRUN_THREAD_MAIN))
			p->thread_startup_ns += s.cpu_start_ns;
		p->thread_cpu_ns += p->threads[n].cpu_ns;
		p->thread_samples += p->threads[n].samples;
		n++;
	}
	p->nthreads = n;
	p->has_threads = true;
	p->threads_started = h->thread_count > 0 ? h->thread_count - 1 : 0;
	/* keep the records, not the slots */
	t = realloc(p->threads, (n ? n : 1) * sizeof(*t));
	if (t)
		p->threads = t;
	return 0;
}

double
profile_unsampled_seconds(const struct profile *p)
{
	double cpu = profile_cpu_seconds(p), sampled;

	if (!p->has_threads || cpu < 0 || (p->hdr.flags & PROFRUN_F_STOPPED))
		return 0;
	/* The main thread's CPU clock started before profiling did. */
	sampled = (double)p->thread_cpu_ns / 1e9;
	return cpu > sampled ? cpu - sampled : 0;
}

const struct profile_thread *
profile_thread_find(const struct profile *p, long tid)
{
	for (size_t i = 0; i < p->nthreads; i++)
		if (p->threads[i].tid > 0 && p->threads[i].tid == tid)
			return &p->threads[i];
	return NULL;
}

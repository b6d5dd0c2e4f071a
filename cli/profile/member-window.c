/* SPDX-License-Identifier: MIT */
/*
 * A member limited to a window of time (report --time): its counts made
 * again from the samples of its timeline taken in the window, its threads'
 * samples and CPU time likewise, its timeline cut to the window, and its
 * stacks to those taken in it (profile_stacks_each skips the others).
 * The CPU time of a window is taken in the share of the samples in it,
 * thread by thread.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "profile.h"
#include "run.h"

/* The CPU time NS in the share IN of ALL. */
static uint64_t
share(uint64_t ns, uint64_t in, uint64_t all)
{
	return all ? (uint64_t)((double)ns * (double)in / (double)all) : 0;
}

/* P's threads' samples and CPU time in the window: IN[slot] of its
 * samples were, of ALL[slot]. */
static void
limit_threads(struct profile *p, const uint64_t *in, const uint64_t *all)
{
	p->thread_cpu_ns = p->thread_samples = p->thread_paused_ns = 0;
	for (size_t i = 0; i < p->nthreads; i++) {
		struct profile_thread *t = &p->threads[i];
		uint32_t s = t->slot;

		t->cpu_ns = share(t->cpu_ns - (t->paused_ns < t->cpu_ns
						       ? t->paused_ns
						       : t->cpu_ns),
				  in[s], all[s]);
		t->paused_ns = 0;
		t->samples = in[s];
		p->thread_cpu_ns += t->cpu_ns;
		p->thread_samples += t->samples;
	}
}

/* P's process CPU time, in the share IN of ALL samples. */
static void
limit_cpu(struct profile *p, uint64_t in, uint64_t all)
{
	struct profrun_header *h = &p->hdr;
	uint64_t used = h->cpu_user_ns + h->cpu_sys_ns, paused = 0;

	if (p->has_pause)
		paused = p->pause.paused_cpu_ns;
	if (used < h->cpu_start_ns + paused)
		return;
	h->cpu_user_ns = h->cpu_start_ns +
			 share(used - h->cpu_start_ns - paused, in, all);
	h->cpu_sys_ns = 0;
	p->pause.paused_cpu_ns = 0;
}

/* P's counts made again from the N KEYS.  Returns 0, or -1. */
static int
recount(struct profile *p, const uint64_t *keys, size_t n, char *err,
	size_t errlen)
{
	free(p->samples);
	free(p->pcs);
	p->samples = NULL;
	p->pcs = NULL;
	p->nsamples = p->npcs = 0;
	p->main = p->outside = 0;
	p->pcs_lost = p->pcs_unmapped = p->pcs_unrecorded = 0;
	p->hdr.samples_outside = 0; /* the keys say where they fell */
	if (profile_add_keys(p, keys, n, err, errlen))
		return -1;
	p->hdr.samples_total = p->main + p->outside;
	p->hdr.samples_outside = p->outside;
	return 0;
}

/* P's counts of how its samples came (format.h), made again from the N
 * samples of its timeline kept (in time order): a signal's samples are
 * those of one thread at one time and PC. */
static void
limit_bursts(struct profile *p, size_t n)
{
	struct profrun_header *h = &p->hdr;
	uint64_t run = 0;

	if (h->signals == 0)
		return; /* not counted: an earlier writer's */
	h->signals = h->samples_sq = h->burst_max = 0;
	for (size_t i = 0; i <= n; i++) {
		const struct profile_tick *k = i < n ? &p->ticks[i] : NULL;
		const struct profile_tick *prev =
			i > 0 ? &p->ticks[i - 1] : NULL;

		if (run > 0 &&
		    (k == NULL || k->blocked || k->t_ns != prev->t_ns ||
		     k->thread != prev->thread || k->key != prev->key)) {
			h->signals++;
			h->samples_sq += run * run;
			if (run > h->burst_max)
				h->burst_max = (uint32_t)run;
			run = 0;
		}
		if (k != NULL && !k->blocked)
			run++;
	}
}

int
profile_limit_time(struct profile *p, uint64_t lo_ns, uint64_t hi_ns, char *err,
		   size_t errlen)
{
	uint32_t slots = p->hdr.thread_slots;
	uint64_t *keys, *in, *all, total = p->nticks;
	size_t n = 0;
	int ret;

	if (!p->has_timeline)
		return profile_fail(
			err, errlen,
			"it keeps no sample times (recorded by an earlier profrun, or merged)");
	keys = malloc((p->nticks ? p->nticks : 1) * sizeof(*keys));
	in = calloc((size_t)slots + 1, sizeof(*in));
	all = calloc((size_t)slots + 1, sizeof(*all));
	if (!keys || !in || !all) {
		free(keys);
		free(in);
		free(all);
		return profile_fail(err, errlen, "out of memory");
	}
	for (size_t i = 0; i < p->nticks; i++) {
		const struct profile_tick *k = &p->ticks[i];
		uint32_t s = k->thread < slots ? k->thread : slots;

		/* a thread's CPU time goes by its CPU samples alone */
		all[s] += !k->blocked;
		total -= k->blocked;
		if (k->t_ns < lo_ns || k->t_ns >= hi_ns)
			continue;
		in[s] += !k->blocked;
		keys[n] = k->key;
		p->ticks[n++] = *k;
	}
	p->nticks = n;
	ret = recount(p, keys, n, err, errlen);
	if (ret == 0) {
		limit_threads(p, in, all);
		limit_bursts(p, n);
		limit_cpu(p, n - profile_wall_limit(p, lo_ns, hi_ns), total);
		p->windowed = true;
		p->window_lo = lo_ns;
		p->window_hi = hi_ns;
	}
	free(keys);
	free(in);
	free(all);
	return ret;
}

/* S seconds as ns, at least 0, at most UINT64_MAX. */
static uint64_t
ns_of(double s)
{
	if (s <= 0)
		return 0;
	if (s >= 1.8e10)
		return UINT64_MAX;
	return (uint64_t)(s * 1e9);
}

int
run_limit_time(struct run *run, double lo, double hi, bool from_run)
{
	int64_t start = 0;
	char err[256];

	for (size_t i = 0; i < run->n; i++)
		if (i == 0 || run->members[i].hdr.start_ns < start)
			start = run->members[i].hdr.start_ns;
	for (size_t i = 0; i < run->n; i++) {
		struct profile *p = &run->members[i];
		double off =
			from_run ? (double)(p->hdr.start_ns - start) / 1e9 : 0;

		if (profile_limit_time(p, ns_of(lo - off),
				       hi < 0 ? UINT64_MAX : ns_of(hi - off),
				       err, sizeof(err))) {
			cli_error("--time: %s: %s", p->path, err);
			return -1;
		}
	}
	return 0;
}

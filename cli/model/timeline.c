/* SPDX-License-Identifier: MIT */
/*
 * A report's samples in time order (timeline.h): each selected process's
 * timeline (or, with profrun -g, its copied stacks, which carry their
 * times too), named through the stack builder (stacks-build.c), laid out
 * in one lane per thread, sorted by time.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "outside.h"
#include "report.h"
#include "stacks-builder.h"
#include "timeline.h"
#include "u64map.h"

struct tl_build {
	struct report *r;
	struct report_timeline *t;
	struct builder *b;
	struct u64map lanes; /* process index << 32 | thread -> lane + 1 */
	size_t samples_cap, lanes_cap;
	size_t proc;	 /* the process being added */
	uint64_t offset; /* its start, since the run's */
	uint64_t kept;	 /* of its samples, with a stack */
	size_t from;	 /* its first sample */
};

/* The lane of thread TID (NAME; tid 0 when not known, then told apart by
 * SLOT) of the process being added; -1 when out of memory. */
static long
lane_of(struct tl_build *x, int32_t tid, uint32_t slot, const char *name)
{
	struct report_timeline *t = x->t;
	uint64_t key = (uint64_t)x->proc << 32 |
		       (tid > 0 ? (uint32_t)tid : 0x80000000u | slot);
	size_t *v = u64map_get(&x->lanes, key);
	struct tl_lane *l;

	if (v == NULL)
		return -1;
	if (*v != 0)
		return (long)*v - 1;
	*v = t->nlanes + 1;
	if (ARRAY_GROW(t->lanes, x->lanes_cap, t->nlanes, 16))
		return -1;
	l = &t->lanes[t->nlanes];
	memset(l, 0, sizeof(*l));
	l->proc = x->proc;
	l->p = x->r->procs[x->proc].p;
	l->pid = l->p->hdr.pid;
	l->tid = tid > 0 ? tid : 0;
	l->start_ns = x->offset;
	if (name != NULL)
		strncpy(l->name, name, sizeof(l->name) - 1);
	return (long)t->nlanes++;
}

/* One sample at T_NS since its process's start on LANE, of TRACE
 * (SIZE_MAX: no frame, left out), standing for COUNT samples, of a
 * blocked thread when BLOCKED. */
static int
add_sample(struct tl_build *x, long lane, uint64_t t_ns, size_t trace,
	   uint32_t count, bool blocked)
{
	struct report_timeline *t = x->t;

	if (lane < 0)
		return -1;
	if (trace == SIZE_MAX)
		return 0;
	if (ARRAY_GROW(t->samples, x->samples_cap, t->nsamples, 1024))
		return -1;
	t->samples[t->nsamples++] =
		(struct tl_sample){x->offset + t_ns, (uint32_t)lane,
				   (uint32_t)trace, count, blocked};
	return 0;
}

/* A copied stack with its time (profile_stacks_each's callback). */
static int
add_stack(void *ctx, const struct profile_stack *st)
{
	struct tl_build *x = ctx;
	const struct profile_thread *th;
	size_t at;
	uint64_t overhead = x->t->stacks.overhead;

	if (!(st->flags & PROFRUN_STACK_TIMED))
		return 0;
	if (stacks_builder_stack(x->b, st, &at))
		return -1;
	/* a stack in profrun's shim is overhead, left out as in the
	 * report's totals */
	if (x->t->stacks.overhead != overhead)
		return 0;
	x->kept += st->count;
	if (at == SIZE_MAX)
		return 0;
	th = profile_thread_find(x->r->procs[x->proc].p, st->tid);
	return add_sample(x, lane_of(x, st->tid, 0, th ? th->name : NULL),
			  st->time_ns, at, st->count,
			  (st->flags & PROFRUN_STACK_BLOCKED) != 0);
}

/* The thread record at SLOT of P, or NULL. */
static const struct profile_thread *
record_at(const struct profile *p, uint32_t slot)
{
	for (size_t i = 0; i < p->nthreads; i++)
		if (p->threads[i].slot == slot)
			return &p->threads[i];
	return NULL;
}

/* The samples of P's timeline, each the function it fell in. */
static int
add_ticks(struct tl_build *x, const struct profile *p)
{
	for (size_t i = 0; i < p->nticks; i++) {
		const struct profile_tick *k = &p->ticks[i];
		const struct profile_thread *th = record_at(p, k->thread);
		size_t at;

		if (stacks_builder_leaf(x->b, k->key, &at))
			return -1;
		/* profrun's shim (overhead) and code without a frame: left
		 * out, as in the report's totals */
		if (at != SIZE_MAX &&
		    add_sample(x,
			       lane_of(x, th ? th->tid : 0, k->thread,
				       th ? th->name : NULL),
			       k->t_ns, at, 1, k->blocked))
			return -1;
	}
	x->kept = p->nticks;
	return 0;
}

/* The samples of process I: its stacks when it has them, else its
 * timeline; each weighted by the seconds it stands for. */
static int
add_process(struct tl_build *x, size_t i)
{
	const struct profile *p = x->r->procs[i].p;
	struct report_timeline *t = x->t;
	bool stacks = p->has_stacks;
	uint64_t program;
	double scale;
	char err[256];
	int ret;

	if (!stacks && !p->has_timeline) {
		t->untimed++;
		return 0;
	}
	x->proc = i;
	x->offset = (uint64_t)(p->hdr.start_ns - t->start_ns);
	x->kept = 0;
	x->from = t->nsamples;
	if (stacks_builder_use(x->b, p, stacks))
		return -1;
	if (stacks) {
		t->with_stacks = true;
		ret = profile_stacks_each(p, add_stack, x, err, sizeof(err));
		if (ret && !stacks_builder_failed(x->b)) {
			cli_warn("%s: %s; its stacks are left out", p->path,
				 err);
			ret = 0;
		}
	} else {
		ret = add_ticks(x, p);
		t->left_out += p->ticks_beyond;
	}
	if (ret)
		return -1;
	/* a stack stands for its share of all the process's samples */
	program = p->main + p->outside;
	program = program > outside_overhead(p) ? program - outside_overhead(p)
						: 0;
	scale = x->kept ? (double)program / (double)x->kept : 1;
	if (!stacks)
		scale = 1;
	/* a sample on the CPU stands for a CPU period at the report's rate,
	 * a blocked one for the wall sampler's interval */
	for (size_t s = x->from; s < t->nsamples; s++) {
		struct tl_sample *smp = &t->samples[s];
		double per = smp->blocked ? (double)p->wall_interval_ns / 1e9
					  : report_seconds(x->r, 1);

		smp->weight = per * smp->weight * scale;
	}
	return 0;
}

static int
cmp_sample(const void *a, const void *b)
{
	const struct tl_sample *x = a, *y = b;

	if (x->lane != y->lane)
		return x->lane < y->lane ? -1 : 1;
	return (x->t_ns > y->t_ns) - (x->t_ns < y->t_ns);
}

/* The rank of lane L among its process's: the main thread first. */
static uint64_t
lane_rank(const struct tl_lane *l)
{
	if (l->tid == l->pid)
		return 0;
	return l->tid > 0 ? (uint64_t)l->tid : UINT64_MAX;
}

static int
cmp_lane(const void *a, const void *b)
{
	const struct tl_lane *x = a, *y = b;
	uint64_t rx = lane_rank(x), ry = lane_rank(y);

	if (x->proc != y->proc)
		return x->proc < y->proc ? -1 : 1;
	return (rx > ry) - (rx < ry);
}

/* Lay the lanes out in their order, the samples' lanes renumbered (each
 * lane's first field holds its index until then).  Returns 0, or -1 when
 * out of memory. */
static int
order_lanes(struct report_timeline *t)
{
	uint32_t *to = malloc((t->nlanes ? t->nlanes : 1) * sizeof(*to));

	if (to == NULL)
		return -1;
	for (size_t i = 0; i < t->nlanes; i++)
		t->lanes[i].first = i;
	qsort(t->lanes, t->nlanes, sizeof(*t->lanes), cmp_lane);
	for (size_t i = 0; i < t->nlanes; i++) {
		to[t->lanes[i].first] = (uint32_t)i;
		t->lanes[i].first = 0;
	}
	for (size_t i = 0; i < t->nsamples; i++)
		t->samples[i].lane = to[t->samples[i].lane];
	free(to);
	return 0;
}

/* Each lane's span of the sorted samples, and its seconds. */
static void
finish(struct report_timeline *t)
{
	qsort(t->samples, t->nsamples, sizeof(*t->samples), cmp_sample);
	for (size_t i = 0; i < t->nsamples; i++) {
		struct tl_lane *l = &t->lanes[t->samples[i].lane];

		if (l->n++ == 0)
			l->first = i;
		l->seconds += t->samples[i].weight;
		if (t->samples[i].t_ns > t->end_ns)
			t->end_ns = t->samples[i].t_ns;
	}
	for (size_t i = 0; i < t->nlanes; i++) {
		const struct profrun_header *h = &t->lanes[i].p->hdr;

		if (h->end_ns > h->start_ns &&
		    (uint64_t)(h->end_ns - t->start_ns) > t->end_ns)
			t->end_ns = (uint64_t)(h->end_ns - t->start_ns);
	}
}

int
report_timeline_build(struct report *r, struct symbolizer *sz)
{
	struct report_timeline *t = &r->timeline;
	struct tl_build x = {.r = r, .t = t};
	int ret = 0;

	for (size_t i = 0; i < r->nprocs; i++) {
		const struct profile *p = r->procs[i].p;

		if ((p->has_timeline || p->has_stacks) &&
		    (!t->present || p->hdr.start_ns < t->start_ns)) {
			t->start_ns = p->hdr.start_ns;
			t->present = true;
		}
	}
	x.b = stacks_builder_new(r, &t->stacks, sz);
	if (x.b == NULL)
		ret = -1;
	for (size_t i = 0; i < r->nprocs && ret == 0; i++)
		ret = add_process(&x, i);
	stacks_builder_free(x.b);
	u64map_fini(&x.lanes);
	if (ret == 0)
		ret = order_lanes(t);
	if (ret == 0)
		finish(t);
	else
		cli_error("%s: out of memory", r->run->path);
	return ret;
}

const char *
timeline_lane_label(const struct tl_lane *l, char *buf, size_t len)
{
	const char *exe = l->p->exe, *base = strrchr(exe, '/');

	base = base ? base + 1 : exe;
	if (l->tid > 0)
		snprintf(buf, len, "%s (pid %d): %s (tid %d)", base, l->pid,
			 l->name[0] ? l->name : "thread", l->tid);
	else
		snprintf(buf, len, "%s (pid %d): %s", base, l->pid,
			 l->name[0] ? l->name : "threads without a record");
	return buf;
}

int
timeline_usable(const struct report *r, const char *what)
{
	const struct report_timeline *t = &r->timeline;

	if (t->nsamples == 0) {
		cli_error(
			"%s: %s has no samples in time order (profiles of earlier versions and merged ones keep no times)",
			what, r->run->path);
		return -1;
	}
	if (t->left_out > 0)
		cli_warn(
			"%s: %" PRIu64
			" samples came after a process's timeline was full; they are left out",
			what, t->left_out);
	return 0;
}

void
timeline_fini(struct report_timeline *t)
{
	stacks_fini(&t->stacks);
	free(t->samples);
	free(t->lanes);
	memset(t, 0, sizeof(*t));
}

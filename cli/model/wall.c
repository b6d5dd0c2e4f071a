/* SPDX-License-Identifier: MIT */
/*
 * Wall-clock profiles (profrun --wall): the blocked samples of each
 * process, by thread and system call, and a profile of them alone, which
 * the report symbolizes to tell each function's time off the CPU from its
 * time on it.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "report.h"
#include "wall.h"

/* The thread record of index SLOT in P, or NULL. */
static const struct profile_thread *
thread_of(const struct profile *p, uint32_t slot)
{
	for (size_t i = 0; i < p->nthreads; i++)
		if (p->threads[i].slot == slot)
			return &p->threads[i];
	return NULL;
}

static int
cmp_row(const void *a, const void *b)
{
	const struct wall_row *x = a, *y = b;

	if (x->p != y->p)
		return x->p->hdr.pid < y->p->hdr.pid ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return (x->samples < y->samples) - (x->samples > y->samples);
}

/* Add the run B of P to W's rows (one per process, thread, call). */
static int
add_run(struct report_wall *w, const struct profile *p,
	const struct profile_blocked *b)
{
	const struct profile_thread *t = thread_of(p, b->thread);
	int32_t tid = t ? t->tid : 0;
	struct wall_row *v;

	for (size_t i = 0; i < w->nrows; i++) {
		v = &w->rows[i];
		if (v->p == p && v->tid == tid && v->nr == b->nr) {
			v->samples += b->count;
			return 0;
		}
	}
	v = realloc(w->rows, (w->nrows + 1) * sizeof(*v));
	if (!v)
		return -1;
	w->rows = v;
	w->rows[w->nrows++] = (struct wall_row){
		p, tid, t && tid > 0 ? t->name : "", b->nr, b->count, 0};
	return 0;
}

int
report_wall_build(struct report *r)
{
	struct report_wall *w = &r->wall;

	for (size_t i = 0; i < r->nprocs; i++) {
		const struct profile *p = r->procs[i].p;

		if (!p->has_wall)
			continue;
		w->present = true;
		w->blocked += p->blocked_samples;
		w->lost += p->blocked_lost;
		w->wakes += p->wall_wakes;
		w->sampler_cpu += (double)p->wall_cpu_ns / 1e9;
		w->blocked_seconds +=
			(double)p->blocked_samples * p->wall_interval_ns / 1e9;
		for (size_t j = 0; j < p->nblocked; j++)
			if (add_run(w, p, &p->blocked[j])) {
				cli_error("%s: out of memory", r->run->path);
				return -1;
			}
	}
	for (size_t i = 0; i < w->nrows; i++)
		w->rows[i].seconds = (double)w->rows[i].samples *
				     w->rows[i].p->wall_interval_ns / 1e9;
	if (w->nrows)
		qsort(w->rows, w->nrows, sizeof(*w->rows), cmp_row);
	return 0;
}

void
report_wall_fini(struct report_wall *w)
{
	free(w->rows);
	memset(w, 0, sizeof(*w));
}

int
report_wall_profile(const struct profile *p, struct profile *q)
{
	uint64_t *keys, n = 0;
	char err[256];
	int ret;

	*q = *p;
	q->samples = NULL;
	q->pcs = NULL;
	q->nsamples = q->npcs = 0;
	q->main = q->outside = 0;
	q->pcs_lost = q->pcs_unmapped = q->pcs_unrecorded = 0;
	q->hdr.samples_outside = 0;
	keys = malloc((p->blocked_samples ? p->blocked_samples : 1) *
		      sizeof(*keys));
	if (!keys) {
		cli_error("%s: out of memory", p->path);
		return -1;
	}
	for (size_t i = 0; i < p->nblocked; i++)
		for (uint32_t j = 0; j < p->blocked[i].count; j++)
			keys[n++] = p->blocked[i].key;
	ret = profile_add_keys(q, keys, n, err, sizeof(err));
	free(keys);
	if (ret)
		cli_error("%s: %s", p->path, err);
	return ret;
}

void
report_wall_profile_fini(struct profile *q)
{
	free(q->samples);
	free(q->pcs);
	q->samples = NULL;
	q->pcs = NULL;
}

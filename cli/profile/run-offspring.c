/* SPDX-License-Identifier: MIT */
/*
 * What the members of a run say about each other's offspring: the images
 * that could not be profiled (counted by path and reason), the processes
 * whose member should be in the run but is not (a full disk, a run
 * directory the child could not reach), and how a process whose image
 * never finished ended, as its parent's wait saw it.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "run.h"
#include "u64map.h"

/* A member that should exist. */
struct expect {
	int32_t pid, ppid;
	uint16_t kind;
	const char *path;
	size_t order; /* recording order, for a stable sort */
};

static int
cmp_expect(const void *a, const void *b)
{
	const struct expect *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	/* a process's fork or spawn comes before the execs in it */
	if ((x->kind == PROFRUN_CHILD_EXEC) != (y->kind == PROFRUN_CHILD_EXEC))
		return x->kind == PROFRUN_CHILD_EXEC ? 1 : -1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* Count one image that could not be profiled.  0, or -1 out of memory. */
static int
add_not_profiled(struct run *run, size_t *cap, const struct profile_child *c)
{
	const char *path = c->path ? c->path : "?";
	struct run_not_profiled *n;

	for (size_t i = 0; i < run->nnot_profiled; i++) {
		n = &run->not_profiled[i];
		if (n->reason == c->reason && strcmp(n->path, path) == 0) {
			n->count++;
			return 0;
		}
	}
	if (ARRAY_GROW(run->not_profiled, *cap, run->nnot_profiled, 8))
		return -1;
	n = &run->not_profiled[run->nnot_profiled];
	n->path = strdup(path);
	if (!n->path)
		return -1;
	n->reason = c->reason;
	n->script = (c->flags & PROFRUN_CHILD_F_SCRIPT) != 0;
	n->count = 1;
	run->nnot_profiled++;
	return 0;
}

static int
cmp_not_profiled(const void *a, const void *b)
{
	const struct run_not_profiled *x = a, *y = b;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return strcmp(x->path, y->path);
}

/* The expectations and the images not profiled of every member. */
static int
gather(struct run *run, struct expect **out, size_t *nout)
{
	struct expect *ex = NULL;
	size_t n = 0, cap = 0, npcap = 0;

	for (size_t m = 0; m < run->n; m++) {
		const struct profile *p = &run->members[m];
		/* an image replaced by an exec of one that can be profiled:
		 * its successor is expected (only the others are recorded) */
		bool successor = p->has_offspring &&
				 p->hdr.state == PROFRUN_STATE_EXECED;

		run->children_unrecorded += p->children_unrecorded;
		for (size_t i = 0; i < p->nchildren; i++) {
			const struct profile_child *c = &p->children[i];

			if (c->flags & PROFRUN_CHILD_F_FAILED)
				continue;
			if (c->reason != PROFRUN_CHILD_PROFILED) {
				if (c->kind == PROFRUN_CHILD_EXEC &&
				    c->pid == p->hdr.pid)
					successor = false;
				if (add_not_profiled(run, &npcap, c))
					goto oom;
				continue;
			}
			if (ARRAY_GROW(ex, cap, n, 16))
				goto oom;
			ex[n] = (struct expect){
				c->pid,
				c->kind == PROFRUN_CHILD_EXEC &&
						c->pid == p->hdr.pid
					? p->hdr.ppid
					: p->hdr.pid,
				c->kind, c->path, n};
			n++;
		}
		if (successor) {
			if (ARRAY_GROW(ex, cap, n, 16))
				goto oom;
			ex[n] = (struct expect){p->hdr.pid, p->hdr.ppid,
						PROFRUN_CHILD_EXEC, NULL, n};
			n++;
		}
	}
	*out = ex;
	*nout = n;
	return 0;
oom:
	free(ex);
	return -1;
}

/* How many members (read or not) each pid has, into M (value: count + 1). */
static int
count_members(const struct run *run, struct u64map *m)
{
	for (size_t i = 0; i <= run->n + run->nunreadable; i++) {
		int64_t pid = i < run->n ? run->members[i].hdr.pid
			      : i < run->n + run->nunreadable
				      ? run->unreadable[i - run->n].pid
				      : -1;
		size_t *v;

		if (pid <= 0)
			continue;
		v = u64map_get(m, (uint64_t)pid);
		if (!v)
			return -1;
		*v = *v ? *v + 1 : 2;
	}
	return 0;
}

/* The members each pid should have: one per fork or spawn record, or one
 * for the process's first image when no record of its start is in the
 * run (the program profrun started, a child of system() or vfork), and
 * one per image replaced by an exec of one that can be profiled.  When
 * it has fewer, the last expectations (the execs come after the starts)
 * are missing. */
static int
find_missing(struct run *run, const struct expect *ex, size_t n,
	     struct u64map *members)
{
	size_t cap = 0;

	for (size_t i = 0; i < n;) {
		size_t j = i, starts = 0, need, have,
		       *v = u64map_get(members, (uint64_t)ex[i].pid);

		if (!v)
			return -1;
		have = *v ? *v - 1 : 0;
		for (; j < n && ex[j].pid == ex[i].pid; j++)
			starts += ex[j].kind != PROFRUN_CHILD_EXEC;
		need = (j - i - starts) + (starts > 0 ? starts
					   : have > 0 ? 1
						      : 0);
		for (size_t k = j - (need > have ? need - have : 0); k < j;
		     k++) {
			if (ARRAY_GROW(run->missing, cap, run->nmissing, 8))
				return -1;
			run->missing[run->nmissing++] = (struct run_missing){
				ex[k].pid, ex[k].ppid, ex[k].kind,
				ex[k].path ? strdup(ex[k].path) : NULL};
		}
		i = j;
	}
	return 0;
}

/* A process whose image never finished, as its parent's wait saw it
 * end; LAST maps each pid to its last member (run order is start
 * order).  0, or -1 when out of memory. */
static int
apply_reaped(struct run *run)
{
	struct u64map last = {0};
	size_t *v;

	for (size_t i = 0; i < run->n; i++) {
		if ((v = u64map_get(&last,
				    (uint64_t)run->members[i].hdr.pid)) == NULL)
			goto oom;
		*v = i + 1;
	}
	for (size_t m = 0; m < run->n; m++) {
		const struct profile *p = &run->members[m];

		for (size_t i = 0; i < p->nchildren; i++) {
			const struct profile_child *c = &p->children[i];
			struct profile *l;

			if (c->kind == PROFRUN_CHILD_EXEC ||
			    !(c->flags & PROFRUN_CHILD_F_REAPED))
				continue;
			if ((v = u64map_get(&last, (uint64_t)c->pid)) == NULL)
				goto oom;
			if (*v == 0)
				continue;
			l = &run->members[*v - 1];
			if (l->hdr.state == PROFRUN_STATE_RUNNING &&
			    l->hdr.reaped == 0)
				l->hdr.reaped = PROFRUN_REAPED |
						((uint32_t)c->status & 0xffff);
		}
	}
	u64map_fini(&last);
	return 0;
oom:
	u64map_fini(&last);
	return -1;
}

int
run_check_offspring(struct run *run)
{
	struct expect *ex = NULL;
	struct u64map members = {0};
	size_t n = 0;
	int ret = -1;

	if (apply_reaped(run) || gather(run, &ex, &n) ||
	    count_members(run, &members))
		goto out;
	if (n > 0)
		qsort(ex, n, sizeof(*ex), cmp_expect);
	if (find_missing(run, ex, n, &members))
		goto out;
	if (run->nnot_profiled > 0)
		qsort(run->not_profiled, run->nnot_profiled,
		      sizeof(*run->not_profiled), cmp_not_profiled);
	ret = 0;
out:
	free(ex);
	u64map_fini(&members);
	return ret;
}

const char *
run_child_reason(uint16_t reason)
{
	static const char *const why[] = {
		[PROFRUN_CHILD_SETUID] = "set-user-ID",
		[PROFRUN_CHILD_SETGID] = "set-group-ID",
		[PROFRUN_CHILD_CAPS] = "file capabilities",
		[PROFRUN_CHILD_STATIC] = "static",
		[PROFRUN_CHILD_MUSL] = "musl",
		[PROFRUN_CHILD_FOREIGN] = "another machine's",
		[PROFRUN_CHILD_NO_INTERP] = "missing interpreter",
		[PROFRUN_CHILD_ENV_LEFT] =
			"environment without profrun (--exact-env)",
	};

	if (reason < sizeof(why) / sizeof(why[0]) && why[reason])
		return why[reason];
	return "cannot be profiled";
}

const char *
run_child_how(uint16_t kind)
{
	return kind == PROFRUN_CHILD_FORK    ? "forked"
	       : kind == PROFRUN_CHILD_SPAWN ? "spawned"
					     : "exec'd";
}

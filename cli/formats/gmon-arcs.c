/* SPDX-License-Identifier: MIT */
/* The call arcs of a gmon.out (gmon.h), from the report's stacks. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "gmon.h"
#include "stack-graph.h"

struct arc {
	uint64_t from, self;
	size_t trace;
	uint64_t count;
};

struct arcs {
	struct arc *v;
	size_t n, cap;
};

static int
arc_add(struct arcs *a, const struct arc *x)
{
	if (a->n == a->cap) {
		size_t cap = a->cap ? 2 * a->cap : 256;
		struct arc *v = realloc(a->v, cap * sizeof(*v));

		if (!v)
			return -1;
		a->v = v;
		a->cap = cap;
	}
	a->v[a->n++] = *x;
	return 0;
}

/* The end of the physical frame starting at frame I of [I, END): the
 * index of its outermost (not inlined) frame. */
static size_t
physical_end(const struct report_stacks *s, size_t i, size_t end)
{
	while (i + 1 < end && s->frames[i].inlined)
		i++;
	return i;
}

static bool
in_exe(const struct report_stacks *s, const struct stack_frame *f,
       const char *exe)
{
	const struct stack_fn *fn = f->fn < s->nfns ? &s->fns[f->fn] : NULL;

	return fn && fn->main && fn->module && strcmp(fn->module, exe) == 0;
}

/* The calls between adjacent physical frames of trace T in EXE. */
static int
trace_arcs(struct arcs *a, const struct report_stacks *s, size_t t,
	   const char *exe)
{
	const struct stack_trace *tr = &s->traces[t];
	size_t i, end, callee = SIZE_MAX, last;

	stack_trace_span(s, tr, &i, &end);
	for (; i < end; i = last + 1) {
		last = physical_end(s, i, end);
		if (callee != SIZE_MAX && in_exe(s, &s->frames[last], exe) &&
		    in_exe(s, &s->frames[callee], exe)) {
			const struct stack_frame *c = &s->frames[callee];
			uint64_t entry = s->fns[c->fn].addr;
			struct arc x = {s->frames[last].addr,
					entry ? entry : c->addr, t, tr->count};

			if (arc_add(a, &x))
				return -1;
		}
		callee = last;
	}
	return 0;
}

static int
cmp_arc(const void *a, const void *b)
{
	const struct arc *x = a, *y = b;

	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	if (x->self != y->self)
		return x->self < y->self ? -1 : 1;
	return (x->trace > y->trace) - (x->trace < y->trace);
}

static void
write_arc(FILE *out, uint64_t from, uint64_t self, uint64_t count)
{
	uint8_t tag = 1;
	int32_t c;

	while (count > 0) {
		c = count > INT32_MAX ? INT32_MAX : (int32_t)count;
		fwrite(&tag, 1, 1, out);
		fwrite(&from, 8, 1, out);
		fwrite(&self, 8, 1, out);
		fwrite(&c, 4, 1, out);
		count -= (uint64_t)c;
	}
}

int
gmon_arcs(const struct report_stacks *s, const char *exe, FILE *out)
{
	struct arcs a = {0};
	uint64_t count = 0;
	size_t i;

	for (i = 0; i < s->ntraces; i++)
		if (trace_arcs(&a, s, i, exe)) {
			free(a.v);
			cli_error("gmon: out of memory");
			return -1;
		}
	if (a.n > 0)
		qsort(a.v, a.n, sizeof(*a.v), cmp_arc);
	for (i = 0; i < a.n; i++) {
		/* a stack counts once for a call it holds several times */
		if (i == 0 || cmp_arc(&a.v[i], &a.v[i - 1]) != 0)
			count += a.v[i].count;
		if (i + 1 == a.n || a.v[i + 1].from != a.v[i].from ||
		    a.v[i + 1].self != a.v[i].self) {
			write_arc(out, a.v[i].from, a.v[i].self, count);
			count = 0;
		}
	}
	free(a.v);
	return 0;
}

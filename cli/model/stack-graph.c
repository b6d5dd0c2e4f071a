/* SPDX-License-Identifier: MIT */
/* The call graph of a report's stacks (stack-graph.h). */
#include <stdlib.h>
#include <string.h>

#include "stack-graph.h"
#include "u64map.h"

uint64_t
stacks_total(const struct report_stacks *s)
{
	uint64_t n = 0;

	if (s->stacks > 0)
		return s->stacks;
	for (size_t t = 0; t < s->ntraces; t++)
		n += s->traces[t].count;
	return n;
}

/* Edges being collected: the map of (caller, callee) to index + 1, and
 * the trace each edge was last counted for, + 1. */
struct collect {
	struct u64map map;
	struct stack_edge *v;
	size_t *stamp;
	size_t n, cap;
	size_t *fn_stamp;
};

static int
count_edge(struct stack_graph *g, struct collect *c, uint32_t caller,
	   uint32_t callee, size_t trace)
{
	uint64_t key = (uint64_t)caller << 32 | callee;
	size_t *slot = u64map_get(&c->map, key), i;

	if (!slot)
		return -1;
	if (*slot == 0) {
		if (c->n == c->cap) {
			size_t cap = c->cap ? 2 * c->cap : 256;
			struct stack_edge *v = realloc(c->v, cap * sizeof(*v));
			size_t *st =
				v ? realloc(c->stamp, cap * sizeof(*st)) : NULL;

			if (v)
				c->v = v;
			if (!st)
				return -1;
			c->stamp = st;
			c->cap = cap;
		}
		c->v[c->n] = (struct stack_edge){caller, callee, 0};
		c->stamp[c->n] = 0;
		*slot = ++c->n;
	}
	i = *slot - 1;
	if (c->stamp[i] != trace + 1) {
		c->stamp[i] = trace + 1;
		c->v[i].count += g->s->traces[trace].count;
	}
	return 0;
}

void
stack_trace_span(const struct report_stacks *s, const struct stack_trace *t,
		 size_t *first, size_t *end)
{
	*first = t->first < s->nframes ? t->first : s->nframes;
	*end = s->nframes - *first < t->n ? s->nframes : *first + t->n;
}

static int
add_trace(struct stack_graph *g, struct collect *c, size_t t)
{
	const struct report_stacks *s = g->s;
	uint64_t count = s->traces[t].count;
	size_t first, end, i;
	uint32_t fn, prev = UINT32_MAX;

	stack_trace_span(s, &s->traces[t], &first, &end);
	for (i = first; i < end; i++) {
		fn = s->frames[i].fn;
		if (fn >= s->nfns)
			continue;
		if (prev == UINT32_MAX)
			g->self[fn] += count;
		if (c->fn_stamp[fn] != t + 1) {
			c->fn_stamp[fn] = t + 1;
			g->inclusive[fn] += count;
		}
		if (prev != UINT32_MAX && count_edge(g, c, fn, prev, t))
			return -1;
		prev = fn;
	}
	if (prev != UINT32_MAX)
		g->bottom[prev] += count;
	return 0;
}

static int
by_callee(const void *a, const void *b)
{
	const struct stack_edge *x = a, *y = b;

	if (x->callee != y->callee)
		return x->callee < y->callee ? -1 : 1;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return (x->caller > y->caller) - (x->caller < y->caller);
}

static int
by_caller(const void *a, const void *b)
{
	const struct stack_edge *x = a, *y = b;

	if (x->caller != y->caller)
		return x->caller < y->caller ? -1 : 1;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return (x->callee > y->callee) - (x->callee < y->callee);
}

/* FIRST[f] = the first of V's edges whose KEY is f, V sorted by it. */
static void
index_edges(const struct stack_edge *v, size_t n, size_t *first, size_t nfns,
	    bool callers)
{
	size_t i, e = 0;

	for (i = 0; i <= nfns; i++) {
		while (e < n && (callers ? v[e].callee : v[e].caller) < i)
			e++;
		first[i] = e;
	}
}

static int
finish_edges(struct stack_graph *g, struct collect *c)
{
	size_t nfns = g->s->nfns, bytes = c->n * sizeof(*c->v);

	g->nedges = c->n;
	g->into = c->v ? c->v : malloc(1);
	c->v = NULL;
	g->from = malloc(bytes ? bytes : 1);
	g->in_first = calloc(nfns + 1, sizeof(size_t));
	g->out_first = calloc(nfns + 1, sizeof(size_t));
	if (!g->into || !g->from || !g->in_first || !g->out_first)
		return -1;
	if (bytes)
		memcpy(g->from, g->into, bytes);
	qsort(g->into, g->nedges, sizeof(*g->into), by_callee);
	qsort(g->from, g->nedges, sizeof(*g->from), by_caller);
	index_edges(g->into, g->nedges, g->in_first, nfns, true);
	index_edges(g->from, g->nedges, g->out_first, nfns, false);
	return 0;
}

int
stack_graph_build(struct stack_graph *g, const struct report_stacks *s)
{
	struct collect c = {0};
	size_t n = s->nfns ? s->nfns : 1, t;
	int ret = 0;

	memset(g, 0, sizeof(*g));
	g->s = s;
	g->total = stacks_total(s);
	g->inclusive = calloc(n, sizeof(uint64_t));
	g->self = calloc(n, sizeof(uint64_t));
	g->bottom = calloc(n, sizeof(uint64_t));
	c.fn_stamp = calloc(n, sizeof(size_t));
	if (!g->inclusive || !g->self || !g->bottom || !c.fn_stamp)
		ret = -1;
	for (t = 0; ret == 0 && t < s->ntraces; t++)
		ret = add_trace(g, &c, t);
	if (ret == 0)
		ret = finish_edges(g, &c);
	u64map_fini(&c.map);
	free(c.v);
	free(c.stamp);
	free(c.fn_stamp);
	if (ret)
		stack_graph_fini(g);
	return ret;
}

void
stack_graph_fini(struct stack_graph *g)
{
	free(g->inclusive);
	free(g->self);
	free(g->bottom);
	free(g->into);
	free(g->from);
	free(g->in_first);
	free(g->out_first);
	memset(g, 0, sizeof(*g));
}

const struct stack_edge *
stack_graph_calls(const struct stack_graph *g, uint32_t fn, bool callers,
		  size_t *n)
{
	const size_t *first = callers ? g->in_first : g->out_first;

	if (fn >= g->s->nfns) {
		*n = 0;
		return NULL;
	}
	*n = first[fn + 1] - first[fn];
	return (callers ? g->into : g->from) + first[fn];
}

/* SPDX-License-Identifier: MIT */
/*
 * The call graph of a report's stacks: for each function, the samples of
 * stacks it is on (inclusive), at the top of (self) and at the bottom of
 * (outermost frame), and for each pair of adjacent frames (caller, callee)
 * the samples of stacks with that call on them.  Inlined frames are calls
 * like the others: an inlined function's caller is the function it was
 * inlined into.  A stack counts once for a function or call it holds
 * several times (recursion), so shares are of samples, as pprof's.
 */
#ifndef PROFRUN_CLI_STACK_GRAPH_H
#define PROFRUN_CLI_STACK_GRAPH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "stacks.h"

struct stack_edge {
	uint32_t caller, callee; /* indices into report_stacks.fns */
	uint64_t count;		 /* samples of stacks with this call */
};

struct stack_graph {
	const struct report_stacks *s;
	uint64_t total;	     /* samples of all stacks */
	uint64_t *inclusive; /* per function */
	uint64_t *self;	     /* per function: its frame is the leaf */
	uint64_t *bottom;    /* per function: its frame is the outermost */
	/* the calls twice, by callee and by caller, most samples first:
	 * into[in_first[f] .. in_first[f + 1]) are f's callers, and
	 * from[out_first[f] .. out_first[f + 1]) its callees */
	struct stack_edge *into, *from;
	size_t nedges;
	size_t *in_first, *out_first;
};

/* The graph of S into G.  Returns 0, or -1 when out of memory. */
int stack_graph_build(struct stack_graph *g, const struct report_stacks *s);
void stack_graph_fini(struct stack_graph *g);

/* The callers (CALLERS true) or callees of FN in G: *N edges. */
const struct stack_edge *stack_graph_calls(const struct stack_graph *g,
					   uint32_t fn, bool callers,
					   size_t *n);

/* The frames of trace T within S's frames: [*FIRST, *END), leaf first
 * (a trace that claims more frames than S holds is cut to them). */
void stack_trace_span(const struct report_stacks *s,
		      const struct stack_trace *t, size_t *first, size_t *end);

/* Samples of all stacks of S (S->stacks, or the traces' sum when that is
 * not filled in). */
uint64_t stacks_total(const struct report_stacks *s);

#endif /* PROFRUN_CLI_STACK_GRAPH_H */

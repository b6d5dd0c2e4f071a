/* SPDX-License-Identifier: MIT */
/*
 * The views of a report's call stacks (calls.h).  Shares are of samples
 * with a stack: a caller's share is of the stacks through FUNC that pass
 * through that caller, so the callers of a recursive function can add up
 * to more than 100%, as in pprof.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "calls.h"
#include "json.h"
#include "stack-graph.h"

/* At most this many callers and callees under each function of the call
 * graph. */
#define GRAPH_CALLS_MAX 16

static double
share(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0;
}

static int
check_fn(const struct report *r, const char *opt, const char *name)
{
	if (!name || stacks_find_fn(&r->stacks, name, NULL) >= 0)
		return 0;
	cli_error("report: %s: no function '%s' on the recorded stacks", opt,
		  name);
	return -1;
}

int
calls_check(const struct report *r)
{
	const struct report_opts *o = r->opts;
	const char *opt = o->callers   ? "--callers"
			  : o->callees ? "--callees"
				       : "--call-graph";

	if (!report_opts_calls(o))
		return 0;
	if (!r->stacks.present) {
		cli_error(
			"report: %s needs call stacks, and %s has none: record with 'profrun -g'",
			opt, r->run->path);
		return -1;
	}
	if (check_fn(r, "--callers", o->callers) ||
	    check_fn(r, "--callees", o->callees))
		return -1;
	return 0;
}

/* ------------------------------------------------------------------ text */

/* FN's name, and its module when not the main executable. */
static void
print_fn(FILE *out, const struct report_stacks *s, uint32_t fn)
{
	const struct stack_fn *f = &s->fns[fn];
	const char *name = f->name && f->name[0] ? f->name : "[unknown]";

	for (const char *c = name; *c; c++)
		fputc(*c == '\n' || *c == '\r' ? ' ' : *c, out);
	if (!f->main && f->module && f->module[0] &&
	    strcmp(module_display(f->module), name) != 0)
		fprintf(out, "  (%s)", module_display(f->module));
}

/* The rows under "callers of" or "callees of": edges, then the pseudo
 * entry (the stacks starting at FN, or ending in it). */
static void
text_call_rows(FILE *out, const struct report *r, const struct stack_graph *g,
	       uint32_t fn, bool callers)
{
	uint64_t whole = g->inclusive[fn];
	uint64_t rest = callers ? g->bottom[fn] : g->self[fn];
	size_t n, i, rows;
	const struct stack_edge *e = stack_graph_calls(g, fn, callers, &n);

	rows = r->opts->top > 0 && (size_t)r->opts->top < n
		       ? (size_t)r->opts->top
		       : n;
	fprintf(out, "%7s %10s  %s\n", "%", "samples",
		callers ? "caller" : "callee");
	for (i = 0; i < rows; i++) {
		fprintf(out, "%7.2f %10" PRIu64 "  ", share(e[i].count, whole),
			e[i].count);
		print_fn(out, g->s, callers ? e[i].caller : e[i].callee);
		fputc('\n', out);
	}
	if (rows < n)
		fprintf(out, "... %zu more %s\n", n - rows,
			callers ? "callers" : "callees");
	if (rest > 0)
		fprintf(out, "%7.2f %10" PRIu64 "  %s\n", share(rest, whole),
			rest,
			callers ? "[no caller: the stack starts here]"
				: "[self: at the top of the stack]");
}

static void
text_calls_of(FILE *out, const struct report *r, const struct stack_graph *g,
	      const char *name, bool callers)
{
	uint32_t fn = (uint32_t)stacks_find_fn(&r->stacks, name, NULL);

	fprintf(out, "\n%s of ", callers ? "callers" : "callees");
	print_fn(out, g->s, fn);
	fprintf(out,
		": %" PRIu64
		" samples with it on the stack (%.2f%% of the %" PRIu64
		" with a stack)\n",
		g->inclusive[fn], share(g->inclusive[fn], g->total), g->total);
	text_call_rows(out, r, g, fn, callers);
}

/* The functions with a stack through them, by inclusive samples (then
 * self, then index): N of them, and RANK[fn] = position + 1 (0: none). */
static uint32_t *graph_order(const struct stack_graph *g, size_t *n,
			     size_t **rank);

static void
graph_call_line(FILE *out, const struct stack_graph *g, const size_t *rank,
		const struct stack_edge *e, uint32_t fn, bool caller)
{
	uint32_t other = caller ? e->caller : e->callee;

	fprintf(out, "%-7s %7.2f %7s %10" PRIu64 " %10s      ", "",
		share(e->count, g->inclusive[fn]), "", e->count, "");
	print_fn(out, g->s, other);
	if (rank[other])
		fprintf(out, " [%zu]", rank[other]);
	fputc('\n', out);
}

static void
graph_calls(FILE *out, const struct stack_graph *g, const size_t *rank,
	    uint32_t fn, bool callers)
{
	size_t n, i;
	const struct stack_edge *e = stack_graph_calls(g, fn, callers, &n);

	for (i = 0; i < n && i < GRAPH_CALLS_MAX; i++)
		graph_call_line(out, g, rank, &e[i], fn, callers);
	if (n > GRAPH_CALLS_MAX)
		fprintf(out, "%-7s %7s %7s %10s %10s      ... %zu more %s\n",
			"", "", "", "", "", n - GRAPH_CALLS_MAX,
			callers ? "callers" : "callees");
}

static void
text_call_graph(FILE *out, const struct report *r, const struct stack_graph *g)
{
	size_t n, i, rows, *rank;
	uint32_t *order = graph_order(g, &n, &rank);
	char idx[32];

	if (!order) {
		fprintf(out, "\ncall graph: out of memory\n");
		return;
	}
	rows = r->opts->top > 0 && (size_t)r->opts->top < n
		       ? (size_t)r->opts->top
		       : n;
	fprintf(out,
		"\ncall graph: %" PRIu64
		" samples with a stack; each function, by total (samples with it on the stack), with its callers above and its callees below, each with the samples of the stacks through that call and their share of the function's total\n\n",
		g->total);
	fprintf(out, "%-7s %7s %7s %10s %10s  %s\n", "index", "total%", "self%",
		"total", "self", "function");
	for (i = 0; i < rows; i++) {
		uint32_t fn = order[i];

		graph_calls(out, g, rank, fn, true);
		snprintf(idx, sizeof(idx), "[%zu]", i + 1);
		fprintf(out, "%-7s %7.2f %7.2f %10" PRIu64 " %10" PRIu64 "  ",
			idx, share(g->inclusive[fn], g->total),
			share(g->self[fn], g->total), g->inclusive[fn],
			g->self[fn]);
		print_fn(out, g->s, fn);
		fputc('\n', out);
		graph_calls(out, g, rank, fn, false);
		fprintf(out,
			"-----------------------------------------------\n");
	}
	if (rows < n)
		fprintf(out, "... %zu more functions\n", n - rows);
	free(order);
	free(rank);
}

void
report_text_calls(const struct report *r, FILE *out)
{
	const struct report_opts *o = r->opts;
	struct stack_graph g;

	if (stack_graph_build(&g, &r->stacks)) {
		fprintf(out, "\ncall stacks: out of memory\n");
		return;
	}
	if (o->callers)
		text_calls_of(out, r, &g, o->callers, true);
	if (o->callees)
		text_calls_of(out, r, &g, o->callees, false);
	if (o->call_graph)
		text_call_graph(out, r, &g);
	stack_graph_fini(&g);
}

/* ----------------------------------------------------------------- order */

static const struct stack_graph *order_graph; /* for cmp_rank only */

static int
cmp_rank(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	const struct stack_graph *g = order_graph;

	if (g->inclusive[x] != g->inclusive[y])
		return g->inclusive[x] > g->inclusive[y] ? -1 : 1;
	if (g->self[x] != g->self[y])
		return g->self[x] > g->self[y] ? -1 : 1;
	return (x > y) - (x < y);
}

static uint32_t *
graph_order(const struct stack_graph *g, size_t *n, size_t **rank)
{
	size_t nfns = g->s->nfns, i, k = 0;
	uint32_t *v = malloc((nfns ? nfns : 1) * sizeof(*v));

	*rank = calloc(nfns ? nfns : 1, sizeof(**rank));
	if (!v || !*rank) {
		free(v);
		free(*rank);
		return NULL;
	}
	for (i = 0; i < nfns; i++)
		if (g->inclusive[i] > 0)
			v[k++] = (uint32_t)i;
	order_graph = g;
	qsort(v, k, sizeof(*v), cmp_rank);
	for (i = 0; i < k; i++)
		(*rank)[v[i]] = i + 1;
	*n = k;
	return v;
}

/* ------------------------------------------------------------------ JSON */

static void
json_fn(json_object *o, const struct report_stacks *s, uint32_t fn)
{
	const struct stack_fn *f = &s->fns[fn];

	json_add_string(o, "name", f->name ? f->name : "[unknown]");
	json_add_string(o, "symbol",
			f->symbol ? f->symbol : (f->name ? f->name : ""));
	json_add_string(o, "module", f->module ? f->module : "");
}

static json_object *
json_share(uint64_t part, uint64_t whole)
{
	return json_decimal(round(100 * share(part, whole)) / 100, 2);
}

/* The calls of FN (its callers, or callees), then the pseudo entry, at most
 * TOP (0: all); percent is of FN's inclusive samples. */
static json_object *
json_call_entries(const struct stack_graph *g, uint32_t fn, bool callers,
		  size_t top)
{
	json_object *a = json_object_new_array(), *e;
	uint64_t whole = g->inclusive[fn];
	uint64_t rest = callers ? g->bottom[fn] : g->self[fn];
	size_t n, i;
	const struct stack_edge *v = stack_graph_calls(g, fn, callers, &n);

	for (i = 0; i < n && (top == 0 || i < top); i++) {
		e = json_object_new_object();
		json_fn(e, g->s, callers ? v[i].caller : v[i].callee);
		json_add_u64(e, "samples", v[i].count);
		json_object_object_add(e, "percent",
				       json_share(v[i].count, whole));
		json_object_array_add(a, e);
	}
	if (rest > 0) {
		e = json_object_new_object();
		json_add_string(e, "name", callers ? "[no caller]" : "[self]");
		json_add_u64(e, "samples", rest);
		json_object_object_add(e, "percent", json_share(rest, whole));
		json_object_array_add(a, e);
	}
	return a;
}

/* {"name", "symbol", "module", "inclusive", "self", "percent"s} of FN. */
static json_object *
json_graph_fn(const struct stack_graph *g, uint32_t fn)
{
	json_object *o = json_object_new_object();

	json_fn(o, g->s, fn);
	json_add_u64(o, "inclusive", g->inclusive[fn]);
	json_object_object_add(o, "inclusive_percent",
			       json_share(g->inclusive[fn], g->total));
	json_add_u64(o, "self", g->self[fn]);
	json_object_object_add(o, "self_percent",
			       json_share(g->self[fn], g->total));
	return o;
}

static json_object *
json_calls_of(const struct report *r, const struct stack_graph *g,
	      const char *name, bool callers)
{
	uint32_t fn = (uint32_t)stacks_find_fn(&r->stacks, name, NULL);
	json_object *o = json_graph_fn(g, fn);
	size_t top = r->opts->top > 0 ? (size_t)r->opts->top : 0;

	json_object_object_add(o, callers ? "callers" : "callees",
			       json_call_entries(g, fn, callers, top));
	return o;
}

static json_object *
json_call_graph(const struct report *r, const struct stack_graph *g)
{
	json_object *a = json_object_new_array(), *o;
	size_t n, i, *rank;
	uint32_t *order = graph_order(g, &n, &rank);

	if (!order)
		return a;
	if (r->opts->top > 0 && (size_t)r->opts->top < n)
		n = (size_t)r->opts->top;
	for (i = 0; i < n; i++) {
		o = json_graph_fn(g, order[i]);
		json_object_object_add(
			o, "callers",
			json_call_entries(g, order[i], true, GRAPH_CALLS_MAX));
		json_object_object_add(
			o, "callees",
			json_call_entries(g, order[i], false, GRAPH_CALLS_MAX));
		json_object_array_add(a, o);
	}
	free(order);
	free(rank);
	return a;
}

void
report_json_calls(const struct report *r, json_object *o)
{
	const struct report_opts *opts = r->opts;
	struct stack_graph g;

	if (!report_opts_calls(opts) || !r->stacks.present ||
	    stack_graph_build(&g, &r->stacks))
		return;
	if (opts->callers)
		json_object_object_add(
			o, "callers",
			json_calls_of(r, &g, opts->callers, true));
	if (opts->callees)
		json_object_object_add(
			o, "callees",
			json_calls_of(r, &g, opts->callees, false));
	if (opts->call_graph)
		json_object_object_add(o, "call_graph", json_call_graph(r, &g));
	stack_graph_fini(&g);
}

/* ------------------------------------------------------- flat as stacks */

static bool
flat_is_main(const struct report *r, const char *module)
{
	for (size_t i = 0; i < r->nprocs; i++)
		if (strcmp(r->procs[i].p->exe, module) == 0)
			return true;
	return false;
}

const struct report_stacks *
calls_stacks(const struct report *r, struct report_stacks *tmp)
{
	const struct func_list *l = &r->funcs;
	size_t n = l->n ? l->n : 1, i;

	memset(tmp, 0, sizeof(*tmp));
	if (r->stacks.present)
		return &r->stacks;
	tmp->fns = calloc(n, sizeof(*tmp->fns));
	tmp->frames = calloc(n, sizeof(*tmp->frames));
	tmp->traces = calloc(n, sizeof(*tmp->traces));
	if (!tmp->fns || !tmp->frames || !tmp->traces) {
		calls_stacks_fini(r, tmp);
		cli_error("%s: out of memory", r->run->path);
		return NULL;
	}
	for (i = 0; i < l->n; i++) {
		const struct func *f = &l->v[i];

		tmp->fns[i] =
			(struct stack_fn){.module = f->module,
					  .name = f->name,
					  .symbol = f->symbol,
					  .addr = f->addr,
					  .main = flat_is_main(r, f->module),
					  .func = i,
					  .inclusive = f->samples};
		tmp->frames[i] = (struct stack_frame){.fn = (uint32_t)i,
						      .addr = f->addr};
		tmp->traces[i] =
			(struct stack_trace){(uint32_t)i, 1, 0, f->samples};
		tmp->stacks += f->samples;
	}
	tmp->nfns = tmp->nframes = tmp->ntraces = l->n;
	tmp->samples = tmp->stacks;
	return tmp;
}

void
calls_stacks_fini(const struct report *r, struct report_stacks *tmp)
{
	free(tmp->fns);
	free(tmp->frames);
	free(tmp->traces);
	memset(tmp, 0, sizeof(*tmp));
}

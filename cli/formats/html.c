/* SPDX-License-Identifier: MIT */
/*
 * The flame graph page: one self-contained HTML file (inline style and
 * script, nothing from the network) drawing the report's stacks merged
 * into one tree, root on top.  The data is that tree in JSON, not the
 * samples: "names" (each function's name), "modules" and "module_of"
 * (each function's module), then "nodes", three numbers per node in
 * preorder: function * 2 + inlined, samples, depth (1 under the root).
 * Siblings are sorted by name, as flamegraph.pl sorts them; nodes below
 * HTML_MIN_SHARE of all samples are left out ("min": the least samples
 * of a node written), and so many more as keep the page under
 * HTML_MAX_NODES nodes.  The page itself is
 * html-page.c's.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "calls.h"
#include "formats.h"
#include "html.h"
#include "stack-graph.h"
#include "u64map.h"

#define HTML_MIN_SHARE 1e-5
#define HTML_MAX_NODES 200000

struct node {
	uint64_t key; /* fn * 2 + inlined */
	uint64_t value;
	uint32_t parent, child, next; /* UINT32_MAX: none */
	uint32_t depth;
};

struct tree {
	const struct report_stacks *s;
	struct node *v;
	size_t n, cap;
	struct u64map children; /* parent << 33 | key -> index + 1 */
	uint64_t min;		/* least value of a node written */
};

static uint32_t
tree_child(struct tree *t, uint32_t parent, uint64_t key)
{
	size_t *slot = u64map_get(&t->children, (uint64_t)parent << 33 | key);
	struct node *v;

	if (!slot)
		return UINT32_MAX;
	if (*slot)
		return (uint32_t)(*slot - 1);
	if (t->n == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 1024;

		if (cap > UINT32_MAX / 2 ||
		    !(v = realloc(t->v, cap * sizeof(*v))))
			return UINT32_MAX;
		t->v = v;
		t->cap = cap;
	}
	t->v[t->n] = (struct node){key,
				   0,
				   parent,
				   UINT32_MAX,
				   t->v[parent].child,
				   t->v[parent].depth + 1};
	t->v[parent].child = (uint32_t)t->n;
	*slot = ++t->n;
	return (uint32_t)(t->n - 1);
}

/* Add trace TR to the tree, root first. */
static int
tree_add(struct tree *t, const struct stack_trace *tr)
{
	const struct report_stacks *s = t->s;
	uint32_t node = 0;
	size_t first, i;

	stack_trace_span(s, tr, &first, &i);
	t->v[0].value += tr->count;
	for (; i-- > first;) {
		const struct stack_frame *f = &s->frames[i];

		if (f->fn >= s->nfns)
			continue;
		node = tree_child(t, node, (uint64_t)f->fn * 2 + f->inlined);
		if (node == UINT32_MAX)
			return -1;
		t->v[node].value += tr->count;
	}
	return 0;
}

static const char *
fn_name(const struct report_stacks *s, uint64_t key)
{
	const char *name = s->fns[key / 2].name;

	return name && name[0] ? name : "[unknown]";
}

static const struct tree *sort_tree; /* for cmp_sibling only */

static int
cmp_sibling(const void *a, const void *b)
{
	const struct node *x = &sort_tree->v[*(const uint32_t *)a];
	const struct node *y = &sort_tree->v[*(const uint32_t *)b];
	int c = strcmp(fn_name(sort_tree->s, x->key),
		       fn_name(sort_tree->s, y->key));

	return c ? c : (x->key > y->key) - (x->key < y->key);
}

/* Relink every node's children in name order. */
static int
tree_sort(struct tree *t)
{
	uint32_t *v = malloc((t->n ? t->n : 1) * sizeof(*v)), c;
	size_t i, k;

	if (!v)
		return -1;
	sort_tree = t;
	for (i = 0; i < t->n; i++) {
		k = 0;
		for (c = t->v[i].child; c != UINT32_MAX; c = t->v[c].next)
			v[k++] = c;
		if (k < 2)
			continue;
		qsort(v, k, sizeof(*v), cmp_sibling);
		t->v[i].child = v[0];
		for (size_t j = 0; j + 1 < k; j++)
			t->v[v[j]].next = v[j + 1];
		t->v[v[k - 1]].next = UINT32_MAX;
	}
	free(v);
	return 0;
}

/* The next node in preorder after I among the kept ones (value >= min),
 * or UINT32_MAX at the end. */
static uint32_t
tree_next(const struct tree *t, uint32_t i, bool descend)
{
	const struct node *v = t->v;
	uint32_t c;

	if (descend)
		for (c = v[i].child; c != UINT32_MAX; c = v[c].next)
			if (v[c].value >= t->min)
				return c;
	for (; i != 0; i = v[i].parent)
		for (c = v[i].next; c != UINT32_MAX; c = v[c].next)
			if (v[c].value >= t->min)
				return c;
	return UINT32_MAX;
}

static int
cmp_desc(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x < y) - (x > y);
}

/* The least value kept: HTML_MIN_SHARE of the samples, or more when that
 * would keep more than HTML_MAX_NODES nodes (a node's value is at most its
 * parent's, so a threshold keeps whole paths from the root). */
static int
tree_prune(struct tree *t)
{
	uint64_t *v;
	size_t n = 0, i;

	t->min = (uint64_t)((double)t->v[0].value * HTML_MIN_SHARE);
	if (t->min < 1)
		t->min = 1;
	if (t->n - 1 <= HTML_MAX_NODES)
		return 0;
	if (!(v = malloc((t->n - 1) * sizeof(*v))))
		return -1;
	for (i = 1; i < t->n; i++)
		if (t->v[i].value >= t->min)
			v[n++] = t->v[i].value;
	if (n > HTML_MAX_NODES) {
		qsort(v, n, sizeof(*v), cmp_desc);
		t->min = v[HTML_MAX_NODES] + 1;
	}
	free(v);
	return 0;
}

static int
tree_build(struct tree *t, const struct report_stacks *s)
{
	memset(t, 0, sizeof(*t));
	t->s = s;
	t->v = calloc(1024, sizeof(*t->v));
	if (!t->v)
		return -1;
	t->cap = 1024;
	t->n = 1;
	t->v[0] = (struct node){0, 0, UINT32_MAX, UINT32_MAX, UINT32_MAX, 0};
	for (size_t i = 0; i < s->ntraces; i++)
		if (tree_add(t, &s->traces[i]))
			return -1;
	return tree_sort(t) || tree_prune(t) ? -1 : 0;
}

static void
tree_fini(struct tree *t)
{
	free(t->v);
	u64map_fini(&t->children);
}

/* ------------------------------------------------------------------ data */

void
html_write_names(FILE *out, const struct report_stacks *s)
{
	fputs("\"names\":[", out);
	for (size_t i = 0; i < s->nfns; i++) {
		if (i)
			fputc(',', out);
		html_json_string(out, fn_name(s, 2 * i));
	}
	fputs("],\n", out);
}

/* "modules" (distinct, in order of first use) and "module_of" (each
 * function's index into them, negative for the main executable's). */
int
html_write_modules(FILE *out, const struct report_stacks *s)
{
	struct strmap m = {0};
	struct strmap_slot *slot;
	size_t n = 0, i;
	long *of = calloc(s->nfns ? s->nfns : 1, sizeof(*of));

	if (!of)
		return -1;
	fputs("\"modules\":[", out);
	for (i = 0; i < s->nfns; i++) {
		const char *mod = s->fns[i].module ? s->fns[i].module : "";

		if (!(slot = strmap_get(&m, mod)))
			break;
		if (!slot->value) {
			slot->value = (void *)(uintptr_t)++n;
			fputs(n > 1 ? "," : "", out);
			html_json_string(out,
					 mod[0] ? module_display(mod) : "");
		}
		of[i] = (long)(uintptr_t)slot->value - 1;
		if (s->fns[i].main)
			of[i] = -of[i] - 1;
	}
	fputs("],\n\"module_of\":[", out);
	for (size_t k = 0; k < i; k++)
		fprintf(out, "%s%ld", k ? "," : "", of[k]);
	fputs("],\n", out);
	strmap_fini(&m, NULL);
	free(of);
	return i == s->nfns ? 0 : -1;
}

static void
write_nodes(FILE *out, const struct tree *t)
{
	size_t k = 0;

	fputs("\"nodes\":[", out);
	for (uint32_t i = tree_next(t, 0, true); i != UINT32_MAX;
	     i = tree_next(t, i, true)) {
		const struct node *n = &t->v[i];

		fprintf(out, "%s%" PRIu64 ",%" PRIu64 ",%" PRIu32,
			k++ ? (k % 8 ? "," : ",\n") : "", n->key, n->value,
			n->depth);
	}
	fputs("]", out);
}

int
html_flame_data(FILE *out, const struct report_stacks *s, bool has_stacks)
{
	struct tree t;
	int ret = -1;

	if (tree_build(&t, s) == 0) {
		fprintf(out,
			"\"total\":%" PRIu64 ",\"stacks\":%" PRIu64
			",\"samples\":%" PRIu64 ",\"truncated\":%" PRIu64
			",\"has_stacks\":%s,\"min\":%" PRIu64 ",\n",
			t.v[0].value, s->stacks, s->samples, s->truncated,
			has_stacks ? "true" : "false", t.min);
		html_write_names(out, s);
		if (html_write_modules(out, s) == 0) {
			write_nodes(out, &t);
			ret = 0;
		}
	}
	tree_fini(&t);
	return ret;
}

static int
report_html(const struct report *r, FILE *out)
{
	struct report_stacks tmp;
	const struct report_stacks *s = calls_stacks(r, &tmp);
	const char *exe = r->nprocs ? r->procs[0].p->exe : "";
	struct html_page pg = {.exe = exe};
	int ret;

	if (!s)
		return -1;
	html_page_head(out, &pg);
	fputs("{\"title\":", out);
	html_json_string(out, exe[0] ? module_display(exe) : "profile");
	fputs(",\n", out);
	ret = html_flame_data(out, s, r->stacks.present);
	if (ret == 0) {
		html_write_timeline(out, r);
		html_page_tail(out, &pg);
	} else
		cli_error("%s: out of memory", r->run->path);
	calls_stacks_fini(r, &tmp);
	return ret;
}

REPORT_FORMAT_TIMED(
	html, "an interactive flame graph page (one file), with a timeline",
	report_html);

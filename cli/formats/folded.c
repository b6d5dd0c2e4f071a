/* SPDX-License-Identifier: MIT */
/*
 * Folded stacks (Brendan Gregg's collapsed format), as flamegraph.pl,
 * speedscope and inferno read them: one line per distinct stack, the
 * functions root first joined by ';', a space, then its samples.
 * Inlined frames are marked "_[i]" as perf script's are; names carry no
 * module, and a ';' in one becomes ':' and a line break a space, so every
 * line splits back into its frames.  Lines are sorted, as stackcollapse
 * writes them.  A profile without stacks gives each function as a stack
 * of its own (its self samples), with a warning.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "calls.h"
#include "formats.h"
#include "stack-graph.h"

struct line {
	char *d;
	size_t n, cap;
	int oom;
};

static void
line_put(struct line *l, const char *s, size_t len)
{
	char *d;

	if (l->n + len + 1 > l->cap) {
		size_t cap = l->cap ? l->cap : 256;

		while (l->n + len + 1 > cap)
			cap *= 2;
		d = realloc(l->d, cap);
		if (!d) {
			l->oom = 1;
			return;
		}
		l->d = d;
		l->cap = cap;
	}
	memcpy(l->d + l->n, s, len);
	l->n += len;
	l->d[l->n] = '\0';
}

/* NAME made safe for a frame of a folded line. */
static void
line_name(struct line *l, const char *name)
{
	size_t start = l->n, i;

	if (!name || !name[0])
		name = "[unknown]";
	line_put(l, name, strlen(name));
	for (i = start; i < l->n && !l->oom; i++) {
		if (l->d[i] == ';')
			l->d[i] = ':';
		else if (l->d[i] == '\n' || l->d[i] == '\r')
			l->d[i] = ' ';
	}
}

/* The frames of trace T, root first, into L. */
static void
trace_line(struct line *l, const struct report_stacks *s,
	   const struct stack_trace *t)
{
	size_t first, i;

	l->n = 0;
	line_put(l, "", 0);
	stack_trace_span(s, t, &first, &i);
	for (; i-- > first;) {
		const struct stack_frame *f = &s->frames[i];

		if (l->n > 0)
			line_put(l, ";", 1);
		line_name(l, f->fn < s->nfns ? s->fns[f->fn].name : NULL);
		if (f->inlined)
			line_put(l, "_[i]", 4);
	}
	if (l->n == 0)
		line_name(l, NULL);
}

/* One distinct line and its samples. */
struct folded {
	const char *text; /* the map's key */
	uint64_t count;
};

static int
cmp_folded(const void *a, const void *b)
{
	return strcmp(((const struct folded *)a)->text,
		      ((const struct folded *)b)->text);
}

/* Add COUNT to line L's entry among V[0 .. *N). */
static int
add_line(struct strmap *m, struct folded *v, size_t *n, const struct line *l,
	 uint64_t count)
{
	struct strmap_slot *slot = strmap_get(m, l->d);

	if (!slot)
		return -1;
	if (!slot->value) {
		v[*n] = (struct folded){slot->key, 0};
		slot->value = (void *)(uintptr_t)++ * n;
	}
	v[(uintptr_t)slot->value - 1].count += count;
	return 0;
}

static int
report_folded(const struct report *r, FILE *out)
{
	struct report_stacks tmp;
	const struct report_stacks *s = calls_stacks(r, &tmp);
	struct folded *v;
	struct strmap m = {0};
	struct line l = {0};
	size_t n = 0, i;
	int ret;

	if (!s)
		return -1;
	if (!r->stacks.present)
		cli_warn(
			"folded: %s has no call stacks (record with 'profrun -g'): each function is a stack of its own",
			r->run->path);
	v = calloc(s->ntraces ? s->ntraces : 1, sizeof(*v));
	ret = v ? 0 : -1;
	for (i = 0; ret == 0 && i < s->ntraces; i++) {
		if (s->traces[i].count == 0)
			continue;
		trace_line(&l, s, &s->traces[i]);
		ret = l.oom ? -1 : add_line(&m, v, &n, &l, s->traces[i].count);
	}
	if (ret == 0) {
		qsort(v, n, sizeof(*v), cmp_folded);
		for (i = 0; i < n; i++)
			fprintf(out, "%s %" PRIu64 "\n", v[i].text, v[i].count);
	} else {
		cli_error("%s: out of memory", r->run->path);
	}
	free(v);
	free(l.d);
	strmap_fini(&m, NULL);
	calls_stacks_fini(r, &tmp);
	return ret;
}

REPORT_FORMAT(folded, "folded stacks for flamegraph.pl, speedscope",
	      report_folded, false);

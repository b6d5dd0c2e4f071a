/* SPDX-License-Identifier: MIT */
/*
 * Matching BASE's functions with NEW's and classifying each change.
 * Functions match by name, and by module when both sides know it (a
 * baseline from another build directory still matches: modules compare
 * by their short name).
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "diff.h"

static int
cmp_fn(const void *a, const void *b)
{
	const struct diff_fn *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	if (!x->module || !y->module)
		return !!x->module - !!y->module;
	return strcmp(x->module, y->module);
}

/* Same function: equal names, and equal modules unless one is unknown. */
static bool
same_fn(const struct diff_fn *x, const struct diff_fn *y)
{
	return strcmp(x->name, y->name) == 0 &&
	       (!x->module || !y->module || strcmp(x->module, y->module) == 0);
}

static void
add_row(struct diff *d, const struct diff_fn *b, const struct diff_fn *n)
{
	struct diff_row *r = &d->rows[d->nrows++];
	const struct diff_fn *f = b ? b : n;

	memset(r, 0, sizeof(*r));
	r->name = f->name;
	r->module = b && b->module ? b->module : (n ? n->module : NULL);
	r->base = b ? b->samples : 0;
	r->new = n ? n->samples : 0;
	r->base_pct = d->base.total ? 100.0 * r->base / d->base.total : 0;
	r->new_pct = d->new.total ? 100.0 * r->new / d->new.total : 0;
	r->delta = r->new_pct - r->base_pct;
	r->p_value =
		two_proportion_p(r->base, d->base.total, r->new, d->new.total);
}

/* Walk both sides sorted by (name, module); an unknown module sorts
 * first and matches the next entry of the same name. */
static void
match(struct diff *d)
{
	struct diff_side *b = &d->base, *n = &d->new;
	size_t i = 0, j = 0;
	int c;

	if (b->n > 0) /* a side without functions has fns == NULL */
		qsort(b->fns, b->n, sizeof(*b->fns), cmp_fn);
	if (n->n > 0)
		qsort(n->fns, n->n, sizeof(*n->fns), cmp_fn);
	while (i < b->n || j < n->n) {
		if (i < b->n && j < n->n && same_fn(&b->fns[i], &n->fns[j])) {
			add_row(d, &b->fns[i++], &n->fns[j++]);
			continue;
		}
		c = i == b->n	? 1
		    : j == n->n ? -1
				: cmp_fn(&b->fns[i], &n->fns[j]);
		if (c <= 0)
			add_row(d, &b->fns[i++], NULL);
		else
			add_row(d, NULL, &n->fns[j++]);
	}
}

static void
classify(struct diff *d, struct diff_row *r)
{
	double thr = d->opts->threshold;

	r->status = DIFF_UNCHANGED;
	if (!r->significant || fabs(r->delta) <= thr)
		return;
	if (r->delta > 0) {
		r->status = r->base == 0 ? DIFF_NEW : DIFF_REGRESSION;
		d->regressions++;
	} else {
		r->status = r->new == 0 ? DIFF_GONE : DIFF_IMPROVEMENT;
		d->improvements++;
	}
}

static int
rank(const struct diff_row *r)
{
	switch (r->status) {
	case DIFF_REGRESSION:
	case DIFF_NEW:
		return 0;
	case DIFF_IMPROVEMENT:
	case DIFF_GONE:
		return 1;
	default:
		return 2;
	}
}

/* Flagged rows first, then by the size of the change, then by name. */
static int
cmp_row(const void *a, const void *b)
{
	const struct diff_row *x = a, *y = b;
	double dx = fabs(x->delta), dy = fabs(y->delta);
	int c;

	if (rank(x) != rank(y))
		return rank(x) - rank(y);
	if (dx != dy)
		return dx > dy ? -1 : 1;
	c = strcmp(x->name, y->name);
	if (c || !x->module || !y->module)
		return c ? c : !!x->module - !!y->module;
	return strcmp(x->module, y->module);
}

int
diff_compute(struct diff *d)
{
	double *p;
	bool *sig;
	size_t i;

	d->rows = calloc(d->base.n + d->new.n + 1, sizeof(*d->rows));
	p = calloc(d->base.n + d->new.n + 1, sizeof(*p));
	sig = calloc(d->base.n + d->new.n + 1, sizeof(*sig));
	if (!d->rows || !p || !sig) {
		free(p);
		free(sig);
		return -1;
	}
	match(d);
	for (i = 0; i < d->nrows; i++)
		p[i] = d->rows[i].p_value;
	holm_significant(p, d->nrows, 1.0 - d->opts->confidence / 100.0, sig);
	for (i = 0; i < d->nrows; i++) {
		d->rows[i].significant = sig[i];
		classify(d, &d->rows[i]);
	}
	qsort(d->rows, d->nrows, sizeof(*d->rows), cmp_row);
	free(p);
	free(sig);
	return 0;
}

void
diff_fini(struct diff *d)
{
	free(d->rows);
	diff_side_fini(&d->base);
	diff_side_fini(&d->new);
}

bool
diff_fails(const struct diff *d)
{
	switch (d->opts->fail_on) {
	case FAIL_ON_ANY:
		return d->regressions + d->improvements > 0;
	case FAIL_ON_NONE:
		return false;
	default:
		return d->regressions > 0;
	}
}

const char *
diff_status_name(enum diff_status s)
{
	static const char *const names[] = {
		[DIFF_UNCHANGED] = "unchanged",
		[DIFF_REGRESSION] = "regression",
		[DIFF_NEW] = "new",
		[DIFF_IMPROVEMENT] = "improvement",
		[DIFF_GONE] = "gone",
	};

	return names[s];
}

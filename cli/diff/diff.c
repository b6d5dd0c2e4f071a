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

#include "cli.h"
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

/* The share of F on the measure compared (inclusive or self). */
static uint64_t
fn_count(const struct diff_fn *f, bool inclusive)
{
	return !f ? 0 : inclusive ? f->inclusive : f->samples;
}

static void
add_row(struct diff *d, struct diff_rows *rows, bool inclusive,
	struct diff_fn *b, struct diff_fn *n)
{
	struct diff_row *r = &rows->v[rows->n++];
	const struct diff_fn *f = b ? b : n;

	memset(r, 0, sizeof(*r));
	r->name = f->name;
	r->module = n && n->module ? n->module : (b ? b->module : NULL);
	r->bf = b;
	r->nf = n;
	r->base = fn_count(b, inclusive);
	r->new = fn_count(n, inclusive);
	r->base_pct = d->base.total ? 100.0 * r->base / d->base.total : 0;
	r->new_pct = d->new.total ? 100.0 * r->new / d->new.total : 0;
	r->delta = r->new_pct - r->base_pct;
	/* each side as many samples taken one by one as vary as much */
	r->p_value = two_proportion_p((double)r->base / d->base.deff,
				      (double)d->base.total / d->base.deff,
				      (double)r->new / d->new.deff,
				      (double)d->new.total / d->new.deff);
}

/* Whether F takes part in the comparison of self or inclusive shares:
 * inclusive, every function but the pseudo-functions; self, those of the
 * flat profile. */
static bool
compared(const struct diff_fn *f, bool inclusive)
{
	return inclusive ? !f->pseudo : f->flat;
}

/* The next function of S from *I on that takes part, or NULL. */
static struct diff_fn *
next_fn(struct diff_side *s, size_t *i, bool inclusive)
{
	while (*i < s->n && !compared(&s->fns[*i], inclusive))
		(*i)++;
	return *i < s->n ? &s->fns[*i] : NULL;
}

/* Whether a function only one side has is compared: by inclusive share,
 * only when the other side lists its callers without samples of their own
 * (reports of older versions do not): else it may well be there, as a
 * caller. */
static bool
one_sided(const struct diff_side *other, bool inclusive)
{
	return !inclusive || other->callers_known;
}

/* Walk both sides sorted by (name, module); an unknown module sorts
 * first and matches the next entry of the same name. */
static void
match(struct diff *d, struct diff_rows *rows, bool inclusive)
{
	struct diff_side *b = &d->base, *n = &d->new;
	struct diff_fn *x, *y;
	size_t i = 0, j = 0;
	int c;

	for (;;) {
		x = next_fn(b, &i, inclusive);
		y = next_fn(n, &j, inclusive);
		if (!x && !y)
			break;
		if (x && y && same_fn(x, y)) {
			add_row(d, rows, inclusive, x, y);
			i++, j++;
			continue;
		}
		c = !x ? 1 : !y ? -1 : cmp_fn(x, y);
		if (c <= 0 && one_sided(n, inclusive))
			add_row(d, rows, inclusive, x, NULL);
		else if (c > 0 && one_sided(b, inclusive))
			add_row(d, rows, inclusive, NULL, y);
		if (c <= 0)
			i++;
		else
			j++;
	}
}

static void
classify(const struct diff *d, struct diff_rows *rows, struct diff_row *r)
{
	double thr = d->opts->threshold;

	r->status = DIFF_UNCHANGED;
	if (!r->significant || fabs(r->delta) <= thr)
		return;
	if (r->delta > 0) {
		r->status = r->base == 0 ? DIFF_NEW : DIFF_REGRESSION;
		rows->regressions++;
	} else {
		r->status = r->new == 0 ? DIFF_GONE : DIFF_IMPROVEMENT;
		rows->improvements++;
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

/* Compare the functions of both sides on one measure into ROWS.  0 or -1
 * (out of memory). */
static int
compare(struct diff *d, struct diff_rows *rows, bool inclusive)
{
	size_t max = d->base.n + d->new.n + 1, i;
	double *p = calloc(max, sizeof(*p));
	bool *sig = calloc(max, sizeof(*sig));

	rows->v = calloc(max, sizeof(*rows->v));
	if (!rows->v || !p || !sig) {
		free(p);
		free(sig);
		return -1;
	}
	match(d, rows, inclusive);
	for (i = 0; i < rows->n; i++)
		p[i] = rows->v[i].p_value;
	holm_significant(p, rows->n, 1.0 - d->opts->confidence / 100.0, sig);
	for (i = 0; i < rows->n; i++) {
		rows->v[i].significant = sig[i];
		classify(d, rows, &rows->v[i]);
	}
	qsort(rows->v, rows->n, sizeof(*rows->v), cmp_row);
	free(p);
	free(sig);
	return 0;
}

static void
sort_side(struct diff_side *s)
{
	if (s->n > 0) /* a side without functions has fns == NULL */
		qsort(s->fns, s->n, sizeof(*s->fns), cmp_fn);
}

int
diff_compute(struct diff *d)
{
	struct diff_rows gate = {0};
	bool incl = d->base.has_inclusive && d->new.has_inclusive;

	if (diff_map_modules(d))
		return -1;
	sort_side(&d->base);
	sort_side(&d->new);
	if (compare(d, &gate, d->opts->inclusive) ||
	    (incl && !d->opts->inclusive && compare(d, &d->incl, true))) {
		free(gate.v);
		cli_error("diff: out of memory");
		return -1;
	}
	d->rows = gate.v;
	d->nrows = gate.n;
	d->regressions = gate.regressions;
	d->improvements = gate.improvements;
	for (size_t i = 0; i < diff_incl_count(d); i++) {
		struct diff_row *r =
			d->opts->inclusive ? &d->rows[i] : &d->incl.v[i];

		if (r->bf)
			r->bf->incl_row = i + 1;
		if (r->nf)
			r->nf->incl_row = i + 1;
	}
	return 0;
}

const struct diff_row *
diff_incl_row(const struct diff *d, const struct diff_row *r)
{
	const struct diff_fn *f = r->bf ? r->bf : r->nf;

	return f ? diff_fn_incl_row(d, f) : NULL;
}

const struct diff_row *
diff_fn_incl_row(const struct diff *d, const struct diff_fn *f)
{
	if (!f->incl_row)
		return NULL;
	return d->opts->inclusive ? &d->rows[f->incl_row - 1]
				  : &d->incl.v[f->incl_row - 1];
}

size_t
diff_incl_count(const struct diff *d)
{
	return d->opts->inclusive ? d->nrows : d->incl.n;
}

void
diff_fini(struct diff *d)
{
	free(d->rows);
	free(d->incl.v);
	for (size_t i = 0; i < d->nsame; i++) {
		free(d->same[i].base);
		free(d->same[i].new);
	}
	free(d->same);
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

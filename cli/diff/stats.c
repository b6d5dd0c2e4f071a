/* SPDX-License-Identifier: MIT */
/*
 * The statistics of `profrun diff` (docs/diff.md).
 *
 * The samples of a run are taken as a multinomial draw over functions, so
 * a function's samples are binomial with its share as the probability.
 * Whether its share differs between BASE and NEW is a two-proportion
 * z-test with pooled variance and Yates' continuity correction; the many
 * functions compared at once are corrected with Holm's step-down method,
 * which keeps the chance of any false alarm (family-wise) at or below
 * alpha with no assumption about how the tests depend on each other.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "diff.h"

double
two_proportion_p(double x1, double n1, double x2, double n2)
{
	double p1, p2, p, se, d, inv;

	if (n1 <= 0 || n2 <= 0)
		return 1.0;
	p1 = x1 / n1;
	p2 = x2 / n2;
	p = (x1 + x2) / (n1 + n2);
	inv = 1.0 / n1 + 1.0 / n2;
	if (p <= 0 || p >= 1)
		return 1.0;
	se = sqrt(p * (1 - p) * inv);
	d = fabs(p1 - p2) - 0.5 * inv;
	if (d <= 0)
		return 1.0;
	return erfc(d / se / sqrt(2.0));
}

uint64_t
diff_side_effective(const struct diff_side *s)
{
	return s->deff > 1 ? (uint64_t)floor((double)s->total / s->deff)
			   : s->total;
}

const char *
diff_side_samples(const struct diff_side *s, char *buf, size_t len)
{
	uint64_t eff = diff_side_effective(s);

	if (eff < s->total)
		snprintf(buf, len,
			 "%" PRIu64 " samples, in bursts: tested as %" PRIu64,
			 s->total, eff);
	else
		snprintf(buf, len, "%" PRIu64 " samples", s->total);
	return buf;
}

struct ranked {
	double p;
	size_t i;
};

static int
cmp_ranked(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;

	if (x->p != y->p)
		return x->p < y->p ? -1 : 1;
	return (x->i > y->i) - (x->i < y->i);
}

/* Holm: with p-values sorted ascending, reject while p_(k) <= alpha /
 * (m - k), k = 0, 1, ...; stop at the first that is not. */
void
holm_significant(const double *p, size_t m, double alpha, bool *sig)
{
	struct ranked *r = calloc(m ? m : 1, sizeof(*r));
	size_t k;

	for (k = 0; k < m; k++)
		sig[k] = false;
	if (!r) {
		/* Bonferroni: the same guarantee, without the sort */
		for (k = 0; k < m; k++)
			sig[k] = p[k] <= alpha / (double)m;
		return;
	}
	for (k = 0; k < m; k++) {
		r[k].p = p[k];
		r[k].i = k;
	}
	qsort(r, m, sizeof(*r), cmp_ranked);
	for (k = 0; k < m && r[k].p <= alpha / (double)(m - k); k++)
		sig[r[k].i] = true;
	free(r);
}

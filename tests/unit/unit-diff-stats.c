/* SPDX-License-Identifier: MIT */
/* The statistics of profrun diff: two-proportion p-values against
 * reference values, and Holm's step-down procedure. */
#include <math.h>
#include <stdio.h>

#include "diff.h"
#include "unit-check.h"

static void
test_p_values(void)
{
	/* equal shares, and shares within the continuity correction */
	CHECK(two_proportion_p(50, 100, 50, 100) == 1.0);
	CHECK(two_proportion_p(0, 100, 0, 100) == 1.0);
	CHECK(two_proportion_p(10, 0, 10, 100) == 1.0);
	/* 250/1000 vs 300/1000: pooled p = 0.275, continuity-corrected
	 * z = (0.05 - 0.001) / sqrt(0.275 * 0.725 * 0.002) = 2.45384,
	 * two-sided p = erfc(2.45384 / sqrt 2) = 0.014134 */
	CHECK(fabs(two_proportion_p(250, 1000, 300, 1000) - 0.014134) < 1e-5);
	/* symmetric in the two sides */
	CHECK(two_proportion_p(300, 1000, 250, 1000) ==
	      two_proportion_p(250, 1000, 300, 1000));
	/* samples in bursts (design effect 2: counts halved) weigh less */
	CHECK(fabs(two_proportion_p(125, 500, 150, 500) -
		   erfc((0.05 - 0.002) / sqrt(0.275 * 0.725 * 0.004) /
			sqrt(2.0))) < 1e-12);
	CHECK(two_proportion_p(125, 500, 150, 500) >
	      5 * two_proportion_p(250, 1000, 300, 1000));
	/* a 4x slowdown of a 10% function over 500 samples is beyond doubt */
	CHECK(two_proportion_p(50, 500, 154, 500) < 1e-12);
}

static void
test_holm(void)
{
	/* alpha 0.05, m 4: thresholds 0.0125, 0.0167, 0.025, 0.05 */
	const double p[4] = {0.04, 0.001, 0.015, 0.03};
	bool sig[4];

	holm_significant(p, 4, 0.05, sig);
	CHECK(sig[1] && sig[2]);   /* 0.001 <= 0.0125, 0.015 <= 0.0167 */
	CHECK(!sig[3] && !sig[0]); /* 0.03 > 0.025 stops the procedure */

	/* Holm is never weaker than Bonferroni */
	const double q[3] = {0.01, 0.02, 0.5};
	holm_significant(q, 3, 0.05, sig);
	CHECK(sig[0] && sig[1] && !sig[2]);
	holm_significant(q, 0, 0.05, sig);
}

int
main(void)
{
	test_p_values();
	test_holm();
	CHECK_DONE();
}

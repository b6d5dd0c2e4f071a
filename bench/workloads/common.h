/* SPDX-License-Identifier: MIT */
/* Shared helpers for the benchmark workloads: a loop body whose cost per
 * iteration is the same wherever it is instantiated, and argument parsing. */
#ifndef BENCH_COMMON_H
#define BENCH_COMMON_H

#include <stdlib.h>

extern volatile unsigned long bench_sink;

/* One LCG step per iteration: a dependent multiply-add chain, so the
 * compiler can neither vectorise nor shorten it. */
#define BENCH_BODY(n)                                                          \
	do {                                                                   \
		unsigned long x_ = bench_sink;                                 \
		for (unsigned long i_ = 0; i_ < (n); i_++)                     \
			x_ = x_ * 6364136223846793005UL +                      \
			     1442695040888963407UL;                            \
		bench_sink = x_;                                               \
	} while (0)

static inline double
bench_arg(int argc, char **argv, int i, double dflt)
{
	return argc > i ? atof(argv[i]) : dflt;
}

#endif

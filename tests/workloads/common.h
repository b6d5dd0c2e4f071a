/* SPDX-License-Identifier: MIT */
/* Shared helpers for the test workloads: a loop body whose cost per
 * iteration is the same wherever it is instantiated, and CPU-time checks. */
#ifndef WORKLOAD_COMMON_H
#define WORKLOAD_COMMON_H

#include <stdlib.h>
#include <time.h>

extern volatile unsigned long workload_sink;

/* One LCG step per iteration: a dependent multiply-add chain, so the
 * compiler can neither vectorise nor shorten it. */
#define WORKLOAD_BODY(n)                                                    \
	do {                                                                \
		unsigned long x_ = workload_sink;                           \
		for (unsigned long i_ = 0; i_ < (n); i_++)                  \
			x_ = x_ * 6364136223846793005UL + 1442695040888963407UL; \
		workload_sink = x_;                                         \
	} while (0)

static inline double
cpu_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static inline double
arg_double(int argc, char **argv, int i, double dflt)
{
	return argc > i ? atof(argv[i]) : dflt;
}

#endif

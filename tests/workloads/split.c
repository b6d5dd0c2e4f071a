/* SPDX-License-Identifier: MIT */
/* split [CPU_SECONDS [A B]]: spends CPU in hot_a and hot_b in the ratio
 * A:B (default 3:1) by construction: the same loop body, iteration counts
 * in that ratio, interleaved in small rounds so the split holds whenever
 * the run stops.  Prints one line on stdout and exits 0. */
#include <stdio.h>

#include "common.h"

volatile unsigned long workload_sink = 1;

#define ROUND 200000UL

__attribute__((noipa)) void
hot_a(unsigned long n)
{
	WORKLOAD_BODY(n);
}

__attribute__((noipa)) void
hot_b(unsigned long n)
{
	WORKLOAD_BODY(n);
}

int
main(int argc, char **argv)
{
	double seconds = arg_double(argc, argv, 1, 2.0);
	unsigned long a = (unsigned long)arg_double(argc, argv, 2, 3);
	unsigned long b = (unsigned long)arg_double(argc, argv, 3, 1);
	double start = cpu_seconds();
	unsigned long rounds = 0;

	while (cpu_seconds() - start < seconds) {
		for (int k = 0; k < 10; k++) {
			hot_a(a * ROUND);
			hot_b(b * ROUND);
		}
		rounds++;
	}
	printf("split done: %lu rounds\n", rounds);
	return 0;
}

/* SPDX-License-Identifier: MIT */
/* split [CPU_SECONDS [A B]]: spends CPU in hot_a and hot_b in the ratio
 * A:B (default 3:1) by construction: the same loop body, in chunks of
 * random length each given to hot_a with probability A / (A + B), so the
 * split holds whenever the run stops, at random phases (common.h).
 * Prints one line on stdout and exits 0. */
#include <stdio.h>

#include "common.h"

volatile unsigned long workload_sink = 1;

#define CHUNK 5000UL /* iterations per call, on average */

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
	unsigned long weight[2] = {
		(unsigned long)arg_double(argc, argv, 2, 3),
		(unsigned long)arg_double(argc, argv, 3, 1),
	};
	double start = cpu_seconds();
	unsigned long rounds = 0;

	if (weight[0] + weight[1] == 0)
		weight[0] = weight[1] = 1;
	while (cpu_seconds() - start < seconds) {
		for (int k = 0; k < 200; k++)
			(workload_pick(weight, 2) == 0 ? hot_a : hot_b)(
				workload_chunk(CHUNK));
		rounds++;
	}
	printf("split done: %lu rounds\n", rounds);
	return 0;
}

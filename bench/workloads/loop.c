/* SPDX-License-Identifier: MIT */
/* loop [SCALE]: a fixed amount of CPU-bound work split between four
 * functions in the ratio 50:30:15:5 by construction (the same loop body,
 * iteration counts in that ratio, interleaved in small rounds).  SCALE
 * multiplies the number of rounds; SCALE 1 is about a second here.  The
 * work is fixed, not the time, so wall times of runs compare directly. */
#include <stdio.h>

#include "common.h"

volatile unsigned long workload_sink = 1;

/* Iterations per share point in one round. */
#define UNIT		 20000UL
#define ROUNDS_PER_SCALE 300UL

__attribute__((noipa)) void
share_50(unsigned long n)
{
	WORKLOAD_BODY(n);
}

__attribute__((noipa)) void
share_30(unsigned long n)
{
	WORKLOAD_BODY(n);
}

__attribute__((noipa)) void
share_15(unsigned long n)
{
	WORKLOAD_BODY(n);
}

__attribute__((noipa)) void
share_05(unsigned long n)
{
	WORKLOAD_BODY(n);
}

int
main(int argc, char **argv)
{
	unsigned long rounds = (unsigned long)(arg_double(argc, argv, 1, 1.0) *
					       ROUNDS_PER_SCALE);

	for (unsigned long r = 0; r < rounds; r++) {
		share_50(50 * UNIT);
		share_30(30 * UNIT);
		share_15(15 * UNIT);
		share_05(5 * UNIT);
	}
	printf("loop: %lu rounds, sink %lu\n", rounds, workload_sink & 0xff);
	return 0;
}

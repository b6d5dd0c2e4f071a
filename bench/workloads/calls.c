/* SPDX-License-Identifier: MIT */
/* calls [SCALE]: call-heavy recursion, where instrumenting profilers pay
 * per call.  Naive Fibonacci, repeated a fixed number of times per SCALE;
 * SCALE 1 is about a second here (some 5 x 10^8 calls). */
#include <stdio.h>

#include "common.h"

volatile unsigned long workload_sink = 1;

#define FIB_N		  30
#define REPEATS_PER_SCALE 300UL

__attribute__((noipa)) unsigned long
fib(unsigned n)
{
	if (n < 2)
		return n;
	return fib(n - 1) + fib(n - 2);
}

int
main(int argc, char **argv)
{
	unsigned long repeats = (unsigned long)(arg_double(argc, argv, 1, 1.0) *
						REPEATS_PER_SCALE);
	unsigned long sum = 0;

	for (unsigned long r = 0; r < repeats; r++)
		sum += fib(FIB_N + (unsigned)(workload_sink & 0));
	printf("calls: %lu repeats, sum %lu\n", repeats, sum);
	return 0;
}

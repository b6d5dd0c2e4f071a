/* SPDX-License-Identifier: MIT */
/* memory [SCALE]: memory-bound pointer chasing over a 64 MiB array laid
 * out as one random cycle (Sattolo's shuffle), so every load misses the
 * caches and depends on the previous one.  SCALE multiplies the number of
 * steps; the array is the same size whatever SCALE. */
#include <stdio.h>
#include <stdlib.h>

#include "common.h"

volatile unsigned long workload_sink = 1;

#define SLOTS		(8UL << 20) /* 8 Mi slots of 8 bytes */
#define STEPS_PER_SCALE (8UL << 20)

static unsigned long
next_random(unsigned long *state)
{
	*state = *state * 6364136223846793005UL + 1442695040888963407UL;
	return *state >> 17;
}

__attribute__((noipa)) void
build_cycle(size_t *next, size_t n)
{
	unsigned long state = 42;

	for (size_t i = 0; i < n; i++)
		next[i] = i;
	for (size_t i = n - 1; i > 0; i--) {
		size_t j = next_random(&state) % i;
		size_t t = next[i];

		next[i] = next[j];
		next[j] = t;
	}
}

__attribute__((noipa)) size_t
chase(const size_t *next, size_t start, unsigned long steps)
{
	size_t p = start;

	for (unsigned long s = 0; s < steps; s++)
		p = next[p];
	return p;
}

int
main(int argc, char **argv)
{
	unsigned long steps = (unsigned long)(arg_double(argc, argv, 1, 1.0) *
					      STEPS_PER_SCALE);
	size_t *next = malloc(SLOTS * sizeof(*next));

	if (!next) {
		perror("memory: malloc");
		return 1;
	}
	build_cycle(next, SLOTS);
	workload_sink = chase(next, 0, steps);
	printf("memory: %lu steps, end %lu\n", steps, workload_sink);
	free(next);
	return 0;
}

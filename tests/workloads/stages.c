/* SPDX-License-Identifier: MIT */
/* stages [CPU_SECONDS [SLOW_STAGE FACTOR]...]: a pipeline of five stages
 * that take 40:25:15:12:8 of the CPU time by construction (the same loop
 * body, in chunks of random length, each chunk given to a stage with
 * probability in that ratio: random phases, see common.h).  Each
 * SLOW_STAGE (a stage name) does FACTOR times its work, as if a change had
 * made it FACTOR times slower.  Prints one line and exits 0. */
#include <stdio.h>
#include <string.h>

#include "common.h"

volatile unsigned long workload_sink = 1;

#define CHUNK 5000UL /* iterations per call, on average */

WORKLOAD_LEAF(stage_parse)
WORKLOAD_LEAF(stage_hash)
WORKLOAD_LEAF(stage_sort)
WORKLOAD_LEAF(stage_compress)
WORKLOAD_LEAF(stage_render)

static const struct {
	const char *name;
	void (*fn)(unsigned long);
	unsigned long weight;
} stages[] = {
	{ "stage_parse", stage_parse, 40 },
	{ "stage_hash", stage_hash, 25 },
	{ "stage_sort", stage_sort, 15 },
	{ "stage_compress", stage_compress, 12 },
	{ "stage_render", stage_render, 8 },
};

int
main(int argc, char **argv)
{
	double seconds = arg_double(argc, argv, 1, 2.0);
	unsigned long weight[5], rounds = 0;
	double start = cpu_seconds();
	size_t i;

	for (i = 0; i < 5; i++)
		weight[i] = stages[i].weight * 1000;
	for (int a = 2; a + 1 < argc; a += 2)
		for (i = 0; i < 5; i++)
			if (strcmp(argv[a], stages[i].name) == 0)
				weight[i] = (unsigned long)((double)weight[i] *
							    arg_double(argc, argv,
								       a + 1, 1.0));
	while (cpu_seconds() - start < seconds) {
		for (int k = 0; k < 200; k++)
			stages[workload_pick(weight, 5)].fn(workload_chunk(CHUNK));
		rounds++;
	}
	printf("stages done: %lu rounds\n", rounds);
	return 0;
}

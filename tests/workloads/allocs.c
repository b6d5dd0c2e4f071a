/* SPDX-License-Identifier: MIT */
/* allocs [CPU_SECONDS]: allocates and frees blocks of varying sizes in a
 * loop, so that most samples fall in the C library's malloc and free (and
 * their helpers), for the names the report gives them. */
#include <stdio.h>
#include <stdlib.h>

#include "common.h"

#define SLOTS 64

volatile unsigned long workload_sink = 1;

int
main(int argc, char **argv)
{
	double seconds = arg_double(argc, argv, 1, 1.0);
	double start = cpu_seconds();
	void *slot[SLOTS] = {0};
	unsigned long rounds = 0;

	while (cpu_seconds() - start < seconds) {
		for (unsigned long i = 0; i < 100000; i++, rounds++) {
			unsigned long k = rounds % SLOTS;

			free(slot[k]);
			slot[k] = malloc(16 + (rounds * 7919) % 4000);
			workload_sink += (unsigned long)slot[k] & 0xff;
		}
	}
	for (int k = 0; k < SLOTS; k++)
		free(slot[k]);
	printf("allocs: %lu rounds\n", rounds);
	return 0;
}

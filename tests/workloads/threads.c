/* SPDX-License-Identifier: MIT */
/* threads [ROUNDS]: four threads, each doing the same fixed work, three in
 * hot_a and one in hot_b: CPU time splits 3:1 between them however the
 * scheduler interleaves the threads.  Prints one line and exits 0. */
#include <pthread.h>
#include <stdio.h>

#include "common.h"

volatile unsigned long workload_sink = 1;

#define ROUND 1000000UL

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

static unsigned long rounds = 400;

static void *
worker(void *arg)
{
	void (*fn)(unsigned long) = arg;

	for (unsigned long r = 0; r < rounds; r++)
		fn(ROUND);
	return NULL;
}

int
main(int argc, char **argv)
{
	void (*fns[4])(unsigned long) = { hot_a, hot_a, hot_a, hot_b };
	pthread_t t[4];

	rounds = (unsigned long)arg_double(argc, argv, 1, 400);
	for (int i = 0; i < 4; i++)
		if (pthread_create(&t[i], NULL, worker, (void *)fns[i]) != 0)
			return perror("pthread_create"), 1;
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	printf("threads done: %.2f s CPU\n", cpu_seconds());
	return 0;
}

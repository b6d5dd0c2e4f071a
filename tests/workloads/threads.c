/* SPDX-License-Identifier: MIT */
/* threads [CPU_SECONDS]: four threads, three in hot_a and one in hot_b,
 * each running until its own CPU time reaches CPU_SECONDS (default 1):
 * CPU time splits 3:1 between them however the scheduler interleaves the
 * threads.  Prints one line and exits 0. */
#include <pthread.h>
#include <stdio.h>

#include "common.h"

volatile unsigned long workload_sink = 1;

#define CHUNK 100000UL /* iterations between looks at the clock */

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

static double seconds = 1.0;

static void *
worker(void *arg)
{
	void (*fn)(unsigned long) = arg;
	double start = thread_cpu_seconds();

	while (thread_cpu_seconds() - start < seconds)
		fn(CHUNK);
	return NULL;
}

int
main(int argc, char **argv)
{
	void (*fns[4])(unsigned long) = { hot_a, hot_a, hot_a, hot_b };
	pthread_t t[4];

	seconds = arg_double(argc, argv, 1, 1.0);
	for (int i = 0; i < 4; i++)
		if (pthread_create(&t[i], NULL, worker, (void *)fns[i]) != 0)
			return perror("pthread_create"), 1;
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	printf("threads done: %.2f s CPU\n", cpu_seconds());
	return 0;
}

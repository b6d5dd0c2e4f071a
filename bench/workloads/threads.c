/* SPDX-License-Identifier: MIT */
/* threads [SCALE]: four threads each running the same fixed CPU-bound
 * work (the LCG loop of loop.c) in spin(). */
#include <pthread.h>
#include <stdio.h>

#include "common.h"

volatile unsigned long workload_sink = 1;

#define NTHREADS	4
#define ITERS_PER_SCALE 250000000UL

struct job {
	unsigned long iters;
	unsigned long result;
};

__attribute__((noipa)) static unsigned long
spin(unsigned long n)
{
	unsigned long x = workload_sink;

	for (unsigned long i = 0; i < n; i++)
		x = x * 6364136223846793005UL + 1442695040888963407UL;
	return x;
}

static void *
thread_work(void *arg)
{
	struct job *job = arg;

	job->result = spin(job->iters);
	return NULL;
}

int
main(int argc, char **argv)
{
	unsigned long iters = (unsigned long)(arg_double(argc, argv, 1, 1.0) *
					      ITERS_PER_SCALE);
	pthread_t tid[NTHREADS];
	struct job jobs[NTHREADS];
	unsigned long sum = 0;

	for (int t = 0; t < NTHREADS; t++) {
		jobs[t].iters = iters;
		if (pthread_create(&tid[t], NULL, thread_work, &jobs[t])) {
			fprintf(stderr, "threads: pthread_create failed\n");
			return 1;
		}
	}
	for (int t = 0; t < NTHREADS; t++) {
		pthread_join(tid[t], NULL);
		sum += jobs[t].result;
	}
	printf("threads: %d x %lu iterations, sum %lu\n", NTHREADS, iters,
	       sum & 0xff);
	return 0;
}

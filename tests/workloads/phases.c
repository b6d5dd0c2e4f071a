/* SPDX-License-Identifier: MIT */
/* phases [CPU_SECONDS [worker]]: three phases of equal CPU time in a row,
 * phase_a, then phase_b, then phase_a again, on the main thread; with
 * "worker", a second thread named "worker" runs phase_w meanwhile.  Each
 * phase is a function of its own (the compiler may turn the calls of the
 * parts, first_part, middle_part and last_part, into jumps: the leaf is
 * what says which phase a sample fell in).  Prints one line and exits 0. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "common.h"

volatile unsigned long workload_sink = 1;
static volatile int stop;

#define CHUNK 50000UL /* iterations per call, on average: the loop reading
			    * the CPU clock (a system call) stays a small share */

WORKLOAD_LEAF(phase_a)
WORKLOAD_LEAF(phase_b)
WORKLOAD_LEAF(phase_w)

/* FN for SECONDS of the main thread's CPU time. */
static void
run_for(void (*fn)(unsigned long), double seconds)
{
	double start = thread_cpu_seconds();

	while (thread_cpu_seconds() - start < seconds)
		fn(workload_chunk(CHUNK));
}

#define PART(name, fn)                                                      \
	__attribute__((noipa)) void name(double s);                         \
	__attribute__((noipa)) void name(double s)                          \
	{                                                                   \
		run_for(fn, s);                                             \
	}

PART(first_part, phase_a)
PART(middle_part, phase_b)
PART(last_part, phase_a)

static void *
worker(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "worker");
	while (!stop)
		phase_w(workload_chunk(CHUNK));
	return NULL;
}

int
main(int argc, char **argv)
{
	double seconds = arg_double(argc, argv, 1, 1.5);
	int threaded = argc > 2 && strcmp(argv[2], "worker") == 0;
	pthread_t t;

	if (threaded && pthread_create(&t, NULL, worker, NULL) != 0)
		return 1;
	first_part(seconds / 3);
	middle_part(seconds / 3);
	last_part(seconds / 3);
	if (threaded) {
		stop = 1;
		pthread_join(t, NULL);
	}
	printf("phases done\n");
	return 0;
}

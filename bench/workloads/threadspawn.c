/* SPDX-License-Identifier: MIT */
/* threadspawn [N]: create and join N threads (default 20000) one after
 * another, each returning at once, and print the wall and CPU time (user +
 * system of the whole process, getrusage) of that loop alone:
 *
 *     threads N wall_s W cpu_s C
 *
 * Process start-up and exit are outside the measured span, so bare and
 * profiled runs differ only by what each thread's creation, start and exit
 * cost (for profrun: its pthread_create hook, the thread's timer and
 * record). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

static void *
nothing(void *arg)
{
	return arg;
}

static double
wall_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double
cpu_now(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
	       (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

int
main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 20000;
	double w0, c0, w1, c1;

	w0 = wall_now();
	c0 = cpu_now();
	for (long i = 0; i < n; i++) {
		pthread_t t;

		if (pthread_create(&t, NULL, nothing, NULL) != 0 ||
		    pthread_join(t, NULL) != 0) {
			perror("threadspawn");
			return 1;
		}
	}
	w1 = wall_now();
	c1 = cpu_now();
	printf("threads %ld wall_s %.6f cpu_s %.6f\n", n, w1 - w0, c1 - c0);
	return 0;
}

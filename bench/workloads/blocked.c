/* SPDX-License-Identifier: MIT */
/*
 * blocked N SECONDS [BURN]: N threads each blocked in poll() for SECONDS,
 * the main thread burning BURN seconds of CPU meanwhile (default 0), then
 * joining them.  The wall sampler's cost per wake at N threads
 * (bench/wall.py).
 */
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static int ms;

static void *
sleeper(void *arg)
{
	(void)arg;
	poll(NULL, 0, ms);
	return NULL;
}

static double
cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int
main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 100;
	double burn = argc > 3 ? atof(argv[3]) : 0, end;
	pthread_t *t = calloc((size_t)n, sizeof(*t));
	volatile unsigned long x = 0;

	ms = (int)((argc > 2 ? atof(argv[2]) : 1.0) * 1000);
	if (!t)
		return 1;
	for (int i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, sleeper, NULL) != 0)
			return 1;
	end = cpu_now() + burn;
	while (cpu_now() < end)
		for (int i = 0; i < 10000; i++)
			x += (unsigned long)i;
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	printf("blocked %d done\n", n);
	return 0;
}

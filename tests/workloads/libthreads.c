/* SPDX-License-Identifier: MIT */
/*
 * Workload: many threads calling into shared libraries at once (libc's
 * memset, memcpy, strlen and qsort; libm's sin), so that samples outside
 * the executable land concurrently on many PCs of several modules.
 *
 * usage: libthreads [THREADS [SECONDS]]   (defaults 8, 2 s of CPU each
 *                                         divided among the threads)
 */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

volatile unsigned long workload_sink;
static double budget;

static int
cmp_int(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

/* One round of library work of a kind chosen by K. */
static void
round_of(int k, char *buf, int *v, size_t n)
{
	double x = 0;

	switch (k % 4) {
	case 0:
		memset(buf, k, n);
		memcpy(buf + n, buf, n);
		break;
	case 1:
		buf[n - 1] = 0;
		workload_sink += strlen(buf);
		break;
	case 2:
		for (size_t i = 0; i < 4096; i++)
			v[i] = (int)((i * 2654435761u) >> 7);
		qsort(v, 4096, sizeof(*v), cmp_int);
		break;
	default:
		for (int i = 0; i < 20000; i++)
			x += sin(i * 0.001);
		workload_sink += (unsigned long)x;
	}
}

static void *
worker(void *arg)
{
	size_t n = 64 * 1024;
	char *buf = malloc(2 * n);
	int *v = malloc(4096 * sizeof(int));
	double t0;
	int k = (int)(long)arg;

	if (buf == NULL || v == NULL)
		return NULL;
	memset(buf, 'x', 2 * n);
	t0 = thread_cpu_seconds();
	do
		round_of(k++, buf, v, n);
	while (thread_cpu_seconds() - t0 < budget);
	free(buf);
	free(v);
	return NULL;
}

int
main(int argc, char **argv)
{
	int n = (int)arg_double(argc, argv, 1, 8);
	pthread_t *t = calloc((size_t)n, sizeof(*t));

	budget = arg_double(argc, argv, 2, 2.0) / n;
	for (int i = 0; t && i < n; i++)
		if (pthread_create(&t[i], NULL, worker, (void *)(long)i) != 0)
			return 1;
	for (int i = 0; t && i < n; i++)
		pthread_join(t[i], NULL);
	printf("libthreads: %d threads done\n", n);
	return 0;
}

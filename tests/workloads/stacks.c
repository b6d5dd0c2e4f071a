/* SPDX-License-Identifier: MIT */
/* Call stacks of known shape, for tests/e2e_stacks.py.
 *
 *   stacks ratio SECONDS    leaf() called through caller_a() and caller_b(),
 *                           3:1 in CPU time, in random chunks
 *   stacks qsort SECONDS    the time in a qsort() comparison callback
 *   stacks signal SECONDS   the time in a SIGALRM handler (real-time timer)
 *                           that interrupts pause()
 *   stacks threads SECONDS  two threads, each in thread_work() -> leaf()
 *   stacks deep SECONDS     leaf() at the bottom of a 1000-deep recursion
 *   stacks clock SECONDS    the time in clock_gettime (the vdso), from
 *                           read_clocks()
 *   stacks forever          leaf() through caller_a() until killed; prints
 *                           "ready" after 0.5 s of CPU
 *   stacks secret SECONDS   leaf() called while the caller's frame holds
 *                           the string "profrun-stack-secret-4f1d" (made
 *                           at run time: not in the binary nor argv)
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include "common.h"

volatile unsigned long workload_sink;

#define CHUNK 200000ul

__attribute__((noinline)) void
leaf(unsigned long n)
{
	WORKLOAD_BODY(n);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void
caller_a(unsigned long n)
{
	leaf(n);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void
caller_b(unsigned long n)
{
	leaf(n);
	__asm__ volatile("" ::: "memory");
}

static void
ratio(double seconds)
{
	static const unsigned long weight[] = {3, 1};
	double end = cpu_seconds() + seconds;

	while (cpu_seconds() < end) {
		if (workload_pick(weight, 2) == 0)
			caller_a(workload_chunk(CHUNK));
		else
			caller_b(workload_chunk(CHUNK));
	}
}

static int
slow_compare(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	leaf(400);
	return (x > y) - (x < y);
}

__attribute__((noinline)) static void
sort_round(int *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		v[i] = (int)(workload_random() >> 33);
	qsort(v, n, sizeof(*v), slow_compare);
	__asm__ volatile("" ::: "memory"); /* no tail call: keep the frame */
}

static void
sorting(double seconds)
{
	static int v[4096];
	double end = cpu_seconds() + seconds;

	while (cpu_seconds() < end)
		sort_round(v, sizeof(v) / sizeof(v[0]));
}

static volatile sig_atomic_t alarms;

__attribute__((noinline)) static void
in_handler(void)
{
	leaf(workload_chunk(4 * CHUNK));
	__asm__ volatile("" ::: "memory");
}

static void
on_alarm(int sig)
{
	(void)sig;
	in_handler();
	alarms++;
}

static void
signals(double seconds)
{
	struct itimerval it = {{0, 2000}, {0, 2000}};
	struct sigaction sa;
	double end = cpu_seconds() + seconds;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &it, NULL);
	/* the main loop waits; the handler does the work */
	while (cpu_seconds() < end)
		pause();
	memset(&it, 0, sizeof(it));
	setitimer(ITIMER_REAL, &it, NULL);
}

static double thread_seconds;

__attribute__((noinline)) static void *
thread_work(void *arg)
{
	double end = thread_cpu_seconds() + thread_seconds;

	(void)arg;
	while (thread_cpu_seconds() < end)
		leaf(workload_chunk(CHUNK));
	return NULL;
}

static void
threads(double seconds)
{
	pthread_t t[2];

	thread_seconds = seconds / 2;
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, thread_work, NULL);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
}

__attribute__((noinline)) static void
recurse(int depth, double end)
{
	if (depth > 0) {
		recurse(depth - 1, end);
		__asm__ volatile("" ::: "memory");
		return;
	}
	while (cpu_seconds() < end)
		leaf(workload_chunk(CHUNK));
}

__attribute__((noinline)) static void
read_clocks(double seconds)
{
	double end = cpu_seconds() + seconds;
	struct timespec ts;

	while (cpu_seconds() < end)
		for (int i = 0; i < 1000; i++) {
			clock_gettime(CLOCK_MONOTONIC, &ts);
			workload_sink += (unsigned long)ts.tv_nsec;
		}
	__asm__ volatile("" ::: "memory");
}

/* The secret is built at run time, so that only the stack holds it. */
__attribute__((noinline)) static void
secret(double seconds)
{
	/* "profrun-stack-secret-4f1d", each byte xor 0x5a */
	static const unsigned char masked[] = {0x2a, 0x28, 0x35, 0x3c, 0x28, 0x2f, 0x34, 0x77, 0x29, 0x2e, 0x3b, 0x39, 0x31, 0x77, 0x29, 0x3f, 0x39, 0x28, 0x3f, 0x2e, 0x77, 0x6e, 0x3c, 0x6b, 0x3e};
	char held[sizeof(masked) + 1];
	double end = cpu_seconds() + seconds;

	for (size_t i = 0; i < sizeof(masked); i++)
		held[i] = (char)(masked[i] ^ 0x5a);
	held[sizeof(masked)] = '\0';
	__asm__ volatile("" ::"r"(held) : "memory"); /* stored before */
	while (cpu_seconds() < end)
		leaf(workload_chunk(CHUNK));
	workload_sink += (unsigned long)held[0];
	__asm__ volatile("" ::"r"(held) : "memory");
}

static void
forever(void)
{
	double ready = cpu_seconds() + 0.5;
	int said = 0;

	for (;;) {
		caller_a(workload_chunk(CHUNK));
		if (!said && cpu_seconds() >= ready) {
			printf("ready\n");
			fflush(stdout);
			said = 1;
		}
	}
}

int
main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	double seconds = arg_double(argc, argv, 2, 1.0);

	if (strcmp(mode, "ratio") == 0)
		ratio(seconds);
	else if (strcmp(mode, "qsort") == 0)
		sorting(seconds);
	else if (strcmp(mode, "signal") == 0)
		signals(seconds);
	else if (strcmp(mode, "threads") == 0)
		threads(seconds);
	else if (strcmp(mode, "deep") == 0)
		recurse(1000, cpu_seconds() + seconds);
	else if (strcmp(mode, "clock") == 0)
		read_clocks(seconds);
	else if (strcmp(mode, "forever") == 0)
		forever();
	else if (strcmp(mode, "secret") == 0)
		secret(seconds);
	else {
		fprintf(stderr, "usage: stacks ratio|qsort|signal|threads|deep|clock|forever|secret [SECONDS]\n");
		return 2;
	}
	printf("done\n");
	return 0;
}

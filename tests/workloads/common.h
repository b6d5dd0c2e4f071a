/* SPDX-License-Identifier: MIT */
/* Shared helpers for the workloads of the tests and of bench/: a loop body
 * whose cost per iteration is the same wherever it is instantiated, CPU-time
 * checks, and a random interleaving of functions. */
#ifndef WORKLOAD_COMMON_H
#define WORKLOAD_COMMON_H

#include <stddef.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

extern volatile unsigned long workload_sink;

/* One LCG step per iteration: a dependent multiply-add chain, so the
 * compiler can neither vectorise nor shorten it. */
#define WORKLOAD_BODY(n)                                                    \
	do {                                                                \
		unsigned long x_ = workload_sink;                           \
		for (unsigned long i_ = 0; i_ < (n); i_++)                  \
			x_ = x_ * 6364136223846793005UL + 1442695040888963407UL; \
		workload_sink = x_;                                         \
	} while (0)

/* A function NAME(n) that runs the loop body n times, never inlined nor
 * merged with another: a function of its own in every profile. */
#define WORKLOAD_LEAF(name)                                                 \
	__attribute__((noipa)) void name(unsigned long n);                  \
	__attribute__((noipa)) void name(unsigned long n)                   \
	{                                                                   \
		WORKLOAD_BODY(n);                                           \
	}

static inline double
cpu_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* CPU time of the calling thread, in seconds. */
static inline double
thread_cpu_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A function FN(seconds) that runs the loop body in its own frame until
 * SECONDS of CLOCK's time (cpu_seconds: the process's; thread_cpu_seconds:
 * the calling thread's) have passed, never inlined nor merged. */
#define WORKLOAD_BURN(fn, clock)                                            \
	__attribute__((noipa)) void fn(double seconds);                     \
	__attribute__((noipa)) void fn(double seconds)                      \
	{                                                                   \
		double start_ = clock();                                    \
		while (clock() - start_ < seconds)                          \
			WORKLOAD_BODY(100000UL);                            \
	}

/* Random numbers for interleaving (xorshift64*, seeded from the clock and
 * the pid, so that every run draws its own sequence).
 *
 * Workloads that split their time between functions do it in chunks of
 * random length, in random order: a workload that repeats the same round
 * is sampled by a periodic timer at the same few phases of the round when
 * the round's length is near a multiple or a fraction of the timer's
 * period (which depends on the machine's speed), and then its shares vary
 * from run to run far more than the binomial spread the tests allow for
 * (measured: 2 to 4 times the standard deviation).  At random phases the
 * samples are independent, as the tests and profrun diff assume. */
static inline unsigned long
workload_random(void)
{
	static unsigned long s;

	if (s == 0) {
		struct timespec ts;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		s = ((unsigned long)ts.tv_nsec << 20 ^ (unsigned long)ts.tv_sec ^
		     (unsigned long)getpid() << 40) | 1;
	}
	s ^= s >> 12;
	s ^= s << 25;
	s ^= s >> 27;
	return s * 2685821657736338717UL;
}

/* An index in [0, N) drawn with probability WEIGHT[i] / sum of WEIGHT. */
static inline size_t
workload_pick(const unsigned long *weight, size_t n)
{
	unsigned long sum = 0, r;
	size_t i;

	for (i = 0; i < n; i++)
		sum += weight[i];
	r = (workload_random() >> 11) % sum;
	for (i = 0; i + 1 < n && r >= weight[i]; i++)
		r -= weight[i];
	return i;
}

/* A chunk length drawn uniformly from [MEAN / 2, 3 * MEAN / 2): chunks
 * of MEAN iterations on average, at random phases. */
static inline unsigned long
workload_chunk(unsigned long mean)
{
	return mean / 2 + (workload_random() >> 11) % mean;
}

static inline double
arg_double(int argc, char **argv, int i, double dflt)
{
	return argc > i ? atof(argv[i]) : dflt;
}

#endif

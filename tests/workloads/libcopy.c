/* SPDX-License-Identifier: MIT */
/*
 * Workload: CPU time split between libc (memset and memcpy of a buffer
 * that stays in cache) and the program's own loop, in short rounds of
 * random length drawn in random order (random phases, see common.h).  Each
 * round's CPU time is measured as it runs, so the split is known by
 * construction; it is printed on stdout as
 * "libcopy: libc S own S".
 *
 * The order is drawn, never steered by the time measured so far.  A loop
 * that ran "whichever phase is behind" locked its rounds to the
 * scheduler's tick (most likely through the tick's own cost, charged to
 * the round it interrupts, which then runs less often): profrun, a bare
 * timer_create() in the program and perf's cpu-clock all saw 0.12 to 0.59
 * of the samples in libc for a split of 0.40, with runs of thirty samples
 * in a row in the same phase (HZ=250, 100 Hz, 2-core VM).
 * Only the draw's odds follow the rounds' mean lengths so far, a coupling
 * too weak to lock; drawn, the shares stay within binomial noise.
 *
 * usage: libcopy [SECONDS [LIBC_SHARE]]   (defaults 3 s, 0.4)
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "common.h"

volatile unsigned long workload_sink;

/* Both buffers fit in the L1 cache, so that a round costs about the same
 * whether or not the program was just switched back in beside other
 * programs. */
#define BUF (8 * 1024)
static char src[BUF], dst[BUF];
/* the length is read at run time, so that the compiler calls libc's
 * memset and memcpy rather than inlining copies of a known size */
static volatile size_t buf_len = BUF;

/* One round of libc work: memset the source, copy it. */
static void
libc_round(int i)
{
	size_t n = buf_len;

	memset(src, i, n);
	memcpy(dst, src, n);
	workload_sink += (unsigned char)dst[(size_t)i % n];
}

int
main(int argc, char **argv)
{
	double seconds = arg_double(argc, argv, 1, 3.0);
	double share = arg_double(argc, argv, 2, 0.4);
	double in_libc = 0, in_own = 0, t0, t1;
	unsigned long n_libc = 0, n_own = 0;
	int i = 0;

	while (in_libc + in_own < seconds) {
		/* a libc round with odds that give SHARE of the time on
		 * average, from the rounds' mean lengths so far */
		double libc_len = n_libc ? in_libc / n_libc : 1e-4;
		double own_len = n_own ? in_own / n_own : 1e-4;
		double odds = share * own_len /
			      (share * own_len + (1 - share) * libc_len);
		unsigned long weight[2];

		weight[1] = (unsigned long)(odds * 1e6);
		weight[0] = 1000000 - weight[1];
		bool libc = workload_pick(weight, 2) == 1;

		if (libc)
			n_libc++;
		else
			n_own++;

		t0 = cpu_seconds();
		if (libc)
			for (unsigned long k = workload_chunk(640); k > 0; k--)
				libc_round(i++);
		else
			WORKLOAD_BODY(workload_chunk(200000));
		t1 = cpu_seconds();
		if (libc)
			in_libc += t1 - t0;
		else
			in_own += t1 - t0;
	}
	printf("libcopy: libc %.6f own %.6f\n", in_libc, in_own);
	return 0;
}

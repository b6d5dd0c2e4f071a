/* SPDX-License-Identifier: MIT */
/*
 * Workload: CPU time split between libc (memset and memcpy of a buffer
 * that stays in cache) and the program's own loop, alternating in short
 * rounds of random length (random phases, see common.h).  Each phase's CPU
 * time is measured as it runs, so the split is known by construction; it
 * is printed on stdout as
 * "libcopy: libc S own S".
 *
 * usage: libcopy [SECONDS [LIBC_SHARE]]   (defaults 3 s, 0.4)
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "common.h"

volatile unsigned long workload_sink;

#define BUF (256 * 1024)
static char src[BUF], dst[BUF];

/* One round of libc work: memset the source, copy it. */
static void
libc_round(int i)
{
	memset(src, i, sizeof(src));
	memcpy(dst, src, sizeof(dst));
	workload_sink += (unsigned char)dst[i % BUF];
}

int
main(int argc, char **argv)
{
	double seconds = arg_double(argc, argv, 1, 3.0);
	double share = arg_double(argc, argv, 2, 0.4);
	double in_libc = 0, in_own = 0, t0, t1;
	int i = 0;

	while (in_libc + in_own < seconds) {
		/* keep the libc share near SHARE: whichever phase is behind */
		bool libc = in_libc <= share * (in_libc + in_own);

		t0 = cpu_seconds();
		if (libc)
			for (unsigned long k = workload_chunk(20); k > 0; k--)
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

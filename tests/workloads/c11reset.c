/* SPDX-License-Identifier: MIT */
/* c11reset SECONDS: a strict ISO C program (built with -std=c11, so that
 * signal() is the C library's __sysv_signal) that resets every signal to
 * SIG_DFL, then computes for SECONDS of CPU time and exits 0
 * (tests/e2e/e2e_signals.py). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile unsigned long sink = 1;

int
main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 0.5;
	int reset = 0;
	clock_t start;

	for (int sig = 1; sig < 65; sig++)
		reset += signal(sig, SIG_DFL) != SIG_ERR;
	start = clock();
	while ((double)(clock() - start) / CLOCKS_PER_SEC < seconds)
		for (int i = 0; i < 100000; i++)
			sink = sink * 6364136223846793005UL + 1442695040888963407UL;
	printf("c11reset: %d signals reset, computed\n", reset);
	return 0;
}

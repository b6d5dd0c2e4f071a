/* SPDX-License-Identifier: MIT */
/* masks [CPU_SECONDS]: blocks and unblocks SIGUSR1 in a tight loop, so
 * that most samples are taken in sigprocmask, called through profrun's
 * wrapper of it: the report must pass the wrapper's frames over and count
 * the samples in the wrapper's own code as overhead. */
#include <signal.h>
#include <stdio.h>

#include "common.h"

volatile unsigned long workload_sink = 1;

int
main(int argc, char **argv)
{
	double seconds = arg_double(argc, argv, 1, 1.0);
	double start = cpu_seconds();
	unsigned long rounds = 0;
	sigset_t usr1;

	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	while (cpu_seconds() - start < seconds) {
		for (int k = 0; k < 1000; k++, rounds++) {
			sigprocmask(SIG_BLOCK, &usr1, NULL);
			sigprocmask(SIG_UNBLOCK, &usr1, NULL);
		}
	}
	printf("masks: %lu rounds\n", rounds);
	return 0;
}

/* SPDX-License-Identifier: MIT */
/* errno-spin [CPU_SECONDS]: burns CPU with errno set to a marker and
 * checks it between every few microseconds of work; a signal handler that
 * fails to restore errno shows as "errno changed" and exit status 1. */
#include <errno.h>
#include <stdio.h>

#include "common.h"

#define MARK 4242

volatile unsigned long workload_sink = 1;

int
main(int argc, char **argv)
{
	double seconds = arg_double(argc, argv, 1, 1.0);
	double start = cpu_seconds();
	unsigned long checks = 0;

	while (cpu_seconds() - start < seconds) {
		errno = MARK;
		for (int k = 0; k < 1000; k++, checks++) {
			WORKLOAD_BODY(1000UL);
			if (errno != MARK) {
				printf("errno changed to %d after %lu checks\n",
				       errno, checks);
				return 1;
			}
		}
	}
	printf("errno intact over %lu checks\n", checks);
	return 0;
}

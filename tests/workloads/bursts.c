/* SPDX-License-Identifier: MIT */
/* bursts [CPU_SECONDS]: spins in user code (spin) and, in turn, maps
 * anonymous memory with MAP_POPULATE and unmaps it: the kernel clears the
 * pages inside one system call, for many of the timer's intervals (the
 * size, from 64 MiB, doubles until a map takes 40 ms, at most 1 GiB), and
 * the timer's signal, delivered on its return, brings the expirations
 * merged meanwhile (si_overrun): samples in bursts, as a loaded machine
 * gives them.  Prints one line and exits 0. */
#define _GNU_SOURCE
#include <stdio.h>
#include <sys/mman.h>

#include "common.h"

volatile unsigned long workload_sink = 1;

#define MAP_MIN (64UL << 20)
#define MAP_MAX (1UL << 30)
#define MAP_CPU 0.040 /* seconds of CPU a map should take */

WORKLOAD_LEAF(spin)

int
main(int argc, char **argv)
{
	double seconds = arg_double(argc, argv, 1, 1.0);
	double start = cpu_seconds();
	unsigned long maps = 0, bytes = MAP_MIN;

	while (cpu_seconds() - start < seconds) {
		double t = cpu_seconds(), until;
		void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1,
			       0);

		if (p == MAP_FAILED)
			return 1;
		munmap(p, bytes);
		maps++;
		if (cpu_seconds() - t < MAP_CPU && bytes < MAP_MAX)
			bytes *= 2;
		/* as much CPU time in user code as the map took */
		until = 2 * cpu_seconds() - t;
		while (cpu_seconds() < until)
			spin(200000);
	}
	printf("bursts done: %lu maps\n", maps);
	return 0;
}

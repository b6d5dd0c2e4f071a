/* SPDX-License-Identifier: MIT */
/* A library the dlopen workload loads at run time: all its CPU time is
 * spent in plugin_burn(). */
#include "common.h"

/* its own, not the program's */
__attribute__((visibility("hidden"))) volatile unsigned long workload_sink = 1;
double plugin_burn(double seconds);

/* Burn SECONDS of CPU time here; returns the CPU time it took. */
double
plugin_burn(double seconds)
{
	double t0 = cpu_seconds(), t;

	do {
		WORKLOAD_BODY(100000);
		t = cpu_seconds() - t0;
	} while (t < seconds);
	return t;
}

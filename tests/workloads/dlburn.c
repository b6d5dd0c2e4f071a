/* SPDX-License-Identifier: MIT */
/*
 * Workload: loads libburnplugin.so by its bare name (found through this
 * program's RUNPATH, $ORIGIN) with dlopen, burns CPU time in it, closes
 * it, and does it again; then burns as much in its own loop.  Prints
 * "dlburn: plugin S own S" (CPU seconds measured).
 *
 * usage: dlburn [SECONDS]   (plugin time per round, default 1; 2 rounds)
 */
#include <dlfcn.h>
#include <stdio.h>

#include "common.h"

volatile unsigned long workload_sink = 1;

int
main(int argc, char **argv)
{
	double seconds = arg_double(argc, argv, 1, 1.0), plugin = 0, t0;

	for (int round = 0; round < 2; round++) {
		void *h = dlopen("libburnplugin.so", RTLD_NOW);
		double (*burn)(double);

		if (h == NULL) {
			fprintf(stderr, "dlburn: %s\n", dlerror());
			return 1;
		}
		*(void **)&burn = dlsym(h, "plugin_burn");
		if (burn == NULL) {
			fprintf(stderr, "dlburn: %s\n", dlerror());
			return 1;
		}
		plugin += burn(seconds);
		dlclose(h);
	}
	t0 = cpu_seconds();
	while (cpu_seconds() - t0 < seconds)
		WORKLOAD_BODY(100000);
	printf("dlburn: plugin %.6f own %.6f\n", plugin, cpu_seconds() - t0);
	return 0;
}

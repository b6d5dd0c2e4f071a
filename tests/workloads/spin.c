/* SPDX-License-Identifier: MIT */
/* spin(): the CPU-time loop that outcome, rival and observe each profile. */
#include "common.h"
#include "spin.h"

__attribute__((noipa)) void
spin(double seconds)
{
	double start = cpu_seconds();

	while (cpu_seconds() - start < seconds)
		WORKLOAD_BODY(100000UL);
}

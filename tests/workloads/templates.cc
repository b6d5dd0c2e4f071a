// SPDX-License-Identifier: MIT
// templates [CPU_SECONDS]: CPU time split 2:1:1 by construction between
// calc::spin<unsigned long>, calc::mix(long) and calc::mix(long, int): a
// function template in a namespace and an overloaded function, for exact
// demangled names.  Chunks of random length go to each with probability
// 2:1:1 (random phases, see common.h).  Prints one line and exits 0.
#include <cstdio>

#include "common.h"

volatile unsigned long workload_sink = 1;

namespace calc {

template <typename T>
__attribute__((noipa)) T
spin(T n)
{
	WORKLOAD_BODY(n);
	return n;
}

__attribute__((noipa)) long
mix(long n)
{
	WORKLOAD_BODY((unsigned long)n);
	return n;
}

__attribute__((noipa)) long
mix(long n, int k)
{
	WORKLOAD_BODY((unsigned long)n * (unsigned long)k);
	return n;
}

} // namespace calc

int
main(int argc, char **argv)
{
	double seconds = arg_double(argc, argv, 1, 2.0);
	double start = cpu_seconds();
	const unsigned long weight[3] = { 2, 1, 1 };

	while (cpu_seconds() - start < seconds) {
		for (int k = 0; k < 200; k++) {
			long n = (long)(workload_chunk(5000) & ~1UL);

			switch (workload_pick(weight, 3)) {
			case 0: calc::spin<unsigned long>((unsigned long)n); break;
			case 1: calc::mix(n); break;
			default: calc::mix(n / 2, 2);
			}
		}
	}
	std::printf("templates done\n");
	return 0;
}

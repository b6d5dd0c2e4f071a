// SPDX-License-Identifier: MIT
// templates [CPU_SECONDS]: CPU time split 2:1:1 by construction between
// calc::spin<unsigned long>, calc::mix(long) and calc::mix(long, int): a
// function template in a namespace and an overloaded function, for exact
// demangled names.  Prints one line on stdout and exits 0.
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
	const long round = 200000;

	while (cpu_seconds() - start < seconds) {
		calc::spin<unsigned long>(2 * round);
		calc::mix(round);
		calc::mix(round / 2, 2);
	}
	std::printf("templates done\n");
	return 0;
}

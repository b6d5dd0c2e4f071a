/* SPDX-License-Identifier: MIT */
/* inline [CPU_SECONDS]: nearly all CPU time is spent in mix_step(), an
 * always-inlined helper whose body is the single line marked HOT LINE,
 * inlined into churn().  Prints one line on stdout and exits 0. */
#include <stdio.h>

#include "common.h"

volatile unsigned long workload_sink = 1;

/* xorshift and a multiply: a dependent chain the compiler cannot fold */
static inline __attribute__((always_inline)) unsigned long
mix_step(unsigned long x)
{
	return x ^= x << 13, x ^= x >> 7, x ^= x << 17, x * 0x9e3779b97f4a7c15UL; /* HOT LINE */
}

__attribute__((noipa)) void churn(unsigned long n);

__attribute__((noipa)) void
churn(unsigned long n)
{
	unsigned long x = workload_sink;

	for (unsigned long i = 0; i < n; i++)
		x = mix_step(x);
	workload_sink = x;
}

int
main(int argc, char **argv)
{
	double seconds = arg_double(argc, argv, 1, 2.0);
	double start = cpu_seconds();

	while (cpu_seconds() - start < seconds)
		churn(2000000);
	printf("inline done\n");
	return 0;
}

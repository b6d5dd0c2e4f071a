/* SPDX-License-Identifier: MIT */
/*
 * Source of the DWARF harness's seeds (fuzz/make-dwarf-seeds.py): a few
 * functions with code inlined two levels deep, lexical blocks, and error
 * paths moved to .text.unlikely, so that gcc -O2 gives a subprogram, a
 * lexical block and an inlined subroutine DW_AT_ranges of several pieces.
 * Built without the C library, to keep the seeds small.
 */
volatile unsigned long seed_sink;

__attribute__((cold, noinline, noreturn)) void
seed_fail(unsigned long why)
{
	for (;;)
		seed_sink = why;
}

static inline __attribute__((always_inline)) unsigned long
seed_mix(unsigned long x)
{
	x ^= x << 13;
	x ^= x >> 7;
	if (__builtin_expect(x == 42, 0))
		seed_fail(x);
	return x * 0x9e3779b97f4a7c15UL;
}

static inline __attribute__((always_inline)) unsigned long
seed_round(unsigned long x, unsigned long k)
{
	for (unsigned long i = 0; i < k; i++) {
		unsigned long t = seed_mix(x + i);

		if (__builtin_expect(t == 7, 0))
			seed_fail(t);
		x = t ^ (x >> 3);
	}
	return x;
}

__attribute__((noinline)) unsigned long
seed_churn(unsigned long n)
{
	unsigned long x = seed_sink;

	for (unsigned long i = 0; i < n; i++) {
		unsigned long y = seed_round(x, i & 3);

		if (__builtin_expect(y == 0, 0))
			seed_fail(i);
		x = seed_mix(y);
	}
	return x;
}

void
_start(void)
{
	seed_sink = seed_churn(seed_sink);
	for (;;)
		;
}

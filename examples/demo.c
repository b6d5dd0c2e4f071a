/* SPDX-License-Identifier: MIT */
/* demo: a small program with an uneven profile, bundled so that a new user
 * sees a real report after the quick start.  About 1.5 s of CPU: most of it
 * in count_primes(), less in checksum(), a little in sort_words(). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int
is_prime(unsigned n)
{
	if (n < 2)
		return 0;
	for (unsigned d = 2; d * d <= n; d++)
		if (n % d == 0)
			return 0;
	return 1;
}

__attribute__((noinline)) static unsigned
count_primes(unsigned limit)
{
	unsigned count = 0;

	for (unsigned n = 0; n < limit; n++)
		count += is_prime(n);
	return count;
}

__attribute__((noinline)) static unsigned long
checksum(const unsigned char *buf, size_t len, int rounds)
{
	unsigned long h = 1469598103934665603UL;

	for (int r = 0; r < rounds; r++)
		for (size_t i = 0; i < len; i++)
			h = (h ^ buf[i]) * 1099511628211UL;
	return h;
}

static int
cmp_words(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

__attribute__((noinline)) static void
sort_words(char **words, size_t n, int rounds)
{
	for (int r = 0; r < rounds; r++) {
		for (size_t i = 0; i < n; i++)
			words[i][0] = (char)('a' + (i * 7 + (size_t)r) % 26);
		qsort(words, n, sizeof(*words), cmp_words);
	}
}

int
main(void)
{
	static unsigned char buf[1 << 16];
	static char storage[4096][8];
	static char *words[4096];

	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (unsigned char)(i * 31);
	for (size_t i = 0; i < 4096; i++) {
		snprintf(storage[i], sizeof(storage[i]), "w%05zu", i);
		words[i] = storage[i];
	}
	printf("primes below 2500000: %u\n", count_primes(2500000));
	printf("checksum: %016lx\n", checksum(buf, sizeof(buf), 4000));
	sort_words(words, 4096, 200);
	printf("first word: %s\n", words[0]);
	return 0;
}

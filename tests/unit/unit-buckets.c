/* SPDX-License-Identifier: MIT */
/*
 * Bucket <-> address arithmetic: the shim's index is glibc profil()'s, its
 * bucket sizes coarsen only as far as PROFRUN_MAX_BUCKETS requires, and
 * profrun_bucket_addr() maps every index back to the bucket holding the PC.
 */
#define _GNU_SOURCE /* shim.h's system calls name the CPU's registers */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "shim.h"
#include "unit-check.h"

/* glibc 2.36 sysdeps/posix/profil.c, profil_count(), 64-bit branch. */
static size_t
glibc_index(uintptr_t pc, uintptr_t offset, unsigned scale)
{
	size_t i = (pc - offset) / 2;

	return i / 65536 * scale + i % 65536 * scale / 65536;
}

/* Every power-of-two bucket size: index == (pc - offset) / bucket_size. */
static void
index_matches_glibc_and_division(void)
{
	const uintptr_t off = 0x555555554000u;

	for (uint32_t bs = 2; bs <= 131072; bs *= 2) {
		uint32_t scale = 131072 / bs;

		CHECK_EQ(collect_bucket_size(scale), bs);
		for (uintptr_t d = 0; d < 3 * 131072; d += 1 + d / 7) {
			size_t i = collect_bucket_index(off + d, off, scale);

			CHECK_EQ(i, glibc_index(off + d, off, scale));
			CHECK_EQ(i, d / bs);
		}
	}
}

/* A PC below the offset wraps to an index past any histogram, as in glibc. */
static void
pc_below_offset_is_outside(void)
{
	const uintptr_t off = 0x400000;

	for (uint32_t scale = 1; scale <= 65536; scale *= 2) {
		size_t i = collect_bucket_index(off - 2, off, scale);

		CHECK_EQ(i, glibc_index(off - 2, off, scale));
		CHECK(i >= PROFRUN_MAX_BUCKETS);
	}
}

static void
small_text_gets_two_byte_buckets(void)
{
	struct target t;

	memset(&t, 0, sizeof(t));
	CHECK_EQ(target_size_buckets(&t, 0x1000, 0x1292, PROFRUN_MAX_BUCKETS),
		 0);
	CHECK_EQ(t.bucket_size, 2);
	CHECK_EQ(t.scale, 65536);
	CHECK_EQ(t.text_start, 0x1000);
	CHECK_EQ(t.nbuckets, 0x149);
	CHECK_EQ(t.text_end, 0x1292);
	/* an odd end is covered by a last, partly used bucket */
	CHECK_EQ(target_size_buckets(&t, 0x1000, 0x1293, PROFRUN_MAX_BUCKETS),
		 0);
	CHECK_EQ(t.nbuckets, 0x14a);
	CHECK_EQ(t.text_end, 0x1294);
}

/* 32 MiB fits 2-byte buckets exactly; one more byte doubles the size. */
static void
big_text_coarsens_to_fit(void)
{
	const uint64_t lo = 0x400000, max = PROFRUN_MAX_BUCKETS;
	struct target t;

	CHECK_EQ(target_size_buckets(&t, lo, lo + 2 * max, max), 0);
	CHECK_EQ(t.bucket_size, 2);
	CHECK_EQ(t.nbuckets, max);
	CHECK_EQ(target_size_buckets(&t, lo, lo + 2 * max + 1, max), 0);
	CHECK_EQ(t.bucket_size, 4);
	CHECK_EQ(t.scale, 32768);
	CHECK_EQ(t.nbuckets, max / 2 + 1);
	CHECK_EQ(target_size_buckets(&t, lo, lo + 100ull * 1024 * 1024, max),
		 0);
	CHECK_EQ(t.bucket_size, 8);
	CHECK_EQ(t.scale, 16384);
	CHECK(t.nbuckets <= max);
	CHECK(t.text_end >= lo + 100ull * 1024 * 1024);
	CHECK(t.text_end - (lo + 100ull * 1024 * 1024) < t.bucket_size);
}

/* Bucket 0 starts on a bucket boundary below an unaligned text start. */
static void
unaligned_start_rounds_down(void)
{
	struct target t;

	CHECK_EQ(target_size_buckets(&t, 0x1003, 0x1010, 4), 0);
	CHECK_EQ(t.bucket_size, 4);
	CHECK_EQ(t.text_start, 0x1000);
	CHECK_EQ(t.nbuckets, 4);
	CHECK_EQ(t.text_end, 0x1010);
}

static void
impossible_ranges_are_refused(void)
{
	struct target t;

	CHECK_EQ(target_size_buckets(&t, 0x2000, 0x2000, 16),
		 (uint64_t)-EINVAL);
	CHECK_EQ(target_size_buckets(&t, 0x2000, 0x1000, 16),
		 (uint64_t)-EINVAL);
	/* beyond scale 1 (128 KiB buckets) */
	CHECK_EQ(target_size_buckets(&t, 0, 131072ull * 17, 16),
		 (uint64_t)-E2BIG);
}

/* Runtime PC -> index -> link-time bucket start: the PC's bucket. */
static void
index_maps_back_to_address(void)
{
	const uint64_t bias = 0x7f0000000000;
	const uint64_t hi = 0x400000 + 3 * PROFRUN_MAX_BUCKETS + 5;
	struct profrun_header h;
	struct target t;

	CHECK_EQ(target_size_buckets(&t, 0x400123, hi, PROFRUN_MAX_BUCKETS), 0);
	memset(&h, 0, sizeof(h));
	h.text_start = t.text_start;
	h.bucket_size = t.bucket_size;
	for (uint64_t link = t.text_start; link < hi; link += 12345) {
		size_t i = collect_bucket_index(link + bias,
						t.text_start + bias, t.scale);
		uint64_t a = profrun_bucket_addr(&h, i);

		CHECK(i < t.nbuckets);
		CHECK(a <= link && link < a + t.bucket_size);
	}
}

int
main(void)
{
	index_matches_glibc_and_division();
	pc_below_offset_is_outside();
	small_text_gets_two_byte_buckets();
	big_text_coarsens_to_fit();
	unaligned_start_rounds_down();
	impossible_ranges_are_refused();
	index_maps_back_to_address();
	CHECK_DONE();
}

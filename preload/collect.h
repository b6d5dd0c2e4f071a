/* SPDX-License-Identifier: MIT */
/*
 * Pure sample-collection arithmetic shared by the SIGPROF handler and the
 * unit tests: glibc profil()'s bucket index and the lock-free carry table
 * that turns its 16-bit counters into exact counts.
 *
 * Everything here is async-signal-safe: no calls, no locks, only atomics
 * on memory the caller owns.
 */
#ifndef PROFRUN_COLLECT_H
#define PROFRUN_COLLECT_H

#include <stddef.h>
#include <stdint.h>

#include "profrun/format.h"

/* The view of one member file the handler counts into. */
struct collect {
	struct profrun_header *hdr;
	uint16_t *hist;
	struct profrun_wrap *wraps;
	size_t nbuckets;
	uint32_t wrap_slots; /* power of two */
	uintptr_t offset;    /* runtime address of bucket 0 (profil's offset) */
	uint32_t scale;	     /* profil's scale */
};

/* profil()'s bucket index for PC, computed exactly as glibc's profil_count()
 * in sysdeps/posix/profil.c does (including its wrap-around for PC below
 * OFFSET, which yields an index past the buffer).  Async-signal-safe. */
static inline size_t
collect_bucket_index(uintptr_t pc, uintptr_t offset, uint32_t scale)
{
	size_t i = (pc - offset) / 2;

	if (sizeof(unsigned long long) > sizeof(size_t))
		i = (unsigned long long)i * scale / 65536;
	else
		i = i / 65536 * scale + i % 65536 * scale / 65536;
	return i;
}

/* Bucket size in bytes for a profil() scale (inverse of 131072 / size). */
static inline uint32_t
collect_bucket_size(uint32_t scale)
{
	return scale ? 131072u / scale : 0;
}

/* Slot where the search for BUCKET starts. */
static inline uint32_t
collect_wrap_hash(uint64_t bucket, uint32_t nslots)
{
	return (uint32_t)((bucket * 0x9e3779b97f4a7c15ull) >> 32) & (nslots - 1);
}

/* Record one 16-bit wrap of hist[BUCKET] in TAB (NSLOTS slots, a power of
 * two): open addressing, the key claimed by compare-and-swap, the count
 * bumped atomically.  Returns 0, or -1 when the table is full.
 * Async-signal-safe and safe against concurrent callers. */
static inline int
collect_wrap_record(struct profrun_wrap *tab, uint32_t nslots, uint64_t bucket)
{
	uint64_t key = bucket + 1;
	uint32_t h = collect_wrap_hash(bucket, nslots);

	for (uint32_t n = 0; n < nslots; n++, h = (h + 1) & (nslots - 1)) {
		uint64_t k = __atomic_load_n(&tab[h].key, __ATOMIC_ACQUIRE);

		if (k == 0) {
			uint64_t expect = 0;

			if (__atomic_compare_exchange_n(&tab[h].key, &expect, key, 0,
							__ATOMIC_ACQ_REL,
							__ATOMIC_ACQUIRE))
				k = key;
			else
				k = expect;
		}
		if (k == key) {
			__atomic_add_fetch(&tab[h].wraps, 1, __ATOMIC_RELAXED);
			return 0;
		}
	}
	return -1;
}

/* Exact count of BUCKET: hist + 65536 * wraps.  Not for the handler. */
static inline uint64_t
collect_exact_count(const uint16_t *hist, const struct profrun_wrap *tab,
		    uint32_t nslots, uint64_t bucket)
{
	uint64_t n = hist[bucket];

	for (uint32_t s = 0; s < nslots; s++)
		if (tab[s].key == bucket + 1)
			n += 65536ull * tab[s].wraps;
	return n;
}

/* The counter profil() is about to increment for PC (0 when outside),
 * read before its handler runs.  Async-signal-safe. */
static inline uint16_t
collect_before_profil(const struct collect *c, uintptr_t pc)
{
	size_t i = collect_bucket_index(pc, c->offset, c->scale);

	return i < c->nbuckets ? *(volatile uint16_t *)&c->hist[i] : 0;
}

/* Account for one sample at PC after profil()'s handler has done its
 * ++hist[i] (BEFORE is the value collect_before_profil() read): count it,
 * count it as outside when profil dropped it, and carry a wrap to 0 into
 * the wrap table.  A counter that reads 0 both before and after was not
 * incremented in our buffer at all (profil() was taken over): no wrap.
 * Async-signal-safe. */
static inline void
collect_after_profil(const struct collect *c, uintptr_t pc, uint16_t before)
{
	struct profrun_header *h = c->hdr;
	size_t i = collect_bucket_index(pc, c->offset, c->scale);

	__atomic_add_fetch(&h->samples_total, 1, __ATOMIC_RELAXED);
	if (i >= c->nbuckets) {
		__atomic_add_fetch(&h->samples_outside, 1, __ATOMIC_RELAXED);
		return;
	}
	if (*(volatile uint16_t *)&c->hist[i] != 0 || before == 0)
		return;
	if (collect_wrap_record(c->wraps, c->wrap_slots, i) < 0) {
		__atomic_add_fetch(&h->wraps_lost, 1, __ATOMIC_RELAXED);
		__atomic_or_fetch(&h->flags, PROFRUN_F_WRAP_OVERFLOW,
				  __ATOMIC_RELAXED);
	}
}

#endif /* PROFRUN_COLLECT_H */

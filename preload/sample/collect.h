/* SPDX-License-Identifier: MIT */
/*
 * Pure sample-collection arithmetic shared by the SIGPROF handler and the
 * unit tests: the log of the first samples, glibc profil()'s bucket index,
 * the lock-free carry table that turns its 16-bit counters into exact
 * counts, and the lock-free table of the PCs that fall outside them
 * (shared libraries, the vdso).
 *
 * Everything here is async-signal-safe: no calls, no locks, only atomics
 * on memory the caller owns.
 */
#ifndef PROFRUN_COLLECT_H
#define PROFRUN_COLLECT_H

#include <stdbool.h>
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
	struct profrun_pc *pcs;	 /* PCs outside the histogram, or NULL */
	uint32_t pc_slots;	 /* power of two */
	struct profrun_log *log; /* the first samples, or NULL */
	uint64_t *log_keys;	 /* log->slot_count of them */
	uint32_t log_slots;
	struct profrun_timeline *tl; /* the timeline's head, or NULL */
	int64_t tl_base;	     /* its base_ns */
	uint32_t tl_slots;	     /* entries below the head */
	uint32_t vdso_room; /* bytes kept for the vdso image, 0 = none */
	uintptr_t vdso;	    /* its runtime address */
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
	return (uint32_t)((bucket * 0x9e3779b97f4a7c15ull) >> 32) &
	       (nslots - 1);
}

/* Find KEY's slot at *SLOT_KEY, claiming it by compare-and-swap when it
 * is free.  Returns true when the slot is (now) KEY's.  Async-signal-safe
 * and safe against concurrent callers. */
static inline bool
collect_claim(uint64_t *slot_key, uint64_t key)
{
	uint64_t k = __atomic_load_n(slot_key, __ATOMIC_ACQUIRE);
	uint64_t expect = 0;

	if (k != 0)
		return k == key;
	if (__atomic_compare_exchange_n(slot_key, &expect, key, 0,
					__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		return true;
	return expect == key;
}

/* Record one 16-bit wrap of hist[BUCKET] in TAB (NSLOTS slots, a power of
 * two): open addressing, the key claimed by compare-and-swap, the count
 * bumped atomically.  Returns 0, or -1 when the table is full.
 * Async-signal-safe and safe against concurrent callers. */
static inline int
collect_wrap_record(struct profrun_wrap *tab, uint32_t nslots, uint64_t bucket)
{
	uint32_t h = collect_wrap_hash(bucket, nslots);

	for (uint32_t n = 0; n < nslots; n++, h = (h + 1) & (nslots - 1)) {
		if (collect_claim(&tab[h].key, bucket + 1)) {
			__atomic_add_fetch(&tab[h].wraps, 1, __ATOMIC_RELAXED);
			return 0;
		}
	}
	return -1;
}

/* Slot where the search for the PC table's KEY starts. */
static inline uint32_t
collect_pc_hash(uint64_t key, uint32_t nslots)
{
	return (uint32_t)((key * 0x9e3779b97f4a7c15ull) >> 40) & (nslots - 1);
}

/* Count one sample under KEY (PC | generation << 48, never 0) in TAB
 * (NSLOTS slots, a power of two), looking at no more than PROBE slots:
 * open addressing, the key claimed by compare-and-swap, the count bumped
 * atomically.  Returns 0, or -1 when no slot was found.
 * Async-signal-safe and safe against concurrent callers. */
static inline int
collect_pc_record(struct profrun_pc *tab, uint32_t nslots, uint32_t probe,
		  uint64_t key)
{
	uint32_t h = collect_pc_hash(key, nslots);

	for (uint32_t n = 0; n < probe; n++, h = (h + 1) & (nslots - 1)) {
		if (collect_claim(&tab[h].key, key)) {
			__atomic_add_fetch(&tab[h].count, 1, __ATOMIC_RELAXED);
			return 0;
		}
	}
	return -1;
}

/* The PC table's key for PC in module generation GEN, or 0 when PC cannot
 * be one (0, or beyond 48 bits).  Async-signal-safe. */
static inline uint64_t
collect_pc_key(uintptr_t pc, uint32_t gen)
{
	if (pc == 0 || (uint64_t)pc > PROFRUN_PC_MASK)
		return 0;
	if (gen > PROFRUN_GEN_MAX)
		gen = PROFRUN_GEN_MAX;
	return (uint64_t)pc | (uint64_t)gen << PROFRUN_PC_BITS;
}

/* Record where a sample outside the histogram fell: its PC in the table,
 * tagged with the module generation; a PC that is no key, or finds no
 * slot, is counted instead.  Async-signal-safe. */
static inline void
collect_outside(const struct collect *c, uintptr_t pc)
{
	struct profrun_header *h = c->hdr;
	uint64_t key;

	if (c->pcs == NULL)
		return;
	key = collect_pc_key(
		pc, __atomic_load_n(&h->mod_generation, __ATOMIC_RELAXED));
	if (key == 0) {
		__atomic_add_fetch(&h->pcs_unmapped, 1, __ATOMIC_RELAXED);
	} else if (collect_pc_record(c->pcs, c->pc_slots, PROFRUN_PC_PROBE,
				     key) < 0) {
		__atomic_add_fetch(&h->pcs_lost, 1, __ATOMIC_RELAXED);
		__atomic_or_fetch(&h->flags, PROFRUN_F_PC_OVERFLOW,
				  __ATOMIC_RELAXED);
	}
}

/* Keep the sample at PC, in module generation GEN, in the next free slot
 * of the log.  Returns false when the log is full (or absent, or PC is no
 * key): the sample goes to the histogram or the PC table instead.
 * Async-signal-safe and safe against concurrent callers. */
static inline bool
collect_log(const struct collect *c, uintptr_t pc, uint32_t gen)
{
	uint64_t key = collect_pc_key(pc, gen), n;

	if (c->log == NULL || key == 0 ||
	    __atomic_load_n(&c->log->claimed, __ATOMIC_RELAXED) >= c->log_slots)
		return false;
	n = __atomic_fetch_add(&c->log->claimed, 1, __ATOMIC_RELAXED);
	if (n >= c->log_slots)
		return false;
	__atomic_store_n(&c->log_keys[n], key, __ATOMIC_RELEASE);
	return true;
}

/* The timeline's entry N (0 = the one right below its head TL). */
static inline struct profrun_timeline_entry *
collect_timeline_entry(struct profrun_timeline *tl, uint64_t n)
{
	return (struct profrun_timeline_entry *)tl - (n + 1);
}

/* Keep N samples at PC in module generation GEN, taken at monotonic time
 * NOW_NS on the thread of record THREAD, in the next free entries of the
 * timeline, while it has some.  Async-signal-safe and safe against
 * concurrent callers. */
static inline void
collect_timeline(const struct collect *c, uintptr_t pc, uint32_t gen,
		 int64_t now_ns, uint32_t thread, uint64_t n)
{
	uint64_t key = collect_pc_key(pc, gen), first, when;

	if (c->tl == NULL || key == 0 ||
	    __atomic_load_n(&c->tl->claimed, __ATOMIC_RELAXED) >= c->tl_slots)
		return;
	first = __atomic_fetch_add(&c->tl->claimed, n, __ATOMIC_RELAXED);
	if (__atomic_load_n(&c->tl->base_ns, __ATOMIC_RELAXED) == 0)
		__atomic_store_n(&c->tl->base_ns, c->tl_base, __ATOMIC_RELAXED);
	when = ((uint64_t)(now_ns - c->tl_base) &
		((1ull << PROFRUN_TIMELINE_NS_BITS) - 1)) |
	       (uint64_t)thread << PROFRUN_TIMELINE_NS_BITS;
	for (uint64_t i = first; i < first + n && i < c->tl_slots; i++) {
		struct profrun_timeline_entry *e =
			collect_timeline_entry(c->tl, i);

		__atomic_store_n(&e->when, when, __ATOMIC_RELAXED);
		__atomic_store_n(&e->key, key, __ATOMIC_RELEASE);
	}
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

/* Count one sample at PC into C: the next slot of the log while it has
 * one, then the histogram's counter with an atomic increment (threads on
 * other CPUs count into the same bucket at the same moment: profil()'s
 * own plain ++ lost a few of them), a wrap to 0 carried into the wrap
 * table, a PC outside the histogram recorded in the PC table.
 * Async-signal-safe and safe against concurrent callers. */
static inline void
collect_count(const struct collect *c, uintptr_t pc)
{
	struct profrun_header *h = c->hdr;
	size_t i = collect_bucket_index(pc, c->offset, c->scale);
	bool inside = i < c->nbuckets;

	__atomic_add_fetch(&h->samples_total, 1, __ATOMIC_RELAXED);
	if (!inside)
		__atomic_add_fetch(&h->samples_outside, 1, __ATOMIC_RELAXED);
	if (collect_log(c, pc,
			__atomic_load_n(&h->mod_generation, __ATOMIC_RELAXED)))
		return;
	if (!inside) {
		collect_outside(c, pc);
		return;
	}
	if (__atomic_fetch_add(&c->hist[i], 1, __ATOMIC_RELAXED) != 0xffff)
		return;
	if (collect_wrap_record(c->wraps, c->wrap_slots, i) < 0) {
		__atomic_add_fetch(&h->wraps_lost, 1, __ATOMIC_RELAXED);
		__atomic_or_fetch(&h->flags, PROFRUN_F_WRAP_OVERFLOW,
				  __ATOMIC_RELAXED);
	}
}

#endif /* PROFRUN_COLLECT_H */

/* SPDX-License-Identifier: MIT */
/*
 * The carry of the histogram's 16-bit counters: counting as the SIGPROF
 * handler does (collect_count), count = hist + 65536 * wraps stays exact
 * across wraps,
 * samples outside the histogram are counted, and a full carry table is
 * counted and flagged instead of silently losing wraps.  The PCs of the
 * samples outside land in the PC table, tagged with the module
 * generation, by concurrent threads too; what does not fit is counted.
 * The first samples go to the log, one key each, claimed by concurrent
 * threads without loss; once it is full the rest go to the histogram and
 * the PC table, and every sample is in exactly one of them.
 */
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "sample/collect.h"
#include "unit-check.h"

#define NB     8
#define OFFSET 0x555555555000u

static struct profrun_header hdr;
static uint16_t hist[NB];
static struct profrun_wrap tab[PROFRUN_WRAP_SLOTS];
#define PC_SLOTS 64
static struct profrun_pc pcs[PC_SLOTS];

static struct collect
make_collect(uint32_t slots)
{
	struct collect c = {
		.hdr = &hdr,
		.hist = hist,
		.wraps = tab,
		.nbuckets = NB,
		.wrap_slots = slots,
		.offset = OFFSET,
		.scale = 65536,
		.pcs = pcs,
		.pc_slots = PC_SLOTS,
	};

	memset(&hdr, 0, sizeof(hdr));
	memset(pcs, 0, sizeof(pcs));
	memset(hist, 0, sizeof(hist));
	memset(tab, 0, sizeof(tab));
	return c;
}

/* What the SIGPROF handler counts for one sample at PC (timer.c,
 * count_samples). */
static void
sample(const struct collect *c, uintptr_t pc)
{
	size_t index = collect_bucket_index(pc, c->offset, c->scale);
	uint16_t before = index < c->nbuckets ? c->hist[index] : 0;

	collect_count(c, pc);
	if (index < c->nbuckets)
		CHECK_EQ(c->hist[index], (uint16_t)(before + 1));
}

/* Counts below 65536 are the counters alone: no wrap is recorded. */
static void
counts_below_a_wrap_record_no_wrap(void)
{
	struct collect c = make_collect(PROFRUN_WRAP_SLOTS);

	for (int n = 0; n < 1000; n++)
		sample(&c, OFFSET + 6);
	CHECK_EQ(hdr.samples_total, 1000);
	CHECK_EQ(hist[3], 1000);
	CHECK_EQ(collect_exact_count(hist, tab, PROFRUN_WRAP_SLOTS, 3), 1000);
	for (uint32_t s = 0; s < PROFRUN_WRAP_SLOTS; s++)
		CHECK_EQ(tab[s].key, 0);
	CHECK_EQ(hdr.wraps_lost, 0);
}

static void
count_is_exact_across_a_wrap(void)
{
	struct collect c = make_collect(PROFRUN_WRAP_SLOTS);
	const uintptr_t pc = OFFSET + 2 * 5 + 1; /* bucket 5 */

	for (int n = 0; n < 70000; n++)
		sample(&c, pc);
	CHECK_EQ(hist[5], 70000 - 65536);
	CHECK_EQ(collect_exact_count(hist, tab, PROFRUN_WRAP_SLOTS, 5), 70000);
	CHECK_EQ(hdr.samples_total, 70000);
	CHECK_EQ(hdr.samples_outside, 0);
	CHECK_EQ(hdr.wraps_lost, 0);
	CHECK_EQ(hdr.flags, 0);
	for (int b = 0; b < NB; b++)
		if (b != 5)
			CHECK_EQ(collect_exact_count(hist, tab,
						     PROFRUN_WRAP_SLOTS, b),
				 0);
}

static void
three_wraps_and_neighbours(void)
{
	struct collect c = make_collect(PROFRUN_WRAP_SLOTS);
	uint64_t want = 3 * 65536 + 17;

	for (uint64_t n = 0; n < want; n++) {
		sample(&c, OFFSET); /* bucket 0 */
		if (n % 1000 == 0)
			sample(&c, OFFSET + 14); /* bucket 7 */
	}
	CHECK_EQ(collect_exact_count(hist, tab, PROFRUN_WRAP_SLOTS, 0), want);
	CHECK_EQ(collect_exact_count(hist, tab, PROFRUN_WRAP_SLOTS, 7),
		 (want + 999) / 1000);
	CHECK_EQ(hdr.samples_total, want + (want + 999) / 1000);
}

static void
outside_samples_are_counted(void)
{
	struct collect c = make_collect(PROFRUN_WRAP_SLOTS);

	sample(&c, OFFSET - 1);	     /* below the text */
	sample(&c, OFFSET + 2 * NB); /* just past the last bucket */
	sample(&c, 0x7fff00000000);  /* a shared library */
	sample(&c, OFFSET + 2 * NB - 1);
	CHECK_EQ(hdr.samples_total, 4);
	CHECK_EQ(hdr.samples_outside, 3);
	CHECK_EQ(hist[NB - 1], 1);
	for (uint32_t s = 0; s < PROFRUN_WRAP_SLOTS; s++)
		CHECK_EQ(tab[s].key, 0);
}

/* A table of 4 slots takes 4 buckets' wraps; the 5th is lost and flagged,
 * while wraps of buckets already in the table still count. */
static void
full_table_counts_lost_wraps(void)
{
	struct collect c = make_collect(4);

	for (int b = 0; b < 5; b++) {
		hist[b] = 65535;
		sample(&c, OFFSET + 2 * (uintptr_t)b);
	}
	CHECK_EQ(hdr.wraps_lost, 1);
	CHECK(hdr.flags & PROFRUN_F_WRAP_OVERFLOW);
	for (int b = 0; b < 4; b++)
		CHECK_EQ(collect_exact_count(hist, tab, 4, b), 65536);
	CHECK_EQ(collect_exact_count(hist, tab, 4, 4), 0); /* the lost one */
	hist[2] = 65535;
	sample(&c, OFFSET + 4);
	CHECK_EQ(collect_exact_count(hist, tab, 4, 2), 2 * 65536);
	CHECK_EQ(hdr.wraps_lost, 1);
	CHECK_EQ(collect_wrap_record(tab, 4, 6), -1);
}

#define THREADS	   4
#define PER_THREAD 20000

static void *
hammer(void *arg)
{
	uintptr_t seed = (uintptr_t)arg;

	for (int n = 0; n < PER_THREAD; n++)
		collect_wrap_record(tab, 64, (seed + (uintptr_t)n) % 48);
	return NULL;
}

/* Concurrent recorders (signals on several threads) lose nothing. */
static void
concurrent_records_all_land(void)
{
	pthread_t t[THREADS];
	uint64_t sum = 0, keys = 0;

	make_collect(64);
	for (uintptr_t i = 0; i < THREADS; i++)
		pthread_create(&t[i], NULL, hammer, (void *)(i * 7));
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	for (int s = 0; s < 64; s++) {
		sum += tab[s].wraps;
		keys += tab[s].key != 0;
		for (int o = s + 1; o < 64; o++)
			CHECK(tab[s].key == 0 || tab[s].key != tab[o].key);
	}
	CHECK_EQ(sum, THREADS * PER_THREAD);
	CHECK_EQ(keys, 48);
}

#define LIB 0x7f0000001000u

static void *
hammer_pcs(void *arg)
{
	const struct collect *c = arg;

	for (int n = 0; n < PER_THREAD; n++)
		collect_count(c, LIB + 4 * (uintptr_t)(n % 80));
	return NULL;
}

/* Threads sampling 80 PCs into 64 slots: every sample is in the table or
 * counted as lost, each PC in one slot with the current generation. */
static void
concurrent_pcs_land_or_are_counted(void)
{
	struct collect c = make_collect(PROFRUN_WRAP_SLOTS);
	pthread_t t[THREADS];
	uint64_t sum = 0;

	hdr.mod_generation = 3;
	for (int i = 0; i < THREADS; i++)
		pthread_create(&t[i], NULL, hammer_pcs, &c);
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	for (int s = 0; s < PC_SLOTS; s++) {
		uint64_t pc = pcs[s].key & PROFRUN_PC_MASK;

		sum += pcs[s].count;
		CHECK(pcs[s].key >> PROFRUN_PC_BITS == 3);
		CHECK(pc >= LIB && pc < LIB + 320 && pc % 4 == 0);
		for (int o = s + 1; o < PC_SLOTS; o++)
			CHECK(pcs[s].key != pcs[o].key);
	}
	CHECK_EQ(hdr.samples_outside, THREADS * PER_THREAD);
	CHECK_EQ(sum + hdr.pcs_lost, THREADS * PER_THREAD);
	CHECK(hdr.pcs_lost > 0 && (hdr.flags & PROFRUN_F_PC_OVERFLOW));
	/* a PC that cannot be a key is counted, not stored */
	collect_count(&c, (uintptr_t)1 << 50);
	CHECK_EQ(hdr.pcs_unmapped, 1);
}

static void *
hammer_bucket(void *arg)
{
	const struct collect *c = arg;

	for (int n = 0; n < 5 * PER_THREAD; n++)
		collect_count(c, OFFSET + 6 + (uintptr_t)(n % 2));
	return NULL;
}

/* The handler's count: threads counting into one bucket at once lose
 * nothing, across several 16-bit wraps. */
static void
concurrent_counts_into_one_bucket_are_exact(void)
{
	struct collect c = make_collect(PROFRUN_WRAP_SLOTS);
	pthread_t t[THREADS];

	memset(hist, 0, sizeof(hist));
	memset(tab, 0, sizeof(tab));
	hdr.samples_total = 0;
	for (int i = 0; i < THREADS; i++)
		pthread_create(&t[i], NULL, hammer_bucket, &c);
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	CHECK_EQ(collect_exact_count(hist, tab, PROFRUN_WRAP_SLOTS, 3),
		 (uint64_t)THREADS * 5 * PER_THREAD);
	CHECK_EQ(hdr.samples_total, (uint64_t)THREADS * 5 * PER_THREAD);
}

#define LOG_SLOTS 1000
static struct {
	struct profrun_log head;
	uint64_t keys[LOG_SLOTS];
} logbuf;

static void *
hammer_log(void *arg)
{
	const struct collect *c = arg;

	for (int n = 0; n < PER_THREAD; n++)
		collect_count(c,
			      n % 3 ? OFFSET + 6 : (uintptr_t)0x7f0000001000u);
	return NULL;
}

/* The log takes the first LOG_SLOTS samples, from racing threads, each
 * in a slot of its own; the rest land in the histogram and the PC table;
 * the three add up to every sample, and the outside ones are counted. */
static void
log_takes_the_first_samples_then_the_tables(void)
{
	struct collect c = make_collect(PROFRUN_WRAP_SLOTS);
	pthread_t t[THREADS];
	uint64_t inside = 0, outside = 0, total;

	memset(&logbuf, 0, sizeof(logbuf));
	logbuf.head.slot_count = LOG_SLOTS;
	c.log = &logbuf.head;
	c.log_keys = logbuf.keys;
	c.log_slots = LOG_SLOTS;
	hdr.mod_generation = 3;
	for (int i = 0; i < THREADS; i++)
		pthread_create(&t[i], NULL, hammer_log, &c);
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	total = (uint64_t)THREADS * PER_THREAD;
	CHECK(logbuf.head.claimed >= LOG_SLOTS);
	for (int i = 0; i < LOG_SLOTS; i++) {
		uint64_t pc = logbuf.keys[i] & PROFRUN_PC_MASK;

		CHECK_EQ(logbuf.keys[i] >> PROFRUN_PC_BITS, 3);
		CHECK(pc == OFFSET + 6 || pc == 0x7f0000001000u);
		inside += pc == OFFSET + 6;
		outside += pc != OFFSET + 6;
	}
	inside += collect_exact_count(hist, tab, PROFRUN_WRAP_SLOTS, 3);
	for (int i = 0; i < PC_SLOTS; i++)
		if ((pcs[i].key & PROFRUN_PC_MASK) == 0x7f0000001000u)
			outside += pcs[i].count;
	CHECK_EQ(inside + outside, total);
	CHECK_EQ(hdr.samples_total, total);
	CHECK_EQ(hdr.samples_outside, outside);
	CHECK_EQ(outside, (uint64_t)THREADS * ((PER_THREAD + 2) / 3));
	/* a log of 0 slots (a member without one) takes nothing */
	c = make_collect(PROFRUN_WRAP_SLOTS);
	collect_count(&c, OFFSET + 6);
	CHECK_EQ(hist[3], 1);
}

int
main(void)
{
	count_is_exact_across_a_wrap();
	three_wraps_and_neighbours();
	outside_samples_are_counted();
	full_table_counts_lost_wraps();
	counts_below_a_wrap_record_no_wrap();
	concurrent_records_all_land();
	concurrent_pcs_land_or_are_counted();
	concurrent_counts_into_one_bucket_are_exact();
	log_takes_the_first_samples_then_the_tables();
	CHECK_DONE();
}

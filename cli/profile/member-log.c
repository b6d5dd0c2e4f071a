/* SPDX-License-Identifier: MIT */
/*
 * The sample log of a member file (struct profrun_log, region kind
 * PROFRUN_REGION_LOG, found only through the region list): the first
 * samples of the process, one key each.  Each is added where the shim
 * would have counted it had the log been full: a key whose PC lies in the
 * histogram's range to that bucket, any other to that PC in the table of
 * outside PCs.  A file without the region holds all its samples there.
 */
#include <stdlib.h>
#include <string.h>

#include "profile.h"

/* 16 times PROFRUN_LOG_SLOTS: a log's keys take at most 512 KiB, and the
 * reader twice that (docs/format.md, Limits of the reader). */
#define PROFILE_MAX_LOG_SLOTS (1u << 16)

static int
cmp_sample(const void *a, const void *b)
{
	const struct profile_sample *x = a, *y = b;

	return (x->addr > y->addr) - (x->addr < y->addr);
}

/* Add one sample at each of the N bucket indices IDX to P's samples,
 * which stay sorted by address with one entry per bucket. */
static int
add_buckets(struct profile *p, const uint64_t *idx, size_t n, char *err,
	    size_t errlen)
{
	struct profile_sample *s;
	size_t out = 0;

	if (n == 0)
		return 0;
	s = realloc(p->samples, (p->nsamples + n) * sizeof(*s));
	if (!s)
		return profile_fail(err, errlen, "out of memory");
	p->samples = s;
	for (size_t i = 0; i < n; i++) {
		s[p->nsamples + i].addr = profrun_bucket_addr(&p->hdr, idx[i]);
		s[p->nsamples + i].count = 1;
	}
	p->nsamples += n;
	qsort(s, p->nsamples, sizeof(*s), cmp_sample);
	for (size_t i = 0; i < p->nsamples; i++) {
		if (out > 0 && s[out - 1].addr == s[i].addr)
			s[out - 1].count += s[i].count;
		else
			s[out++] = s[i];
	}
	p->nsamples = out;
	p->main += n;
	return 0;
}

/* The slots of a log whose head is HEAD and whose region is of SIZE
 * bytes: slot_count, or what the region holds when the writer left it 0;
 * returns 0, or -1 with a reason in ERR when slot_count does not fit the
 * region. */
static int
log_slots(const struct profrun_log *head, uint64_t size, uint64_t *slots,
	  char *err, size_t errlen)
{
	uint64_t room = (size - sizeof(*head)) / sizeof(uint64_t);

	if (head->slot_count > room)
		return profile_fail(err, errlen,
				    "sample log of %u slots does not fit its "
				    "region",
				    head->slot_count);
	*slots = head->slot_count ? head->slot_count : room;
	return 0;
}

/* The log whose head and first keys are at REC, of which N keys (its
 * slots claimed) are there, into P. */
static int
apply_log(const uint8_t *rec, uint64_t n, struct profile *p, char *err,
	  size_t errlen)
{
	return profile_add_keys(
		p, (const uint64_t *)(rec + sizeof(struct profrun_log)), n, err,
		errlen);
}

int
profile_add_keys(struct profile *p, const uint64_t *from, uint64_t n, char *err,
		 size_t errlen)
{
	const struct profrun_header *h = &p->hdr;
	uint64_t inside = 0, outside = 0;
	uint64_t start = h->text_start + h->load_bias;
	uint64_t *keys, *out;
	int ret;

	if (n == 0)
		return 0;
	keys = malloc(2 * n * sizeof(*keys));
	if (!keys)
		return profile_fail(err, errlen, "out of memory");
	out = keys + n;
	memcpy(keys, from, n * sizeof(*keys));
	/* inside keys become bucket indices (in place: never ahead of the
	 * key read), outside ones stay keys, in OUT */
	for (uint64_t i = 0; i < n; i++) {
		uint64_t key = keys[i], pc = key & PROFRUN_PC_MASK, b;

		if (key == 0)
			continue; /* claimed, never stored */
		if (pc == 0) {
			free(keys);
			return profile_fail(err, errlen,
					    "sample log slot %llu is bad "
					    "(key 0x%llx)",
					    (unsigned long long)i,
					    (unsigned long long)key);
		}
		b = pc >= start ? (pc - start) / h->bucket_size : h->nbuckets;
		if (b < h->nbuckets)
			keys[inside++] = b;
		else
			out[outside++] = key;
	}
	ret = add_buckets(p, keys, inside, err, errlen) ||
	      profile_add_outside(p, out, outside, err, errlen);
	free(keys);
	if (ret == 0 && p->main + p->outside >= PLAUSIBLE_SAMPLES)
		ret = profile_fail(err, errlen, "implausible sample counts");
	return ret ? -1 : 0;
}

int
profile_parse_log(const uint8_t *buf, size_t avail, struct profile *p,
		  char *err, size_t errlen)
{
	const struct profrun_header *h = &p->hdr;
	struct profrun_region e;
	struct profrun_log head;
	uint64_t slots = 0;
	bool later;

	if (!profile_find_region(buf, h, PROFRUN_REGION_LOG, &e))
		return 0;
	if (profile_region_later(&e, sizeof(head), PROFILE_MAX_LOG_SLOTS, avail,
				 "sample log", &p->log_off, &p->log_size,
				 &later, err, errlen))
		return -1;
	if (later)
		return 0; /* read later, from the file */
	memcpy(&head, buf + e.off, sizeof(head));
	if (log_slots(&head, e.size, &slots, err, errlen))
		return -1;
	return apply_log(buf + e.off,
			 head.claimed < slots ? head.claimed : slots, p, err,
			 errlen);
}

int
profile_log_load(int fd, struct profile *p, char *err, size_t errlen)
{
	struct profrun_log head;
	uint64_t n = 0, size;
	uint8_t *rec;
	int ret;

	if (p->log_size == 0)
		return 0;
	if (profile_pread_all(fd, &head, sizeof(head), p->log_off))
		return profile_fail(err, errlen, "sample log: read error");
	if (log_slots(&head, p->log_size, &n, err, errlen))
		return -1;
	/* only the keys claimed: a short process's log is a page */
	if (head.claimed < n)
		n = head.claimed;
	if (n == 0) {
		p->log_size = 0;
		return 0;
	}
	size = sizeof(head) + n * sizeof(uint64_t);
	rec = malloc(size);
	if (!rec)
		return profile_fail(err, errlen, "out of memory");
	ret = profile_pread_all(fd, rec, size, p->log_off);
	if (ret)
		ret = profile_fail(err, errlen, "sample log: read error");
	else
		ret = apply_log(rec, n, p, err, errlen);
	free(rec);
	p->log_size = 0;
	return ret;
}

/* SPDX-License-Identifier: MIT */
/*
 * The timeline of a member file (region kind PROFRUN_REGION_TIMELINE,
 * found only through the region list): entries below a head at the
 * region's end, the n-th sample claimed n-th below it, each a key (as in
 * the log) and when it was taken, on which thread.  Read from the file
 * after the rest (it lies past what the header places), only the entries
 * claimed, and sorted by time.
 */
#include <stdlib.h>
#include <string.h>

#include "profile.h"

/* 16 times PROFRUN_TIMELINE_SLOTS: 16 MiB of entries claimed, and the
 * reader's ticks beside them (docs/format.md, Limits of the reader). */
#define PROFILE_MAX_TIMELINE_SLOTS (1u << 20)

#define NS_MASK ((1ull << PROFRUN_TIMELINE_NS_BITS) - 1)

int
profile_parse_timeline(const uint8_t *buf, struct profile *p, char *err,
		       size_t errlen)
{
	struct profrun_region e;

	if (!profile_find_region(buf, &p->hdr, PROFRUN_REGION_TIMELINE, &e))
		return 0;
	if (e.size < sizeof(struct profrun_timeline) ||
	    (e.size - sizeof(struct profrun_timeline)) %
			    sizeof(struct profrun_timeline_entry) !=
		    0 ||
	    (e.size - sizeof(struct profrun_timeline)) /
			    sizeof(struct profrun_timeline_entry) >
		    PROFILE_MAX_TIMELINE_SLOTS)
		return profile_fail(err, errlen, "timeline of %llu bytes",
				    (unsigned long long)e.size);
	p->timeline_off = e.off;
	p->timeline_size = e.size;
	return 0;
}

static int
cmp_tick(const void *a, const void *b)
{
	const struct profile_tick *x = a, *y = b;

	return (x->t_ns > y->t_ns) - (x->t_ns < y->t_ns);
}

void
profile_sort_ticks(struct profile *p)
{
	qsort(p->ticks, p->nticks, sizeof(*p->ticks), cmp_tick);
}

/* The N entries E (E[0] the first claimed) into P's ticks: times
 * unwrapped (they are kept modulo 2^48 ns), the slots never stored left
 * out, sorted by time (handlers on several CPUs store out of order). */
static int
read_entries(const struct profrun_timeline_entry *e, uint64_t n,
	     struct profile *p, uint32_t slots, char *err, size_t errlen)
{
	uint64_t epoch = 0, last = 0;

	p->ticks = malloc((n ? n : 1) * sizeof(*p->ticks));
	if (p->ticks == NULL)
		return profile_fail(err, errlen, "out of memory");
	for (uint64_t i = 0; i < n; i++) {
		uint64_t key = e[i].key, t = e[i].when & NS_MASK;
		uint32_t th = (uint32_t)(e[i].when >> PROFRUN_TIMELINE_NS_BITS);

		if (key == 0)
			continue;
		if ((key & PROFRUN_PC_MASK) == 0 ||
		    (th != PROFRUN_TIMELINE_NO_THREAD && th >= slots))
			return profile_fail(err, errlen,
					    "timeline entry %llu is bad",
					    (unsigned long long)i);
		/* a time far below the last one came after a wrap */
		if (t + epoch + (NS_MASK >> 1) < last)
			epoch += NS_MASK + 1;
		t += epoch;
		last = t;
		p->ticks[p->nticks++] =
			(struct profile_tick){t, key, th, false};
	}
	profile_sort_ticks(p);
	return 0;
}

int
profile_timeline_load(int fd, struct profile *p, char *err, size_t errlen)
{
	struct profrun_timeline head;
	struct profrun_timeline_entry *e;
	uint64_t top, room, n;
	int ret;

	if (p->timeline_size == 0)
		return 0;
	top = p->timeline_off + p->timeline_size - sizeof(head);
	room = (top - p->timeline_off) / sizeof(*e);
	p->timeline_size = 0;
	if (profile_pread_all(fd, &head, sizeof(head), top))
		return profile_fail(err, errlen, "timeline: read error");
	if (head.slot_count > room)
		return profile_fail(err, errlen,
				    "timeline of %u slots does not fit its "
				    "region",
				    head.slot_count);
	if (head.slot_count)
		room = head.slot_count;
	n = head.claimed < room ? head.claimed : room;
	p->has_timeline = true;
	p->ticks_beyond = head.claimed - n;
	e = malloc((n ? n : 1) * sizeof(*e));
	if (e == NULL)
		return profile_fail(err, errlen, "out of memory");
	/* entry i is the i-th below the head: read them as one block, then
	 * turn it around */
	ret = profile_pread_all(fd, e, n * sizeof(*e), top - n * sizeof(*e));
	if (ret) {
		free(e);
		return profile_fail(err, errlen, "timeline: read error");
	}
	for (uint64_t i = 0; i < n / 2; i++) {
		struct profrun_timeline_entry t = e[i];

		e[i] = e[n - 1 - i];
		e[n - 1 - i] = t;
	}
	ret = read_entries(e, n, p, p->hdr.thread_slots, err, errlen);
	free(e);
	return ret;
}

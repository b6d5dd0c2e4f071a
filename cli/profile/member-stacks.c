/* SPDX-License-Identifier: MIT */
/*
 * The stack area of a member (struct profrun_stacks, profrun -g): its head
 * checked, then its committed slots handed out one at a time, read from
 * the file in chunks so that memory does not grow with the area.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "profile.h"

#define EM_X86_64_  62
#define EM_AARCH64_ 183
#define EM_RISCV_   243
#define MAX_COUNT   1001u /* a sample and at most 1000 overruns */
/* The largest slot: the head, the most registers after it and 64 KiB of
 * stack, in whole 64 bytes (what the shim makes for the largest stack it
 * copies). */
#define MAX_SLOT                                                               \
	((sizeof(struct profrun_stack_slot) +                                  \
	  (PROFRUN_STACK_REGS_MAX - PROFRUN_STACK_REGS) * 8 + 65536 + 63) /    \
	 64 * 64)
#define CHUNK		  (4u * 1024 * 1024) /* bytes of slots read at once */
#define MAX_FRAMES_REGION (512ull << 20)     /* unwound stacks read whole */

/* The registers a slot of MACHINE holds (DWARF order), or 0 for a
 * machine this reader cannot unwind. */
static uint32_t
machine_regs(uint32_t machine)
{
	switch (machine) {
	case EM_X86_64_:
		return PROFRUN_STACK_REGS;
	case EM_AARCH64_:
	case EM_RISCV_:
		return 33;
	default:
		return 0;
	}
}

/* Check the head H of an area of SIZE bytes; an area of another
 * architecture or layout is noted, not refused. */
static int
check_head(struct profile *p, const struct profrun_stacks *h, uint64_t size,
	   char *err, size_t errlen)
{
	struct profile_stack_area *a = &p->stacks;
	uint64_t need, extra = (uint64_t)(h->nregs - PROFRUN_STACK_REGS) * 8;

	if (machine_regs(h->arch) == 0 || h->nregs != machine_regs(h->arch)) {
		p->stacks_note = strdup(
			"its stacks were recorded on another architecture, "
			"which profrun cannot unwind");
		return p->stacks_note
			       ? 0
			       : profile_fail(err, errlen, "out of memory");
	}
	if (h->stack_max > 65536 || h->stack_max % 8 != 0 ||
	    h->slot_size % 64 != 0 || h->slot_size > MAX_SLOT ||
	    h->slot_size <
		    sizeof(struct profrun_stack_slot) + extra + h->stack_max)
		return profile_fail(
			err, errlen,
			"stack area has bad slots (%u bytes for %u-byte stacks, "
			"at most %zu)",
			h->slot_size, h->stack_max, MAX_SLOT);
	need = sizeof(*h) + (uint64_t)h->slot_count * h->slot_size;
	if (need > size)
		return profile_fail(
			err, errlen,
			"stack area of %llu bytes cannot hold %u slots of %u bytes",
			(unsigned long long)size, h->slot_count, h->slot_size);
	if (h->offered >= PLAUSIBLE_SAMPLES || h->dropped > h->offered ||
	    h->failed > h->offered)
		return profile_fail(err, errlen, "implausible stack counts");
	a->slot_size = h->slot_size;
	a->machine = h->arch;
	a->nregs = h->nregs;
	/* slot i is first written by offered sample i: the slots past the
	 * samples offered were never written */
	a->slot_count = h->offered < h->slot_count ? (uint32_t)h->offered
						   : h->slot_count;
	a->stack_max = h->stack_max;
	a->offered = h->offered;
	a->dropped = h->dropped;
	a->failed = h->failed;
	p->has_stacks = true;
	return 0;
}

int
profile_parse_stacks(const uint8_t *buf, size_t avail, struct profile *p,
		     const struct profrun_region *e, char *err, size_t errlen)
{
	struct profrun_stacks h;

	if (e->version != 1)
		return 0; /* a newer layout: the flat profile stands alone */
	if (e->size < sizeof(h))
		return profile_fail(err, errlen, "stack area too small");
	if (e->off < profile_known_end(&p->hdr))
		return profile_fail(err, errlen,
				    "stack area overlaps the other regions");
	p->stacks.off = e->off;
	p->stacks.size = e->size;
	if (e->off + e->size > avail)
		return 0; /* read from the file later */
	memcpy(&h, buf + e->off, sizeof(h));
	if (check_head(p, &h, e->size, err, errlen))
		return -1;
	if (!p->has_stacks)
		return 0;
	p->stacks.mem = malloc(e->size - sizeof(h) ? e->size - sizeof(h) : 1);
	if (!p->stacks.mem)
		return profile_fail(err, errlen, "out of memory");
	memcpy(p->stacks.mem, buf + e->off + sizeof(h), e->size - sizeof(h));
	return 0;
}

int
profile_pread_all(int fd, void *buf, size_t n, uint64_t off)
{
	size_t done = 0;

	while (done < n) {
		ssize_t r = pread(fd, (char *)buf + done, n - done,
				  (off_t)(off + done));

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -1;
		if (r == 0) {
			errno = 0; /* the file ended first (it shrank) */
			return -1;
		}
		done += (size_t)r;
	}
	return 0;
}

/* Check the unwound stacks of P at BUF (the whole region): every record
 * inside it, with at least one PC, adding up to the head's count. */
static int
check_frames(struct profile *p, const uint8_t *buf, char *err, size_t errlen)
{
	struct profile_frames *f = &p->frames;
	struct profrun_frames h;
	struct profrun_frame_record r;
	uint64_t off = sizeof(h), sum = 0;

	memcpy(&h, buf, sizeof(h));
	for (uint32_t i = 0; i < h.record_count; i++) {
		if (f->size - off < sizeof(r))
			return profile_fail(
				err, errlen,
				"unwound stack %u beyond its region", i);
		memcpy(&r, buf + off, sizeof(r));
		off += sizeof(r);
		if (r.n == 0 || r.count == 0 || (f->size - off) / 8 < r.n)
			return profile_fail(
				err, errlen,
				"unwound stack %u is bad (%u PCs, %u samples)",
				i, r.n, r.count);
		off += (uint64_t)r.n * 8;
		sum += r.count;
	}
	if (sum != h.stacks || h.stacks > h.samples ||
	    h.samples >= PLAUSIBLE_SAMPLES || h.stack_max > 65536)
		return profile_fail(err, errlen,
				    "implausible counts of unwound stacks");
	f->count = h.record_count;
	f->stack_max = h.stack_max;
	f->stacks = h.stacks;
	f->samples = h.samples;
	p->has_frames = true;
	return 0;
}

int
profile_parse_frames(const uint8_t *buf, size_t avail, struct profile *p,
		     const struct profrun_region *e, char *err, size_t errlen)
{
	if (e->version != 1)
		return 0;
	if (e->size < sizeof(struct profrun_frames))
		return profile_fail(err, errlen, "unwound stacks too small");
	if (e->size > MAX_FRAMES_REGION)
		return profile_fail(
			err, errlen,
			"unwound stacks of %llu bytes (at most %llu)",
			(unsigned long long)e->size,
			(unsigned long long)MAX_FRAMES_REGION);
	if (e->off < profile_known_end(&p->hdr))
		return profile_fail(err, errlen,
				    "unwound stacks overlap the other regions");
	p->frames.off = e->off;
	p->frames.size = e->size;
	if (e->off + e->size > avail)
		return 0; /* read from the file later */
	p->frames.mem = malloc(e->size);
	if (!p->frames.mem)
		return profile_fail(err, errlen, "out of memory");
	memcpy(p->frames.mem, buf + e->off, e->size);
	return check_frames(p, p->frames.mem, err, errlen);
}

int
profile_frames_each(const struct profile *p,
		    int (*fn)(void *ctx, uint32_t count, const uint64_t *pcs,
			      size_t n),
		    void *ctx)
{
	const uint8_t *buf = p->frames.mem;
	uint64_t off = sizeof(struct profrun_frames);
	struct profrun_frame_record r;
	int ret;

	if (!p->has_frames)
		return 0;
	for (uint32_t i = 0; i < p->frames.count; i++) {
		memcpy(&r, buf + off, sizeof(r));
		off += sizeof(r);
		/* 8-byte aligned: the head is 48 bytes, a record 8 + 8 n */
		ret = fn(ctx, r.count, (const uint64_t *)(buf + off), r.n);
		off += (uint64_t)r.n * 8;
		if (ret)
			return ret;
	}
	return 0;
}

/* The records of P's unwound stacks, from FD: only when the file holds
 * all of them (merge writes them whole), not a hole claimed to hold
 * them. */
static int
load_frames(int fd, struct profile *p, char *err, size_t errlen)
{
	off_t hole;

	if (p->frames.size == 0 || p->frames.mem)
		return 0;
	hole = lseek(fd, (off_t)p->frames.off, SEEK_HOLE);
	if (hole >= 0 && (uint64_t)hole < p->frames.off + p->frames.size)
		return profile_fail(err, errlen,
				    "unwound stacks of %llu bytes claimed, "
				    "the file holds %llu",
				    (unsigned long long)p->frames.size,
				    (unsigned long long)hole - p->frames.off);
	p->frames.mem = malloc(p->frames.size);
	if (!p->frames.mem)
		return profile_fail(err, errlen, "out of memory");
	if (profile_pread_all(fd, p->frames.mem, p->frames.size, p->frames.off))
		return profile_fail(err, errlen,
				    "cannot read its unwound stacks");
	return check_frames(p, p->frames.mem, err, errlen);
}

int
profile_stacks_load(int fd, struct profile *p, char *err, size_t errlen)
{
	struct profrun_stacks h;

	if (load_frames(fd, p, err, errlen))
		return -1;
	if (p->stacks.size == 0 || p->has_stacks || p->stacks_note)
		return 0;
	if (profile_pread_all(fd, &h, sizeof(h), p->stacks.off))
		return profile_fail(err, errlen, "cannot read its stack area");
	return check_head(p, &h, p->stacks.size, err, errlen);
}

/* Hand the committed slots among the N at BUF to FN. */
static int
each_slot(const struct profile *p, const uint8_t *buf, size_t n,
	  int (*fn)(void *, const struct profile_stack *), void *ctx)
{
	const struct profile_stack_area *a = &p->stacks;
	struct profrun_stack_slot head;
	struct profile_stack s;
	int r;

	for (size_t i = 0; i < n; i++) {
		const uint8_t *slot = buf + i * (size_t)a->slot_size;

		memcpy(&head, slot, sizeof(head));
		if (p->windowed && (!(head.flags & PROFRUN_STACK_TIMED) ||
				    head.time_ns < p->window_lo ||
				    head.time_ns >= p->window_hi))
			continue;
		if (head.commit == 0 || head.size > a->stack_max ||
		    head.count == 0 || head.count > MAX_COUNT)
			continue;
		s.tid = head.tid;
		s.flags = head.flags;
		s.count = head.count;
		s.gen = head.gen;
		s.sp = head.sp;
		s.time_ns = head.time_ns;
		memset(s.regs, 0, sizeof(s.regs));
		memcpy(s.regs, head.regs, sizeof(head.regs));
		/* the registers past the head's, then the stack */
		memcpy(s.regs + PROFRUN_STACK_REGS, slot + sizeof(head),
		       (a->nregs - PROFRUN_STACK_REGS) * 8);
		s.data = slot + sizeof(head) +
			 (a->nregs - PROFRUN_STACK_REGS) * 8;
		s.size = head.size;
		r = fn(ctx, &s);
		if (r)
			return r;
	}
	return 0;
}

int
profile_stacks_each(const struct profile *p,
		    int (*fn)(void *ctx, const struct profile_stack *s),
		    void *ctx, char *err, size_t errlen)
{
	const struct profile_stack_area *a = &p->stacks;
	size_t per, done = 0;
	uint8_t *buf;
	struct stat st;
	int fd, r = 0;

	if (!p->has_stacks || a->slot_count == 0)
		return 0;
	if (a->mem)
		return each_slot(p, a->mem, a->slot_count, fn, ctx);
	fd = profile_open(p->path, &st, err, errlen);
	if (fd < 0)
		return -1;
	if ((uint64_t)st.st_dev != p->dev || (uint64_t)st.st_ino != p->ino ||
	    (uint64_t)st.st_size < a->off + a->size) {
		close(fd);
		return profile_fail(err, errlen, "changed since it was read");
	}
	per = CHUNK / a->slot_size ? CHUNK / a->slot_size : 1;
	buf = malloc(per * a->slot_size);
	if (!buf) {
		close(fd);
		return profile_fail(err, errlen, "out of memory");
	}
	while (r == 0 && done < a->slot_count) {
		uint64_t at = a->off + sizeof(struct profrun_stacks) +
			      (uint64_t)done * a->slot_size;
		off_t data = lseek(fd, (off_t)at, SEEK_DATA);
		size_t n;

		/* holes (slots given back unused, or never written) hold
		 * no stack: skip them */
		if (data < 0 && errno == ENXIO)
			break;
		if (data > 0 && (uint64_t)data >= at + a->slot_size) {
			/* to the slot that holds the data */
			done += ((uint64_t)data - at) / a->slot_size;
			continue;
		}
		n = a->slot_count - done < per ? a->slot_count - done : per;

		if (profile_pread_all(fd, buf, n * a->slot_size,
				      a->off + sizeof(struct profrun_stacks) +
					      (uint64_t)done * a->slot_size)) {
			r = profile_fail(err, errlen,
					 "cannot read its stack area");
			break;
		}
		r = each_slot(p, buf, n, fn, ctx);
		done += n;
	}
	free(buf);
	close(fd);
	return r;
}

/* SPDX-License-Identifier: MIT */
/*
 * The member's blocks, reserved as they come to be needed.
 *
 * A store into a page of the shared mapping whose block the disk cannot
 * give raises SIGBUS, so every byte the shim stores into was reserved
 * (fallocate) before.  Reserving the whole member at start and giving its
 * unwritten pages back at exit cost each process most of its start-up; a
 * process that takes no sample writes two pages.  So:
 *
 *   at start   what is written before the first sample: the header's
 *              page (strings, command line, region list, the first
 *              module records), the page where the module paths meet the
 *              first thread records, the stack area's head and the pause
 *              record when they are written from the start (the aggregate
 *              thread record, past the last slot, when a thread first
 *              needs it: reserve_room);
 *   the first  the page of the timeline's and the log's heads (the first
 *   samples    START_KEYS samples): by the handler of the first sample, so
 *              that a process that takes none (most short ones) makes no
 *              call for it at start and has nothing to give back at exit;
 *   the rest   (histogram, PC table, further records, the vdso image, the
 *              JIT ranges, the children) before the first store into it:
 *              by the handler once START_KEYS samples are in, long before
 *              the log is full, or by whoever stores first outside the
 *              start set (reserve_room);
 *   the stack slots (-g) in STACK_CHUNK steps ahead of the slots claimed.
 *
 * The handler may reserve: the member is opened again by its path (the
 * same file: device and inode checked), through the system-call entry
 * only, and closed at once.  When the disk has no room (ENOSPC, or the
 * file system refuses fallocate later on), profiling stops there: a note
 * says why, what was counted stays, and the handler counts nothing more.
 *
 * A seccomp filter may refuse those system calls: before the program
 * installs one (prctl, syscall(SYS_seccomp) and syscall(SYS_prctl)
 * interposed) or when one is in force at start, every block is reserved
 * at once.  A filter installed by an inline system call is not seen: a
 * later reservation it refuses stops profiling as a full disk does.
 * A file system without fallocate gets every block at start, as zeros.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdbool.h>
#include <sys/auxv.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "shim.h"
#include "member/member.h"
#include "sys.h"

#define START_MODULES 16u	     /* module records reserved at start */
#define START_MODSTR  2048u	     /* bytes of their paths */
#define START_THREADS 32u	     /* thread records */
#define START_KEYS    128u	     /* samples before the rest is reserved */
#define STACK_CHUNK   (512u * 1024u) /* stack slots reserved per step */
#define MAX_START     5u
#define MAX_EXTRA     5u /* pages reserved one store at a time, then all */

enum rest_state { REST_NO, REST_BUSY, REST_DONE, REST_FAILED };

static struct {
	char *base;	  /* the member, NULL: none */
	const char *dir;  /* run directory (shim.c's) */
	const char *name; /* member name (shim.c's) */
	dev_t dev;
	ino_t ino;
	uint32_t note_area;
	uint64_t size;
	uint64_t page;
	struct extent start[MAX_START];
	uint32_t nstart;
	struct extent first; /* the first samples' page (reserve_first) */
	int first_state;     /* enum rest_state */
	struct extent extra[MAX_EXTRA]; /* reserved since, outside the rest */
	uint32_t nextra;		/* published after its entry */
	int extra_busy;
	uint64_t rest_hi;	       /* the rest: [0, rest_hi) */
	uint64_t stacks_lo, stacks_hi; /* the stack slots */
	uint64_t stacks_done;	       /* reserved up to here */
	int rest;		       /* enum rest_state */
	int stack_busy;		       /* a thread extends stacks_done */
	uint64_t keys;		       /* samples admitted before the rest */
} rv;

static uint64_t
page_down(uint64_t x, uint64_t page)
{
	return x & ~(page - 1);
}

static uint64_t
page_up(uint64_t x, uint64_t page)
{
	return (x + page - 1) & ~(page - 1);
}

/* Add [LO, HI) to the start set, in whole pages of PAGE bytes. */
static void
add_start(uint64_t lo, uint64_t hi, uint64_t page)
{
	if (hi <= lo || rv.nstart >= MAX_START)
		return;
	lo = page_down(lo, page);
	hi = page_up(hi, page);
	if (hi > rv.size)
		hi = rv.size;
	rv.start[rv.nstart++] = (struct extent){lo, hi};
}

/* Whether [LO, HI) lies in one extent of the start set or of those
 * reserved since.  Async-signal-safe. */
static bool
in_start(uint64_t lo, uint64_t hi)
{
	uint32_t n = __atomic_load_n(&rv.nextra, __ATOMIC_ACQUIRE);

	if (__atomic_load_n(&rv.first_state, __ATOMIC_ACQUIRE) == REST_DONE &&
	    lo >= rv.first.lo && hi <= rv.first.hi)
		return true;
	for (uint32_t i = 0; i < rv.nstart; i++)
		if (lo >= rv.start[i].lo && hi <= rv.start[i].hi)
			return true;
	for (uint32_t i = 0; i < n && i < MAX_EXTRA; i++)
		if (lo >= rv.extra[i].lo && hi <= rv.extra[i].hi)
			return true;
	return false;
}

/* fallocate [LO, HI) of FD through the system-call entry.  Returns 0 or
 * -errno; errno is preserved.  Async-signal-safe. */
static int
allocate(int fd, uint64_t lo, uint64_t hi)
{
	int saved = errno, r = 0;

	if (hi > lo &&
	    syscall(SYS_fallocate, fd, 0, (long)lo, (long)(hi - lo)) < 0)
		r = -errno;
	errno = saved;
	return r;
}

/* The member, opened again as the same file, or -errno.
 * Async-signal-safe (system-call entry only). */
static int
open_member(void)
{
	int saved = errno;
	long dfd, fd;
	struct stat st;

	dfd = syscall(SYS_openat, AT_FDCWD, rv.dir,
		      O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0) {
		fd = -errno;
		errno = saved;
		return (int)fd;
	}
	fd = syscall(SYS_openat, dfd, rv.name,
		     O_RDWR | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		fd = -errno;
	syscall(SYS_close, dfd);
	if (fd >= 0 &&
	    (syscall(SYS_newfstatat, fd, "", &st, AT_EMPTY_PATH) < 0 ||
	     st.st_dev != rv.dev || st.st_ino != rv.ino)) {
		syscall(SYS_close, fd);
		fd = -ESTALE;
	}
	errno = saved;
	return (int)fd;
}

/* Reserve [LO, HI) of the member.  Async-signal-safe. */
static int
reserve_range(uint64_t lo, uint64_t hi)
{
	int fd, r;

	if (hi <= lo)
		return 0;
	fd = open_member();
	if (fd < 0)
		return fd;
	r = allocate(fd, lo, hi);
	syscall(SYS_close, fd);
	return r;
}

/* The note that says why profiling stopped (ERR: the failed call's
 * -errno), copied by hand (no library call: the handler may get here);
 * the first reason stays.  Async-signal-safe. */
static void
stop_note(int err)
{
	static const char full[] =
		"profiling stopped: no disk space for the rest of the profile (or its reservation refused); the samples before are kept";
	static const char gone[] =
		"profiling stopped: room for more samples could not be reserved in the profile (the process changed its user or root, ran out of descriptors, or a filter refused the call); the samples before are kept";
	const char *note =
		err == -ENOSPC || err == -EDQUOT || err == -EFBIG ? full : gone;
	struct profrun_header *h = (struct profrun_header *)rv.base;
	volatile char *dst;
	uint32_t none = 0, i;

	if (h == NULL || rv.note_area == 0)
		return;
	dst = rv.base + rv.note_area;
	/* claimed by a store of the offset only after the text is in:
	 * a racing writer_set_note keeps its own (the first) */
	if (__atomic_load_n(&h->note_off, __ATOMIC_ACQUIRE) != none)
		return;
	for (i = 0; note[i] != '\0' && i + 1 < SHIM_NOTE_MAX; i++)
		dst[i] = note[i];
	dst[i] = '\0';
	__atomic_compare_exchange_n(&h->note_off, &none, rv.note_area, false,
				    __ATOMIC_RELEASE, __ATOMIC_RELAXED);
	__atomic_or_fetch(&h->flags, PROFRUN_F_STOPPED, __ATOMIC_RELEASE);
}

/* Profiling stops for lack of room (ERR as stop_note): every later
 * reservation and sample refused, and the note.  Async-signal-safe. */
static void
stop_for(int err)
{
	__atomic_store_n(&rv.rest, REST_FAILED, __ATOMIC_RELEASE);
	stop_note(err);
}

/* Reserve the rest once; WAIT: for another thread reserving it (never
 * from the handler, which may have interrupted that very thread).
 * Async-signal-safe. */
static bool
reserve_rest(bool wait)
{
	int s = __atomic_load_n(&rv.rest, __ATOMIC_ACQUIRE), r;

	for (;;) {
		if (s == REST_DONE)
			return true;
		if (s == REST_FAILED || rv.base == NULL)
			return false;
		if (s == REST_NO && __atomic_compare_exchange_n(
					    &rv.rest, &s, REST_BUSY, false,
					    __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			break;
		if (s == REST_BUSY) {
			if (!wait)
				return false;
			syscall(SYS_sched_yield);
			s = __atomic_load_n(&rv.rest, __ATOMIC_ACQUIRE);
		}
	}
	r = reserve_range(0, rv.rest_hi);
	s = r == 0 ? REST_DONE : REST_FAILED;
	if (s == REST_FAILED)
		stop_note(r);
	__atomic_store_n(&rv.rest, s, __ATOMIC_RELEASE);
	return s == REST_DONE;
}

/* The first samples' page, by the handler of the first sample.  One that
 * comes on another thread while that one reserves it reserves it as well
 * (fallocate of a range already reserved changes nothing) rather than
 * wait or drop its sample.  Async-signal-safe. */
static bool
reserve_first(void)
{
	int s = __atomic_load_n(&rv.first_state, __ATOMIC_ACQUIRE), r;

	if (s == REST_DONE)
		return true;
	if (s == REST_FAILED || rv.base == NULL)
		return false;
	if (s != REST_NO ||
	    !__atomic_compare_exchange_n(&rv.first_state, &s, REST_BUSY, false,
					 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		return s == REST_DONE ||
		       (s != REST_FAILED &&
			reserve_range(rv.first.lo, rv.first.hi) == 0);
	r = reserve_range(rv.first.lo, rv.first.hi);
	if (r < 0)
		stop_for(r); /* as for the rest: profiling stops here */
	__atomic_store_n(&rv.first_state, r == 0 ? REST_DONE : REST_FAILED,
			 __ATOMIC_RELEASE);
	return r == 0;
}

/* Outside the handler, a store outside the start set reserves its own
 * pages (a child's record, a module's, a thread's) rather than the whole
 * rest, for the first MAX_EXTRA such ranges.  Returns 1 when reserved, 0
 * when the rest is to be reserved instead, -1 when the disk has no room.
 * Async-signal-safe. */
static int
reserve_extra(uint64_t lo, uint64_t hi)
{
	int busy = 0, r = 0;
	uint32_t n;

	while (!__atomic_compare_exchange_n(&rv.extra_busy, &busy, 1, false,
					    __ATOMIC_ACQ_REL,
					    __ATOMIC_RELAXED)) {
		busy = 0;
		syscall(SYS_sched_yield);
	}
	n = __atomic_load_n(&rv.nextra, __ATOMIC_ACQUIRE);
	lo = page_down(lo, rv.page);
	hi = page_up(hi, rv.page);
	if (hi > rv.size)
		hi = rv.size;
	if (in_start(lo, hi))
		r = 1;
	else if (n < MAX_EXTRA && reserve_range(lo, hi) == 0) {
		rv.extra[n] = (struct extent){lo, hi};
		__atomic_store_n(&rv.nextra, n + 1, __ATOMIC_RELEASE);
		r = 1;
	} else if (n < MAX_EXTRA)
		r = -1;
	__atomic_store_n(&rv.extra_busy, 0, __ATOMIC_RELEASE);
	return r;
}

/* The stack slots reserved through offset END at least (a chunk ahead);
 * WAIT as reserve_rest.  Async-signal-safe. */
static bool
reserve_stacks(uint64_t end, bool wait)
{
	uint64_t done, to;
	int busy, r;
	bool ok;

	for (;;) {
		done = __atomic_load_n(&rv.stacks_done, __ATOMIC_ACQUIRE);
		if (end <= done)
			return true;
		if (__atomic_load_n(&rv.rest, __ATOMIC_ACQUIRE) == REST_FAILED)
			return false;
		busy = 0;
		if (__atomic_compare_exchange_n(&rv.stack_busy, &busy, 1, false,
						__ATOMIC_ACQ_REL,
						__ATOMIC_RELAXED))
			break;
		if (!wait)
			return false;
		syscall(SYS_sched_yield);
	}
	done = __atomic_load_n(&rv.stacks_done, __ATOMIC_ACQUIRE);
	to = end <= done ? done : end + STACK_CHUNK;
	to = rv.stacks_lo + page_up(to - rv.stacks_lo, STACK_CHUNK);
	if (to > rv.stacks_hi)
		to = rv.stacks_hi;
	r = to <= done ? 0 : reserve_range(done, to);
	ok = r == 0;
	if (ok && to > done)
		__atomic_store_n(&rv.stacks_done, to, __ATOMIC_RELEASE);
	if (!ok) /* as for the rest: profiling stops here */
		stop_for(r);
	__atomic_store_n(&rv.stack_busy, 0, __ATOMIC_RELEASE);
	return ok;
}

/* Set before a seccomp filter goes in, kept by fork children. */
static bool filtered;

/* Async-signal-safe. */
bool
reserve_whole(uint32_t flags)
{
	long mode;

	if (filtered || (flags & RESERVE_ALL))
		return true;
	/* a filter in force since before this image: a refused query
	 * says as much as a yes */
	mode = syscall(SYS_prctl, PR_GET_SECCOMP, 0, 0, 0, 0);
	return mode != 0;
}

/* Not async-signal-safe (the first call: getauxval). */
int
reserve_open(int fd, void *base, const struct layout *l, const char *dir,
	     const char *name, uint32_t flags)
{
	uint64_t page = (uint64_t)getauxval(AT_PAGESZ), tl_top;
	struct stat st;
	int r = 0;

	if (page == 0 || (page & (page - 1)) != 0)
		page = 4096;
	reserve_detach();
	rv.dir = dir;
	rv.name = name;
	rv.size = l->file_size;
	rv.note_area = l->note_area;
	rv.page = page;
	rv.nstart = 0;
	rv.first_state = REST_NO;
	rv.nextra = 0;
	rv.extra_busy = 0;
	rv.keys = 0;
	rv.stack_busy = 0;
	rv.stacks_lo = rv.stacks_hi = rv.stacks_done = 0;
	rv.rest_hi = l->file_size;
	if (flags & RESERVE_ALL) {
		/* every block reserved by the writer already */
		rv.rest = REST_DONE;
		rv.first_state = REST_DONE;
		__atomic_store_n(&rv.base, base, __ATOMIC_RELEASE);
		return 0;
	}
	if (sys_fstat(fd, &st) < 0)
		return -errno;
	rv.dev = st.st_dev;
	rv.ino = st.st_ino;
	if (l->stacks_off != 0) {
		rv.stacks_lo = page_up(
			l->stacks_off + sizeof(struct profrun_stacks), page);
		rv.stacks_hi = l->stacks_off + l->stacks_size;
		if (rv.stacks_lo > rv.stacks_hi)
			rv.stacks_lo = rv.stacks_hi;
		rv.rest_hi = rv.stacks_lo;
	}
	rv.stacks_done = rv.stacks_lo;
	add_start(0,
		  l->modules_off +
			  START_MODULES * sizeof(struct profrun_module),
		  page);
	add_start(l->modstr_off + PROFRUN_MODSTR_SIZE - START_MODSTR,
		  l->threads_off +
			  START_THREADS * sizeof(struct profrun_thread),
		  page);
	tl_top = l->timeline_off + l->timeline_size -
		 sizeof(struct profrun_timeline);
	rv.first.lo = page_down(
		tl_top - START_KEYS * sizeof(struct profrun_timeline_entry),
		page);
	rv.first.hi = page_up(l->log_off + sizeof(struct profrun_log) +
				      START_KEYS * sizeof(uint64_t),
			      page);
	if (rv.first.hi > rv.size)
		rv.first.hi = rv.size;
	if (l->stacks_off != 0)
		add_start(l->stacks_off,
			  l->stacks_off + sizeof(struct profrun_stacks), page);
	if (flags & RESERVE_PAUSE)
		add_start(l->pause_off,
			  l->pause_off + sizeof(struct profrun_pause) +
				  PROFRUN_THREAD_SLOTS * sizeof(uint64_t),
			  page);
	for (uint32_t i = 0; r == 0 && i < rv.nstart; i++)
		r = allocate(fd, rv.start[i].lo, rv.start[i].hi);
	if (r == -EOPNOTSUPP || r == -ENOSYS) {
		/* no fallocate: written zeros, every block at once */
		r = writer_fill(fd, l->file_size);
		rv.stacks_lo = rv.stacks_hi = rv.stacks_done = 0;
		rv.rest_hi = rv.size;
		rv.rest = REST_DONE;
		rv.first_state = REST_DONE;
	} else
		rv.rest = REST_NO;
	if (r < 0)
		return r;
	__atomic_store_n(&rv.base, base, __ATOMIC_RELEASE);
	return 0;
}

/* Async-signal-safe. */
void
reserve_detach(void)
{
	__atomic_store_n(&rv.base, NULL, __ATOMIC_RELEASE);
	rv.rest = REST_FAILED;
}

/* Async-signal-safe. */
bool
reserve_room(const void *p, size_t len, bool wait)
{
	uint64_t lo, hi;

	if (rv.base == NULL || (const char *)p < rv.base)
		return false;
	lo = (uint64_t)((const char *)p - rv.base);
	hi = lo + len;
	if (hi > rv.size)
		return false;
	if (rv.stacks_lo != 0 && hi > rv.stacks_lo && lo < rv.stacks_hi)
		return reserve_stacks(hi, wait);
	if (__atomic_load_n(&rv.rest, __ATOMIC_ACQUIRE) == REST_DONE ||
	    in_start(lo, hi))
		return true;
	if (wait && __atomic_load_n(&rv.rest, __ATOMIC_ACQUIRE) == REST_NO) {
		int r = reserve_extra(lo, hi);

		if (r != 0)
			return r > 0;
	}
	return reserve_rest(wait);
}

/* Async-signal-safe. */
bool
reserve_has(const void *p, size_t len)
{
	uint64_t lo, hi;

	if (rv.base == NULL || (const char *)p < rv.base)
		return false;
	lo = (uint64_t)((const char *)p - rv.base);
	hi = lo + len;
	if (rv.stacks_lo != 0 && hi > rv.stacks_lo && lo < rv.stacks_hi)
		return hi <= __atomic_load_n(&rv.stacks_done, __ATOMIC_ACQUIRE);
	return hi <= rv.size &&
	       (__atomic_load_n(&rv.rest, __ATOMIC_ACQUIRE) == REST_DONE ||
		in_start(lo, hi));
}

/* Async-signal-safe. */
bool
reserve_sample(uint64_t n)
{
	int s = __atomic_load_n(&rv.rest, __ATOMIC_ACQUIRE);
	uint64_t keys;

	if (s == REST_DONE)
		return true;
	if (s == REST_FAILED || !reserve_first())
		return false;
	/* the first samples fit in their page, reserved by the first; the total
	 * admitted so, whichever threads take them, stays within them.  The
	 * rest is reserved from half of them on, so that the samples other
	 * threads take meanwhile still find room */
	keys = __atomic_add_fetch(&rv.keys, n, __ATOMIC_RELAXED);
	if (keys <= START_KEYS / 2 || reserve_rest(false))
		return true;
	return keys <= START_KEYS &&
	       __atomic_load_n(&rv.rest, __ATOMIC_ACQUIRE) != REST_FAILED;
}

/* Async-signal-safe. */
void
reserve_all(void)
{
	filtered = true;
	if (rv.base == NULL)
		return;
	if (reserve_rest(true) && rv.stacks_hi > rv.stacks_lo)
		reserve_stacks(rv.stacks_hi, true);
}

/* Async-signal-safe. */
size_t
reserve_held(struct extent *x)
{
	size_t n = 0;

	uint32_t extra = __atomic_load_n(&rv.nextra, __ATOMIC_ACQUIRE);

	if (__atomic_load_n(&rv.rest, __ATOMIC_ACQUIRE) == REST_DONE)
		x[n++] = (struct extent){0, rv.rest_hi};
	else {
		for (uint32_t i = 0; i < rv.nstart; i++)
			x[n++] = rv.start[i];
		if (__atomic_load_n(&rv.first_state, __ATOMIC_ACQUIRE) ==
		    REST_DONE)
			x[n++] = rv.first;
		for (uint32_t i = 0; i < extra && i < MAX_EXTRA; i++)
			x[n++] = rv.extra[i];
	}
	if (rv.stacks_done > rv.stacks_lo)
		x[n++] = (struct extent){rv.stacks_lo, rv.stacks_done};
	return n;
}

/* Async-signal-safe. */
int
reserve_again(void)
{
	struct extent x[RESERVE_MAX];
	size_t n = reserve_held(x);
	int fd = open_member(), r = 0;

	if (fd < 0)
		return fd;
	for (size_t i = 0; i < n && r == 0; i++)
		r = allocate(fd, x[i].lo, x[i].hi);
	syscall(SYS_close, fd);
	return r;
}

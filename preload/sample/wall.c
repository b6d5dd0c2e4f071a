/* SPDX-License-Identifier: MIT */
/*
 * Wall-clock profiles (PROFRUN_WALL=1, profrun --wall).  Running threads
 * are sampled by their CPU timers as always; a thread blocked in a system
 * call uses no CPU and gets no signal, and must not get one: a handler
 * run on a sleeping thread ends nanosleep, poll, epoll_wait or select
 * early with EINTR even under SA_RESTART (signal(7)).  So a sampler
 * thread of ours wakes every sampling interval and, for each thread with
 * a timer of ours, reads /proc/self/task/TID/syscall: "running" is left
 * to the CPU timer; "NR args SP PC" (or "-1 SP PC", blocked outside a
 * system call) is one blocked sample at PC, counted in the member's wall
 * region (struct profrun_wall) and, with -g, offered a stack slot with a
 * copy of the thread's stack (process_vm_readv: the stack does not move
 * while the thread is blocked; the copy is kept only if the thread is
 * still blocked at the same SP and PC after it).  The blocked thread is
 * never signalled, stopped or otherwise touched.
 *
 * The sampler blocks every signal, holds no lock of the program's or the
 * C library's (system calls and the shim's own memory only), and holds a
 * descriptor only for the span of one read (open with O_CLOEXEC, read,
 * close).  It is started by pthread_create (the real one: no record, no
 * timer, unseen by the program's pthread_create hooks), named
 * "profrun-wall", and detached; it ends with the process: at exit and
 * before an exec it is held (wall_hold) so that it writes nothing more,
 * without being waited for.  A fork child starts its own; an exec'd image
 * starts its own from its constructor.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "shim.h"
#include "sample/sample.h"
#include "sys.h"

#define WALL_STACK (256u * 1024) /* the sampler thread's stack */

typedef int (*pthread_create_fn)(pthread_t *, const pthread_attr_t *,
				 void *(*)(void *), void *);

static struct {
	bool on; /* --wall */
	struct profrun_header *hdr;
	struct profrun_wall *area; /* in the member, or NULL */
	struct profrun_blocked *runs;
	int64_t base_ns; /* CLOCK_MONOTONIC of the timeline's base */
	int hold;	 /* 1: take no sample */
	int busy;	 /* 1 while the sampler is taking samples */
	uint64_t wake;	 /* the sampler's wake count, from 1 */
	bool running;	 /* a sampler thread exists in this process */
} w;

/* Per thread record: the run its last sample went to (index + 1, 0 =
 * none), the wake of that sample, and the thread. */
static struct {
	uint32_t run;
	int tid;
	uint64_t wake;
} last[PROFRUN_THREAD_SLOTS] ARCH_LARGE_SECTION;

static pthread_create_fn real_pthread_create;

/* Not async-signal-safe (once, from the settings). */
void
wall_configure(bool on)
{
	w.on = on;
}

/* Pure. */
uint64_t
wall_area_size(void)
{
	if (!w.on)
		return 0;
	return sizeof(struct profrun_wall) +
	       PROFRUN_WALL_SLOTS * (uint64_t)sizeof(struct profrun_blocked);
}

/* Async-signal-safe. */
void
wall_attach(struct profrun_header *h, uint64_t off, int64_t base_ns)
{
	struct profrun_wall *a;

	if (!w.on || off == 0) {
		__atomic_store_n(&w.area, NULL, __ATOMIC_RELEASE);
		return;
	}
	a = (struct profrun_wall *)((char *)h + off);
	a->slot_count = PROFRUN_WALL_SLOTS;
	w.hdr = h;
	w.runs = (struct profrun_blocked *)(a + 1);
	w.base_ns = base_ns;
	memset(last, 0, sizeof(last));
	__atomic_store_n(&w.area, a, __ATOMIC_RELEASE);
}

/* ---------------------------------------------------------------- reading */

/* "/proc/self/task/TID/syscall" into PATH (48 bytes).  Pure. */
static void
syscall_path(char *path, int tid)
{
	static const char pre[] = "/proc/self/task/";
	char num[12];
	int k = 0, len = sizeof(pre) - 1;
	unsigned v = (unsigned)tid;

	memcpy(path, pre, len);
	do
		num[k++] = (char)('0' + v % 10);
	while ((v /= 10) != 0);
	while (k > 0)
		path[len++] = num[--k];
	memcpy(path + len, "/syscall", 9);
}

/* A number in decimal or 0x-hexadecimal at *P, which moves past it and
 * the spaces after.  Pure. */
static uint64_t
parse_num(const char **p, bool *neg)
{
	const char *s = *p;
	uint64_t v = 0;
	int base = 10;

	*neg = *s == '-';
	if (*neg)
		s++;
	if (s[0] == '0' && s[1] == 'x')
		base = 16, s += 2;
	for (;; s++) {
		int d;

		if (*s >= '0' && *s <= '9')
			d = *s - '0';
		else if (base == 16 && *s >= 'a' && *s <= 'f')
			d = *s - 'a' + 10;
		else
			break;
		v = v * (uint64_t)base + (uint64_t)d;
	}
	while (*s == ' ')
		s++;
	*p = s;
	return v;
}

/* TID's state from /proc: false when it runs (or cannot be read); else
 * its system call (-1: none) and user SP and PC.  Async-signal-safe
 * (open, read, close). */
static bool
read_blocked(int tid, int *nr, uint64_t *sp, uint64_t *pc)
{
	char path[48], buf[256];
	const char *p = buf;
	ssize_t n;
	bool neg;
	int fd, fields;

	syscall_path(path, tid);
	fd = sys_open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	sys_close(fd);
	if (n <= 0 || buf[0] < '-' || buf[0] > '9')
		return false; /* "running", or gone */
	buf[n] = '\0';
	*nr = (int)parse_num(&p, &neg);
	if (neg)
		*nr = -*nr;
	fields = *nr >= 0 ? 6 : 0; /* the arguments */
	for (int i = 0; i < fields; i++)
		parse_num(&p, &neg);
	*sp = parse_num(&p, &neg);
	*pc = parse_num(&p, &neg);
	return *pc != 0 && *sp != 0;
}

/* Whether TID is still blocked at SP and PC.  Async-signal-safe. */
static bool
still_blocked(int tid, uint64_t sp, uint64_t pc)
{
	uint64_t sp2, pc2;
	int nr;

	return read_blocked(tid, &nr, &sp2, &pc2) && sp2 == sp && pc2 == pc;
}

/* ---------------------------------------------------------------- sampling */

/* The blocked thread TID (record REC) in system call NR at KEY, NOW ns
 * after the base: its run goes on when its previous sample was at the
 * last wake with the same PC and call, and then stands for the intervals
 * since (LATE of them: more than one when the sampler woke late, and the
 * thread stayed blocked in the one call throughout), else a new run
 * begins with one sample.  Only the sampler writes the region.  Returns
 * the samples counted.  Async-signal-safe. */
static uint32_t
count_blocked(struct profrun_wall *a, int tid, uint32_t rec, int nr,
	      uint64_t key, uint64_t now, uint32_t late)
{
	struct profrun_blocked *b;
	uint64_t n;
	bool slot = rec < PROFRUN_THREAD_SLOTS;

	if (slot && last[rec].run != 0 && last[rec].tid == tid &&
	    last[rec].wake + 1 == w.wake) {
		b = &w.runs[last[rec].run - 1];
		if (b->key == key && b->nr == nr) {
			__atomic_add_fetch(&a->samples, late, __ATOMIC_RELAXED);
			b->last_ns = now;
			__atomic_add_fetch(&b->count, late, __ATOMIC_RELEASE);
			last[rec].wake = w.wake;
			return late;
		}
	}
	__atomic_add_fetch(&a->samples, 1, __ATOMIC_RELAXED);
	n = a->claimed;
	if (n >= a->slot_count) {
		__atomic_add_fetch(&a->lost, 1, __ATOMIC_RELAXED);
		return 1;
	}
	b = &w.runs[n];
	b->key = key;
	b->when = (now & ((1ull << PROFRUN_TIMELINE_NS_BITS) - 1)) |
		  (uint64_t)(rec & 0xffffu) << PROFRUN_TIMELINE_NS_BITS;
	b->last_ns = now;
	b->nr = nr;
	__atomic_store_n(&b->count, 1, __ATOMIC_RELEASE);
	__atomic_store_n(&a->claimed, n + 1, __ATOMIC_RELEASE);
	if (slot)
		last[rec] = (typeof(last[0])){(uint32_t)n + 1, tid, w.wake};
	return 1;
}

struct wake {
	struct profrun_wall *a;
	uint64_t now; /* ns since the base */
	uint32_t gen;
	uint32_t late; /* intervals since the last wake, at least 1 */
};

/* threads_each's callback: one thread at this wake.
 * Async-signal-safe. */
static void
sample_thread(int tid, uint32_t rec, void *arg)
{
	struct wake *k = arg;
	uint64_t sp, pc;
	uint32_t n;
	int nr;

	if (!read_blocked(tid, &nr, &sp, &pc))
		return;
	if (pc >= (1ull << PROFRUN_PC_BITS)) {
		__atomic_add_fetch(&k->a->samples, 1, __ATOMIC_RELAXED);
		__atomic_add_fetch(&k->a->lost, 1, __ATOMIC_RELAXED);
		return;
	}
	n = count_blocked(k->a, tid, rec, nr,
			  pc | (uint64_t)k->gen << PROFRUN_PC_BITS, k->now,
			  k->late);
	stacks_record_blocked(tid, sp, pc, k->gen, k->now, n, still_blocked);
}

static int64_t
mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* One wake, LATE intervals after the last: every thread with a timer of
 * ours, unless held or paused. */
static void
wake_once(uint32_t late)
{
	struct profrun_wall *a;
	struct wake k;
	struct timespec ts;

	__atomic_store_n(&w.busy, 1, __ATOMIC_SEQ_CST);
	a = __atomic_load_n(&w.area, __ATOMIC_ACQUIRE);
	if (a != NULL && !__atomic_load_n(&w.hold, __ATOMIC_SEQ_CST) &&
	    shim_owns_profile() && !pause_now()) {
		w.wake++;
		k.a = a;
		k.late = late;
		k.now = (uint64_t)(mono_ns() - w.base_ns);
		k.gen = __atomic_load_n(&w.hdr->mod_generation,
					__ATOMIC_RELAXED);
		threads_each(sample_thread, &k);
		__atomic_add_fetch(&a->wakes, 1, __ATOMIC_RELAXED);
		if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) == 0)
			__atomic_store_n(&a->cpu_ns,
					 (uint64_t)ts.tv_sec * 1000000000u +
						 (uint64_t)ts.tv_nsec,
					 __ATOMIC_RELAXED);
	}
	__atomic_store_n(&w.busy, 0, __ATOMIC_SEQ_CST);
}

/* The sampling interval: the CPU timers' mean interval, so that a blocked
 * sample and a CPU sample stand for the same time. */
static uint64_t
interval(void)
{
	uint64_t ival = w.hdr ? w.hdr->interval_ns : 0;

	if (ival == 0 && w.hdr && w.hdr->rate_requested)
		ival = 1000000000u / w.hdr->rate_requested;
	return ival ? ival : 10000000u;
}

static void *
sampler(void *arg)
{
	struct profrun_wall *a = __atomic_load_n(&w.area, __ATOMIC_ACQUIRE);
	uint64_t ival = interval();
	struct timespec next;
	int64_t t, prev;

	(void)arg;
	prctl(PR_SET_NAME, "profrun-wall");
	if (a != NULL) {
		a->interval_ns = (uint32_t)ival;
		a->sampler_tid = (int32_t)syscall(SYS_gettid);
	}
	t = prev = mono_ns();
	for (;;) {
		int64_t now, late;

		t += (int64_t)ival;
		next.tv_sec = t / 1000000000;
		next.tv_nsec = t % 1000000000;
		/* every signal is blocked: nothing interrupts it */
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next,
				       NULL) == EINTR)
			;
		/* woken late (a busy machine): the wakes missed are not
		 * made up in a burst; a thread blocked in one call at both
		 * ends is counted for the intervals between instead */
		now = mono_ns();
		late = (now - prev + (int64_t)ival / 2) / (int64_t)ival;
		prev = now;
		wake_once(late < 1 ? 1 : late > 1000 ? 1000 : (uint32_t)late);
		if (now - t > (int64_t)ival)
			t = now;
	}
	return NULL;
}

/* Not async-signal-safe (pthread_create). */
void
wall_start(void)
{
	pthread_attr_t attr;
	pthread_t th;
	sigset_t all, old;

	if (!w.on || w.running || w.area == NULL)
		return;
	if (real_pthread_create == NULL)
		shim_resolve("pthread_create", (void **)&real_pthread_create);
	if (real_pthread_create == NULL || REAL(pthread_sigmask) == NULL ||
	    pthread_attr_init(&attr) != 0)
		return;
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&attr, WALL_STACK);
	/* the thread starts with every signal blocked, and keeps them so */
	sigfillset(&all);
	real_pthread_sigmask(SIG_SETMASK, &all, &old);
	if (real_pthread_create(&th, &attr, sampler, NULL) == 0)
		w.running = true;
	else
		shim_warn("cannot start the wall-clock sampler thread");
	real_pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&attr);
}

/* Async-signal-safe. */
void
wall_hold(bool hold)
{
	__atomic_store_n(&w.hold, hold ? 1 : 0, __ATOMIC_SEQ_CST);
	/* a wake under way finishes its few reads: then nothing of the
	 * sampler's touches the member until the hold ends */
	while (hold && w.running && __atomic_load_n(&w.busy, __ATOMIC_SEQ_CST))
		sched_yield();
}

/* Async-signal-safe. */
void
wall_fork_child(void)
{
	w.running = false;
	w.busy = 0;
	w.hold = 0;
	w.wake = 0;
	__atomic_store_n(&w.area, NULL, __ATOMIC_RELEASE);
}

/* Async-signal-safe. */
bool
wall_sampled(void)
{
	struct profrun_wall *a = __atomic_load_n(&w.area, __ATOMIC_ACQUIRE);

	return a != NULL && __atomic_load_n(&a->claimed, __ATOMIC_ACQUIRE) != 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * Every thread is sampled on its own CPU-time clock: a POSIX timer per
 * thread (CLOCK_THREAD_CPUTIME_ID, SIGEV_THREAD_ID), so a sample always
 * lands on the thread that used the CPU, busy threads never coalesce into
 * one pending process signal, and a thread that blocks signals is still
 * sampled (the program's view of its mask is kept by masks.c).  The timers
 * run at the kernel's tick, which is what checks them, and fire first as
 * soon as the tick finds their thread running; a rate below the tick keeps
 * each expiration with probability rate / tick.  So the expected samples
 * of any thread or process equal its CPU time times the rate, however
 * short it runs.
 *
 * Two tables:
 *   the registry  (private) tid and kernel timer id of every live thread we
 *                 armed, so that any thread can disarm them all (a rival, an
 *                 exec) and re-arm them (a failed exec)
 *   the records   (in the member file) per-thread samples, CPU time and name;
 *                 threads past the last slot share the aggregate record
 *
 * Timers are made with raw system calls: they are async-signal-safe, and
 * the program's own timer_create() is never involved.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "libc/libc.h"
#include "arch/arch.h"
#include "shim.h"
#include "sample/sample.h"
#include "member/member.h"
#include "sys.h"

#define REGISTRY_SLOTS 65536u /* live threads with a timer */

#define NO_MARK UINT64_MAX

struct reg {
	int tid;   /* 0 = free */
	int timer; /* kernel timer id + 1, 0 = none (as zero-filled) */
	struct profrun_thread *rec;
	uint64_t pause_mark; /* its CPU clock when paused, NO_MARK = none */
};

/* The entries live in the shim's zero-filled data (no mapping of their
 * own: its system calls and its teardown at exit cost a short process
 * more than the rest of the registry); registry points at them once
 * threads_init ran. */
static struct reg reg_slots[REGISTRY_SLOTS] ARCH_LARGE_SECTION;
static struct reg *registry;
static unsigned reg_high; /* entries ever used (scan bound) */
static struct profrun_header *hdr;
static struct profrun_thread *recs; /* hdr's records, or NULL */
static uint64_t interval_ns;	    /* 0 while not sampling */
static uint64_t armed_ns;    /* the interval to re-arm at a resume, 0 = none */
static uint64_t *rec_paused; /* per record: CPU while paused, or NULL */

static uint32_t keep_share; /* of each expiration, out of 2^32; 0 = all */
/* timers stay armed in a pause: their handler watches for its end */
static bool keep_ticking;

static __thread struct reg *t_reg __attribute__((tls_model("initial-exec")));
/* the calling thread's record: kept after its end, for a signal that was
 * already queued when its timer went */
static __thread struct profrun_thread *t_rec
	__attribute__((tls_model("initial-exec")));
static __thread uint64_t t_rng __attribute__((tls_model("initial-exec")));

/* The CPU clock of thread TID (as pthread_getcpuclockid gives it). */
static clockid_t
thread_clock(int tid)
{
	return (clockid_t)((~(unsigned)tid << 3) | 6u);
}

/* Async-signal-safe. */
static uint64_t
clock_ns(clockid_t clk)
{
	struct timespec ts;

	if (sys_clock_gettime(clk, &ts) < 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* One step of the calling thread's xorshift64 generator, seeded from its
 * tid and the clock on first use.  Async-signal-safe. */
static uint64_t
next_random(void)
{
	if (t_rng == 0)
		t_rng = clock_ns(CLOCK_MONOTONIC) ^
			((uint64_t)syscall(SYS_gettid) *
			 0x9e3779b97f4a7c15ull) ^
			1;
	return shim_xorshift64(&t_rng);
}

/* A timer on TID's CPU clock sending SIGPROF to TID every IVAL ns, the
 * first time as soon as the tick finds it running.  CPU timers are checked
 * on the tick, so the tick is what places the samples: a thread of any
 * length gets one at each tick that lands while it runs and finds an
 * interval's CPU time used, and the expected count of a thread running D
 * seconds is D / IVAL, however short D is (a first expiration a whole
 * interval away would leave every thread shorter than that unsampled).
 * Returns its id, or -1.  Async-signal-safe (system calls only). */
static int
arm_thread(int tid, uint64_t ival)
{
	struct sigevent ev;
	struct itimerspec its;
	int id = -1, self = tid == (int)syscall(SYS_gettid);
	clockid_t clk = self ? CLOCK_THREAD_CPUTIME_ID : thread_clock(tid);

	memset(&ev, 0, sizeof(ev));
	ev.sigev_notify = SIGEV_THREAD_ID;
	ev.sigev_signo = SIGPROF;
	ev.sigev_value.sival_int = THREADS_TIMER_MAGIC;
	ev.sigev_notify_thread_id = tid;
	if (syscall(SYS_timer_create, clk, &ev, &id) < 0)
		return -1;
	its.it_interval.tv_sec = (time_t)(ival / 1000000000u);
	its.it_interval.tv_nsec = (long)(ival % 1000000000u);
	its.it_value.tv_sec = 0;
	its.it_value.tv_nsec = 1;
	if (syscall(SYS_timer_settime, id, 0, &its, NULL) < 0) {
		syscall(SYS_timer_delete, id);
		return -1;
	}
	return id;
}

/* Take E's timer away and delete it (whoever swaps it out deletes it).
 * Async-signal-safe. */
static void
disarm_entry(struct reg *e)
{
	int id = __atomic_exchange_n(&e->timer, 0, __ATOMIC_SEQ_CST);

	if (id > 0)
		syscall(SYS_timer_delete, id - 1);
}

/* Give E a timer if we sample now; if sampling stopped meanwhile, take it
 * back.  Async-signal-safe. */
static void
arm_entry(struct reg *e, int tid)
{
	uint64_t ival = __atomic_load_n(&interval_ns, __ATOMIC_SEQ_CST);
	int id, none = 0;

	if (ival == 0)
		return;
	id = arm_thread(tid, ival);
	if (id < 0) {
		if (e->rec != NULL)
			__atomic_or_fetch(&e->rec->flags,
					  PROFRUN_THREAD_NO_TIMER,
					  __ATOMIC_RELAXED);
		return;
	}
	if (!__atomic_compare_exchange_n(&e->timer, &none, id + 1, 0,
					 __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
		syscall(SYS_timer_delete, id); /* someone armed it already */
		return;
	}
	if (__atomic_load_n(&interval_ns, __ATOMIC_SEQ_CST) == 0)
		disarm_entry(e);
}

/* The aggregate record, the last slot, written when first needed (its
 * page is given back at the end when no thread needed it); racing
 * callers store the same values.  Async-signal-safe. */
static struct profrun_thread *
aggregate(void)
{
	static struct profrun_thread no_room; /* when the disk has none */
	struct profrun_thread *a = &recs[hdr->thread_slots - 1];

	/* its page is reserved when first needed (reserve.c): one extent
	 * less at start keeps a member's extents in its inode on ext4 */
	if (!reserve_room(a, sizeof(*a), false))
		a = &no_room;
	a->flags = PROFRUN_THREAD_AGGREGATE;
	__atomic_store_n(&a->tid, -1, __ATOMIC_RELEASE);
	return a;
}

/* A record for thread TID: a slot of its own, or the aggregate.
 * Async-signal-safe. */
static struct profrun_thread *
claim_record(int tid, uint32_t flags)
{
	uint32_t n, own = hdr->thread_slots - 1;
	struct profrun_thread *r;

	n = __atomic_fetch_add(&hdr->thread_count, 1, __ATOMIC_RELAXED);
	if (n >= own || !reserve_room(&recs[n], sizeof(*r), true))
		return aggregate();
	r = &recs[n];
	r->flags = flags;
	r->cpu_start_ns = clock_ns(thread_clock(tid));
	r->cpu_ns = r->cpu_start_ns;
	r->start_ns = writer_now_ns();
	__atomic_store_n(&r->tid, tid, __ATOMIC_RELEASE);
	return r;
}

/* Raise reg_high to at least HIGH: a compare-and-swap loop, so that of
 * two threads claiming entries at once neither lowers it below the
 * other's (an entry above it would be missed by every scan: disarm-all
 * before an exec, arm-all, threads_alone, threads_finish).
 * Async-signal-safe. */
static void
raise_high(unsigned high)
{
	unsigned cur = __atomic_load_n(&reg_high, __ATOMIC_ACQUIRE);

	while (cur < high &&
	       !__atomic_compare_exchange_n(&reg_high, &cur, high, 1,
					    __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		;
}

/* A free registry entry for TID, or NULL.  An entry is left free with no
 * timer (0, as zero-filled; disarm_entry before it is freed), so the claim
 * stores none: a timer armed by arm-all the moment the tid appears is
 * never overwritten.  Async-signal-safe. */
static struct reg *
claim_entry(int tid)
{
	for (unsigned i = 0; i < REGISTRY_SLOTS; i++) {
		int free_ = 0;

		if (__atomic_load_n(&registry[i].tid, __ATOMIC_RELAXED) != 0)
			continue;
		if (!__atomic_compare_exchange_n(&registry[i].tid, &free_, tid,
						 0, __ATOMIC_ACQ_REL,
						 __ATOMIC_RELAXED))
			continue;
		__atomic_store_n(&registry[i].rec, NULL, __ATOMIC_RELAXED);
		__atomic_store_n(&registry[i].pause_mark, NO_MARK,
				 __ATOMIC_RELAXED);
		raise_high(i + 1);
		return &registry[i];
	}
	return NULL;
}

/* Call once, at start.  Async-signal-safe. */
int
threads_init(void)
{
	/* the first entry's page written first: a claim's read of a page
	 * never touched would map the zero page, and its write then fault
	 * once more (NO_MARK is what a claim sets anyway) */
	if (registry != NULL)
		return 0;
	reg_slots[0].pause_mark = NO_MARK;
	registry = reg_slots;
	return 0;
}

/* Async-signal-safe. */
void
threads_attach(struct profrun_header *h)
{
	hdr = h;
	recs = h->threads_off && h->thread_slots
		       ? (struct profrun_thread *)((char *)h + h->threads_off)
		       : NULL;
	if (recs == NULL)
		return;
	h->timer_kind = PROFRUN_TIMER_THREAD;
}

/* Async-signal-safe. */
void
threads_fork_child(void)
{
	/* Only the forking thread lives on, with no timer (POSIX timers are
	 * not inherited); its record is in the parent's file. */
	if (registry != NULL)
		memset(registry, 0, reg_high * sizeof(struct reg));
	reg_high = 0;
	t_reg = NULL;
	t_rec = NULL;
	t_rng = 0; /* siblings must not draw the same keep/drop sequence */
	recs = NULL;
	hdr = NULL;
	interval_ns = 0;
	armed_ns = 0;
	rec_paused = NULL;
}

/* Async-signal-safe. */
void
threads_attach_paused(uint64_t *paused_ns)
{
	rec_paused = paused_ns;
}

/* Add the CPU time of E's thread since its pause mark (CPU: its clock
 * now) to its record's paused CPU, and mark it again at CPU (NO_MARK:
 * not paused any more).  Async-signal-safe. */
static void
close_pause(struct reg *e, uint64_t cpu, uint64_t mark)
{
	if (e->pause_mark != NO_MARK && e->rec != NULL && rec_paused != NULL &&
	    e->rec >= recs && e->rec < recs + hdr->thread_slots &&
	    cpu > e->pause_mark)
		__atomic_add_fetch(&rec_paused[e->rec - recs],
				   cpu - e->pause_mark, __ATOMIC_RELAXED);
	e->pause_mark = mark;
}

/* The pause lock is held.  Async-signal-safe. */
void
threads_pause(bool pause)
{
	unsigned high = __atomic_load_n(&reg_high, __ATOMIC_ACQUIRE);

	if (registry == NULL)
		return;
	if (pause && !keep_ticking)
		__atomic_store_n(&interval_ns, 0, __ATOMIC_SEQ_CST);
	for (unsigned i = 0; i < high; i++) {
		struct reg *e = &registry[i];
		int tid = __atomic_load_n(&e->tid, __ATOMIC_ACQUIRE);
		uint64_t cpu;

		if (tid == 0)
			continue;
		cpu = clock_ns(thread_clock(tid));
		if (pause) {
			e->pause_mark = cpu;
			if (!keep_ticking)
				disarm_entry(e);
		} else {
			close_pause(e, cpu, NO_MARK);
		}
	}
	if (!pause && armed_ns != 0 && !keep_ticking)
		threads_arm_all(armed_ns);
}

/* Async-signal-safe. */
void
threads_register_self(bool main_thread, bool first)
{
	int tid = (int)syscall(SYS_gettid);
	struct reg *e;
	sigset_t old;

	if (registry == NULL || recs == NULL || t_reg != NULL)
		return;
	e = claim_entry(tid);
	if (e == NULL)
		return; /* no timer: its CPU shows as unsampled */
	e->rec = claim_record(tid, main_thread ? PROFRUN_THREAD_MAIN : 0);
	t_rec = e->rec;
	t_reg = e;
	pause_lock(first ? NULL : &old);
	if (pause_now())
		e->pause_mark = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	pause_unlock(first ? NULL : &old);
	arm_entry(e, tid);
}

/* The thread's name as it set it (prctl, pthread_setname_np) into R.
 * Async-signal-safe (one system call). */
static void
read_own_name(struct profrun_thread *r)
{
	char name[16] = "";

	if (r->tid <= 0 || prctl(PR_GET_NAME, name) < 0)
		return;
	name[15] = '\0';
	memcpy(r->name, name, sizeof(name));
}

/* Async-signal-safe. */
void
threads_unregister_self(void)
{
	struct reg *e = t_reg;
	struct profrun_thread *r;
	uint64_t cpu;
	sigset_t old;

	if (e == NULL)
		return;
	disarm_entry(e);
	r = e->rec;
	pause_lock(&old);
	cpu = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	close_pause(e, cpu, NO_MARK);
	pause_unlock(&old);
	if (r != NULL && r->tid > 0) {
		read_own_name(r);
		__atomic_store_n(&r->cpu_ns, cpu, __ATOMIC_RELAXED);
		__atomic_or_fetch(&r->flags, PROFRUN_THREAD_ENDED,
				  __ATOMIC_RELEASE);
	} else if (r != NULL) {
		__atomic_add_fetch(&r->cpu_ns, cpu, __ATOMIC_RELAXED);
	}
	t_reg = NULL;
	__atomic_store_n(&e->tid, 0, __ATOMIC_RELEASE);
}

/* Async-signal-safe. */
void
threads_arm_all(uint64_t ival)
{
	unsigned high = __atomic_load_n(&reg_high, __ATOMIC_ACQUIRE);

	if (registry == NULL)
		return;
	armed_ns = ival;
	if (pause_now() && !keep_ticking)
		return; /* the resume arms them */
	__atomic_store_n(&interval_ns, ival, __ATOMIC_SEQ_CST);
	for (unsigned i = 0; i < high; i++) {
		int tid = __atomic_load_n(&registry[i].tid, __ATOMIC_ACQUIRE);

		if (tid != 0 &&
		    __atomic_load_n(&registry[i].timer, __ATOMIC_SEQ_CST) == 0)
			arm_entry(&registry[i], tid);
	}
}

/* Async-signal-safe. */
void
threads_disarm_all(void)
{
	unsigned high = __atomic_load_n(&reg_high, __ATOMIC_ACQUIRE);

	__atomic_store_n(&interval_ns, 0, __ATOMIC_SEQ_CST);
	armed_ns = 0; /* profiling stops: no resume re-arms them */
	if (registry == NULL)
		return;
	for (unsigned i = 0; i < high; i++)
		disarm_entry(&registry[i]);
}

/* Not async-signal-safe (once, at start). */
void
threads_keep_ticking(bool keep)
{
	keep_ticking = keep;
}

/* Async-signal-safe. */
void
threads_set_share(uint32_t share)
{
	keep_share = share;
}

/* Async-signal-safe. */
uint64_t
threads_keep(uint64_t n)
{
	uint64_t kept = 0;

	if (keep_share == 0)
		return n;
	for (uint64_t i = 0; i < n; i++)
		kept += (uint32_t)(next_random() >> 32) < keep_share;
	return kept;
}

/* Async-signal-safe. */
void
threads_count_samples(uint64_t n)
{
	struct profrun_thread *r = t_rec;

	if (r == NULL)
		return;
	__atomic_add_fetch(&r->samples, n, __ATOMIC_RELAXED);
	if (r->tid > 0 && !(r->flags & PROFRUN_THREAD_ENDED))
		__atomic_store_n(&r->cpu_ns, clock_ns(CLOCK_THREAD_CPUTIME_ID),
				 __ATOMIC_RELAXED);
}

/* Async-signal-safe. */
uint32_t
threads_self_index(void)
{
	struct profrun_thread *r = t_rec;

	if (r == NULL || recs == NULL || r < recs ||
	    r >= recs + hdr->thread_slots)
		return PROFRUN_TIMELINE_NO_THREAD;
	return (uint32_t)(r - recs);
}

/* Read R's name from /proc: /proc/self/comm for the thread whose tid is
 * the pid (the process's own entry, already looked up at start for
 * /proc/self/exe: a fresh process's task directories cost more than the
 * read), /proc/self/task/TID/comm for the others.  Async-signal-safe
 * (system calls only). */
static void
read_task_name(struct profrun_thread *r)
{
	char path[48] = "/proc/self/task/", num[12], name[17];
	int k = 0, len = 16, fd;
	unsigned v = (unsigned)r->tid;
	ssize_t n;

	if (r->tid == hdr->pid) {
		memcpy(path, "/proc/self/comm", 16);
	} else {
		do
			num[k++] = (char)('0' + v % 10);
		while ((v /= 10) != 0);
		while (k > 0)
			path[len++] = num[--k];
		memcpy(path + len, "/comm", 6);
	}
	fd = sys_open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, name, 16);
	sys_close(fd);
	if (n <= 0)
		return;
	if (name[n - 1] == '\n')
		n--;
	name[n] = '\0';
	memcpy(r->name, name, (size_t)n + 1);
}

/* Async-signal-safe. */
bool
threads_alone(void)
{
	unsigned high = __atomic_load_n(&reg_high, __ATOMIC_ACQUIRE);
	int self = t_reg != NULL ? t_reg->tid : 0;

	for (unsigned i = 0; registry != NULL && i < high; i++) {
		int tid = __atomic_load_n(&registry[i].tid, __ATOMIC_ACQUIRE);

		if (tid != 0 && tid != self)
			return false;
	}
	return true;
}

/* Async-signal-safe (system calls only). */
void
threads_finish(bool names)
{
	unsigned high = __atomic_load_n(&reg_high, __ATOMIC_ACQUIRE);
	uint64_t live_other = 0;

	if (registry == NULL || recs == NULL)
		return;
	for (unsigned i = 0; i < high; i++) {
		int tid = __atomic_load_n(&registry[i].tid, __ATOMIC_ACQUIRE);
		struct profrun_thread *r = registry[i].rec;
		uint64_t cpu;

		if (tid == 0 || r == NULL)
			continue;
		cpu = clock_ns(thread_clock(tid));
		if (pause_now())
			close_pause(&registry[i], cpu, cpu);
		if (r->tid <= 0) {
			live_other += cpu;
			continue;
		}
		if (cpu != 0)
			__atomic_store_n(&r->cpu_ns, cpu, __ATOMIC_RELAXED);
		if (names)
			read_task_name(r);
	}
	if (live_other != 0)
		aggregate()->cpu_live_ns = live_other;
}

/* Async-signal-safe. */
void
threads_count_unhooked(void)
{
	if (hdr != NULL && shim_owns_profile())
		__atomic_add_fetch(&hdr->clone_threads, 1, __ATOMIC_RELAXED);
}

/* Async-signal-safe. */
void
threads_each(void (*fn)(int tid, uint32_t rec, void *arg), void *arg)
{
	unsigned high = __atomic_load_n(&reg_high, __ATOMIC_ACQUIRE);

	for (unsigned i = 0; registry != NULL && i < high; i++) {
		int tid = __atomic_load_n(&registry[i].tid, __ATOMIC_ACQUIRE);
		struct profrun_thread *r =
			__atomic_load_n(&registry[i].rec, __ATOMIC_ACQUIRE);
		uint32_t idx = PROFRUN_TIMELINE_NO_THREAD;

		if (tid <= 0)
			continue;
		if (r != NULL && recs != NULL && r >= recs &&
		    r < recs + hdr->thread_slots)
			idx = (uint32_t)(r - recs);
		fn(tid, idx, arg);
	}
}

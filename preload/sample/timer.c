/* SPDX-License-Identifier: MIT */
/*
 * The timer and the signal: our SIGPROF handler counts each sample into
 * the member's histogram itself, with profil()'s bucket arithmetic and an
 * atomic increment (profil's own ++ loses counts when threads on two CPUs
 * hit one bucket at once), and counts the ones outside it and the 16-bit
 * wraps.  glibc's profil() itself is not called: it would arm a
 * process-wide ITIMER_PROF and install a handler of its own, both replaced
 * at once, for four system calls in every process; each thread has its
 * own CPU-time timer instead (threads.c).  A SIGPROF that is not our
 * timers' gets the program's own action.  All calls go to real_<fn> so
 * our own interposers never mistake us for a rival.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "libc/libc.h"
#include "arch/arch.h"
#include "shim.h"
#include "interpose/interpose.h"
#include "sample/sample.h"
#include "member/member.h"
#include "sys.h"

static struct collect active; /* what the handler counts into */
/* &active while the handler may count, NULL once counting stopped: the
 * handler reads the member only through it (see timer_close) */
static const struct collect *live;
static struct sigaction program_act; /* what the program believes it has */
static bool have_program_act;
static bool running;
static int inflight; /* handlers between their check of live and return */

/* our handler's sa_flags: on the thread's alternate stack (altstack.c) */
#define OUR_FLAGS   (SA_SIGINFO | SA_RESTART | SA_ONSTACK)
#define DRAIN_SPINS 100000 /* bound on waiting for in-flight handlers */
#define MAX_OVERRUN 1000   /* merged expirations counted per signal */

/* Interrupted PC from the ucontext.  Async-signal-safe. */
static inline uintptr_t
ucontext_pc(void *ctx)
{
	return arch_ucontext_pc(ctx);
}

/* True for a SIGPROF of our timers: a thread's POSIX timer (SI_TIMER with
 * our value).  Async-signal-safe. */
static bool
is_our_timer(const siginfo_t *si)
{
	return si->si_code == SI_TIMER &&
	       si->si_value.sival_int == THREADS_TIMER_MAGIC;
}

/* A SIGPROF someone sent (kill, raise, sigqueue, a timer of the
 * program's): the program's own action applies, as without profrun.  It
 * can only be SIG_IGN or SIG_DFL (a handler would have made us step
 * aside); SIG_DFL ends the process with SIGPROF once this handler returns.
 * Where the program blocks SIGPROF, it is held pending for the program
 * (sigpending shows it) until it unblocks SIGPROF (masks.c).
 * Async-signal-safe. */
void
timer_foreign_action(void)
{
	struct sigaction dfl;

	if (program_act.sa_handler == SIG_IGN)
		return;
	threads_disarm_all();
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	real_sigaction(SIGPROF, &dfl, NULL); /* resolved by timer_start */
	syscall(SYS_tgkill, sys_getpid(), syscall(SYS_gettid), SIGPROF);
}

static void
foreign_sigprof(const siginfo_t *si)
{
	if (masks_view_blocked())
		masks_hold_foreign(si); /* pending until the program unblocks */
	else
		timer_foreign_action();
}

/* One more signal, that brought N samples, into H's counts of how the
 * samples came (format.h).  Async-signal-safe. */
static void
count_signal(struct profrun_header *h, uint64_t n)
{
	uint32_t most = __atomic_load_n(&h->burst_max, __ATOMIC_RELAXED);

	__atomic_add_fetch(&h->signals, 1, __ATOMIC_RELAXED);
	__atomic_add_fetch(&h->samples_sq, n * n, __ATOMIC_RELAXED);
	while (n > most && !__atomic_compare_exchange_n(
				   &h->burst_max, &most, (uint32_t)n, true,
				   __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
}

/* Count N samples at the context UC into C: the histogram or the PC
 * table, the thread's record, its stack.  Async-signal-safe. */
static void
count_samples(const struct collect *c, uint64_t n, void *uc)
{
	uintptr_t pc = ucontext_pc(uc);
	uint32_t gen =
		__atomic_load_n(&c->hdr->mod_generation, __ATOMIC_RELAXED);
	struct timespec ts;
	int64_t now = c->tl_base;

	/* the vdso's image is kept once a sample falls in it */
	if (pc - c->vdso < c->vdso_room &&
	    __atomic_load_n(&c->hdr->vdso_size, __ATOMIC_RELAXED) == 0)
		modules_copy_vdso(c->hdr, (const void *)c->vdso, c->vdso_room);
	else if (collect_bucket_index(pc, c->offset, c->scale) >= c->nbuckets)
		jit_sample(c->hdr, pc);
	for (uint64_t i = 0; i < n; i++)
		collect_count(c, pc);
	count_signal(c->hdr, n);
	/* the vdso's clock: a read of memory, no system call */
	if (clock_gettime(CLOCK_MONOTONIC, &ts) == 0)
		now = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
	collect_timeline(c, pc, gen, now, threads_self_index(), n);
	threads_count_samples(n);
	stacks_record(uc, (uint32_t)n, gen, (uint64_t)(now - c->tl_base));
}

/* Our SIGPROF handler.  A timer expiration merged into a pending one
 * (si_overrun: the thread stayed in one system call for several
 * intervals) is a sample at the same PC.  It counts only through live,
 * loaded after announcing itself in inflight (timer_close says why).
 * Async-signal-safe: no allocation, no locks, only the clock and signal
 * system calls. */
static void
on_sigprof(int sig, siginfo_t *si, void *uc)
{
	int saved = errno;
	const struct collect *c;
	uint64_t n = 1;

	(void)sig;
	if (!is_our_timer(si)) {
		foreign_sigprof(si);
		errno = saved;
		return;
	}
	__atomic_add_fetch(&inflight, 1, __ATOMIC_SEQ_CST);
	c = __atomic_load_n(&live, __ATOMIC_SEQ_CST);
	if (c != NULL) {
		/* a running thread: the CPU window's edges and the toggle
		 * signal are taken here (pause.c) */
		pause_poll();
		if (si->si_code == SI_TIMER && si->si_overrun > 0)
			n += si->si_overrun < MAX_OVERRUN
				     ? (uint64_t)si->si_overrun
				     : MAX_OVERRUN;
		/* paused: dropped, and counted as such (pause.c) */
		n = pause_now() ? pause_drop(n) : threads_keep(n);
		/* the member's room for them first (reserve.c) */
		if (n > 0 && reserve_sample(n))
			count_samples(c, n, uc);
	}
	__atomic_sub_fetch(&inflight, 1, __ATOMIC_SEQ_CST);
	errno = saved;
}

/* The kernel's tick rate (CONFIG_HZ), the cap on CPU-timer rates, from the
 * resolution of the coarse clock.  Async-signal-safe. */
static uint32_t
kernel_hz(void)
{
	/* once an image: a fork child arms its timers with its parent's
	 * answer (one system call fewer where a seccomp filter counts them) */
	static uint32_t hz;
	struct timespec res;

	if (hz == 0 && sys_clock_getres(CLOCK_MONOTONIC_COARSE, &res) == 0 &&
	    res.tv_sec == 0 && res.tv_nsec > 0)
		hz = (uint32_t)(1000000000 / res.tv_nsec);
	return hz;
}

/* Give every thread its own timer (ITIMER_PROF stays disarmed: in_use
 * saw it so); record the rate in the header.  CPU timers are checked on the
 * tick: they run at the tick's interval, and a lower rate keeps each
 * expiration with probability FREQ / tick (threads.c says why).  With the
 * tick unknown they run at FREQ.  Async-signal-safe. */
static int
arm_rate(struct profrun_header *h, uint32_t freq)
{
	uint32_t hz = kernel_hz();
	uint64_t ival = 1000000000u / freq, mean = ival;

	threads_set_share(0);
	if (hz != 0) {
		ival = 1000000000u / hz;
		mean = freq < hz ? 1000000000u / freq : ival;
		if (freq < hz)
			threads_set_share(
				(uint32_t)(((uint64_t)freq << 32) / hz));
	}
	h->rate_requested = freq;
	h->tick_hz = hz;
	h->interval_us = (uint32_t)(mean / 1000u);
	if (hz != 0 && freq > hz)
		__atomic_or_fetch(&h->flags, PROFRUN_F_RATE_CLIPPED,
				  __ATOMIC_RELAXED);
	threads_arm_all(ival);
	h->interval_ns = (uint32_t)mean;
	return 0;
}

/* Our handler for SIGPROF (it counts into `active`).  Async-signal-safe. */
static int
install_handler(void)
{
	struct sigaction ours;

	memset(&ours, 0, sizeof(ours));
	ours.sa_sigaction = on_sigprof;
	ours.sa_flags = OUR_FLAGS;
	sigfillset(&ours.sa_mask);
	if (REAL(sigaction)(SIGPROF, &ours, NULL) < 0)
		return -errno;
	running = true;
	return 0;
}

/* True when SIGPROF has a handler or ITIMER_PROF is armed: someone set
 * them up before us.  Async-signal-safe. */
static bool
in_use(const struct sigaction *act, const struct itimerval *it)
{
	bool handler =
		(act->sa_flags & SA_SIGINFO) ||
		(act->sa_handler != SIG_DFL && act->sa_handler != SIG_IGN);

	return handler || it->it_value.tv_sec != 0 || it->it_value.tv_usec != 0;
}

/* Async-signal-safe. */
int
timer_start(const struct collect *c, uint32_t freq)
{
	sigset_t prof, old;
	int r;

	if (REAL(sigaction) == NULL || REAL(getitimer) == NULL ||
	    REAL(pthread_sigmask) == NULL)
		return -ENOSYS;
	if (!have_program_act) {
		struct itimerval it;

		if (REAL(sigaction)(SIGPROF, NULL, &program_act) < 0 ||
		    sys_getitimer(ITIMER_PROF, &it) < 0)
			return -errno;
		if (in_use(&program_act, &it))
			return -EBUSY;
		have_program_act = true;
	}
	active = *c; /* no handler reads it: live is NULL (timer_close) */
	__atomic_store_n(&live, &active, __ATOMIC_SEQ_CST);
	sigemptyset(&prof);
	sigaddset(&prof, SIGPROF);
	REAL(pthread_sigmask)(SIG_BLOCK, &prof, &old);
	r = install_handler();
	if (r == 0)
		r = arm_rate(c->hdr, freq);
	if (r < 0)
		timer_stop();
	real_pthread_sigmask(SIG_SETMASK, &old, NULL);
	return r;
}

/* Async-signal-safe. */
void
timer_close(void)
{
	/* Dekker's pattern, every access sequentially consistent: a handler
	 * adds itself to inflight, then loads live; we store NULL, then load
	 * inflight.  In the single order of these four, either the handler's
	 * load comes after our store (it sees NULL and counts nothing) or
	 * its increment comes before our load (we wait for it).  So once this
	 * returns no handler touches the member, and anything written after
	 * (the stop note, the end record, the blocks given back) is never
	 * raced by a count or a wrap carry.  The wait is bounded: a handler
	 * that never returns (stopped under a debugger) is not waited for. */
	__atomic_store_n(&live, NULL, __ATOMIC_SEQ_CST);
	for (int n = 0; n < DRAIN_SPINS &&
			__atomic_load_n(&inflight, __ATOMIC_SEQ_CST) != 0;
	     n++)
		sched_yield();
}

/* Stop the timers and drop a pending SIGPROF of ours, counting closed:
 * ignore SIGPROF (discards pending ones).  Async-signal-safe. */
static void
quiet_sigprof(void)
{
	struct sigaction ign;

	timer_close();
	pause_window_stop();
	threads_disarm_all();
	memset(&ign, 0, sizeof(ign));
	ign.sa_handler = SIG_IGN;
	REAL(sigaction)(SIGPROF, &ign, NULL); /* drops a pending SIGPROF */
}

/* Async-signal-safe. */
void
timer_stop(void)
{
	int saved = errno;

	if (!running)
		return;
	quiet_sigprof();
	REAL(sigaction)(SIGPROF, &program_act, NULL);
	running = false;
	errno = saved;
}

/* Async-signal-safe. */
void
timer_stop_exec(void)
{
	int saved = errno;

	if (!running)
		return;
	quiet_sigprof();
	/* the new image keeps only an ignored SIGPROF (after a failed exec,
	 * the handler is installed again) */
	if (program_act.sa_handler != SIG_IGN)
		REAL(sigaction)(SIGPROF, &program_act, NULL);
	running = false;
	errno = saved;
}

/* Async-signal-safe. */
void
timer_hold_ignored(bool on)
{
	static int holders;
	struct sigaction ours, ign;

	if (!running)
		return;
	memset(&ign, 0, sizeof(ign));
	ign.sa_handler = SIG_IGN;
	memset(&ours, 0, sizeof(ours));
	ours.sa_sigaction = on_sigprof;
	ours.sa_flags = OUR_FLAGS;
	sigfillset(&ours.sa_mask);
	if (on && __atomic_fetch_add(&holders, 1, __ATOMIC_ACQ_REL) == 0)
		REAL(sigaction)(SIGPROF, &ign, NULL);
	else if (!on && __atomic_sub_fetch(&holders, 1, __ATOMIC_ACQ_REL) == 0)
		REAL(sigaction)(SIGPROF, &ours, NULL);
}

/* Async-signal-safe. */
void
timer_vfork_child(void)
{
	struct sigaction ign;

	if (running && program_act.sa_handler == SIG_IGN) {
		memset(&ign, 0, sizeof(ign));
		ign.sa_handler = SIG_IGN;
		REAL(sigaction)(SIGPROF, &ign, NULL);
	}
	masks_apply_view(true);
	masks_toggle_view(true);
}

/* Async-signal-safe. */
bool
timer_taken_over(void)
{
	struct sigaction cur;

	if (!running || REAL(sigaction)(SIGPROF, NULL, &cur) < 0)
		return false;
	return !(cur.sa_flags & SA_SIGINFO) || cur.sa_sigaction != on_sigprof;
}

/* Async-signal-safe. */
void
timer_forget(void)
{
	timer_close();
	running = false;
}

/* Async-signal-safe. */
void
timer_get_program_action(struct sigaction *sa)
{
	*sa = program_act;
}

/* Async-signal-safe. */
void
timer_set_program_action(const struct sigaction *sa)
{
	struct sigaction cur;
	int added;

	program_act = *sa;
	sigdelset(&program_act.sa_mask, SIGKILL);
	sigdelset(&program_act.sa_mask, SIGSTOP);
	/* Our handler went in with exactly OUR_FLAGS: whatever else the
	 * kernel reports for it (SA_RESTORER on x86) the C library adds to
	 * every action, and the program would see it on its own too. */
	if (!running || REAL(sigaction)(SIGPROF, NULL, &cur) < 0)
		return;
	added = cur.sa_flags & ~OUR_FLAGS;
	if (added) {
		program_act.sa_flags |= added;
		program_act.sa_restorer = cur.sa_restorer;
	}
}

/* Async-signal-safe. */
void
timer_fork_child(void)
{
	/* handlers that were running on the parent's other threads do not
	 * exist here */
	__atomic_store_n(&inflight, 0, __ATOMIC_RELAXED);
	/* the parent's member is unmapped here: timer_start publishes ours */
	__atomic_store_n(&live, NULL, __ATOMIC_SEQ_CST);
}

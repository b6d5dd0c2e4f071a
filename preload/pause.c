/* SPDX-License-Identifier: MIT */
/*
 * Pausing and resuming: one process-wide flag that the SIGPROF handler
 * reads before it counts, and three ways to flip it:
 *
 *   the program    profrun_control() (<profrun/profrun.h> finds it)
 *   a signal       PROFRUN_TOGGLE_SIGNAL, while the program leaves that
 *                  signal at its default action; when the program sets an
 *                  action of its own we give the signal back and say so
 *   a CPU window   PROFRUN_DELAY / PROFRUN_DURATION, on the process's CPU
 *                  clock (a POSIX timer that sends no signal)
 *
 * Our signals only ever reach a thread that is running: a signal that
 * lands on a thread asleep in nanosleep, epoll_wait or poll makes the call
 * fail with EINTR, SA_RESTART or not.  So the window's timer sends none,
 * and the toggle signal stays blocked in every thread (the program sees
 * the mask it set, masks.c); the SIGPROF handler, which runs only on a
 * thread using CPU, takes both (pause_poll).  With either of them set,
 * a pause leaves the thread timers armed for that (their samples are
 * dropped); otherwise a pause disarms every thread's timer (threads.c) and
 * a resume re-arms them.  The flag drops whatever expiration was already
 * on its way.  The
 * CPU time used while paused goes into the member's pause record: the
 * process's (its CPU clock at each edge) and each thread's (threads.c).
 * Transitions are serialized by a spin lock taken with every signal
 * blocked, so a toggle signal or a window edge arriving in a thread that
 * is inside one never waits for itself.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "profrun/profrun.h"
#include "shim.h"
#include "interpose/interpose.h"
#include "sample/sample.h"
#include "member/member.h"
#include "sys.h"

static int paused;		  /* the flag: 1 = counting nothing */
static int lock;		  /* serializes transitions */
static struct profrun_pause *rec; /* the member's pause record, or NULL */

static struct {
	int sig;   /* 0 = none */
	bool live; /* our handler is installed for it */
} toggle;

/* The CPU window: edges on the process's CPU clock, from the shim's start. */
static struct {
	uint64_t delay_ns, duration_ns;
	int step;	    /* next edge: 0 resume at delay, 1 pause, 2 none */
	int timer;	    /* kernel timer id, -1 = none */
	uint64_t fork_left; /* ns to the next edge when the parent forked */
} win = {.step = 2, .timer = -1};

/* ---------------------------------------------------------------- the lock */
/* Every signal blocked with the system call itself (the SIGPROF handler
 * reaches this, and may call nothing else of the C library); OLD gets the
 * mask to restore.  OLD NULL: no handler of ours is installed yet (the
 * main thread at start), the mask is left alone.  Async-signal-safe. */
void
pause_lock(sigset_t *old)
{
	uint64_t all = ~0ull;

	if (old != NULL)
		syscall(SYS_rt_sigprocmask, SIG_BLOCK, &all, old, sizeof(all));
	while (__atomic_exchange_n(&lock, 1, __ATOMIC_ACQUIRE))
		syscall(SYS_sched_yield);
}

/* Async-signal-safe. */
void
pause_unlock(const sigset_t *old)
{
	__atomic_store_n(&lock, 0, __ATOMIC_RELEASE);
	if (old != NULL)
		syscall(SYS_rt_sigprocmask, SIG_SETMASK, old, NULL,
			sizeof(uint64_t));
}

/* Async-signal-safe. */
bool
pause_now(void)
{
	return __atomic_load_n(&paused, __ATOMIC_ACQUIRE) != 0;
}

/* Async-signal-safe. */
uint64_t
pause_drop(uint64_t n)
{
	if (rec != NULL)
		__atomic_add_fetch(&rec->dropped, n, __ATOMIC_RELAXED);
	return 0;
}

/* ---------------------------------------------------------------- edges */
/* Flip to PAUSE with the lock held.  Async-signal-safe. */
static void
flip_locked(bool pause)
{
	uint64_t now;

	if (pause_now() == pause)
		return;
	now = writer_cpu_ns();
	if (pause) {
		__atomic_store_n(&paused, 1, __ATOMIC_RELEASE);
		if (rec != NULL) {
			rec->thread_slots = PROFRUN_THREAD_SLOTS;
			rec->mark_cpu_ns = now;
			rec->pauses++;
			__atomic_store_n(&rec->paused, 1, __ATOMIC_RELEASE);
		}
		threads_pause(true);
		return;
	}
	if (rec != NULL) {
		if (now > rec->mark_cpu_ns)
			rec->paused_cpu_ns += now - rec->mark_cpu_ns;
		rec->resumes++;
		__atomic_store_n(&rec->paused, 0, __ATOMIC_RELEASE);
	}
	__atomic_store_n(&paused, 0, __ATOMIC_RELEASE); /* lets them re-arm */
	threads_pause(false);
}

/* Async-signal-safe. */
void
pause_set(bool pause)
{
	sigset_t old;

	/* a process started without a pause setting has not reserved the
	 * pause record and the threads' marks after it (reserve.c): they are
	 * reserved before the first store, or the pause does not happen */
	if (rec != NULL &&
	    !reserve_room(
		    rec, sizeof(*rec) + PROFRUN_THREAD_SLOTS * sizeof(uint64_t),
		    false))
		return;
	pause_lock(&old);
	if (shim_owns_profile())
		flip_locked(pause);
	pause_unlock(&old);
}

/* The program's entry point (<profrun/profrun.h>).  Async-signal-safe. */
EXPORT int
profrun_control(int op)
{
	int saved = errno;

	if (op == PROFRUN_CONTROL_PAUSE || op == PROFRUN_CONTROL_RESUME)
		pause_set(op == PROFRUN_CONTROL_PAUSE);
	errno = saved;
	return shim_owns_profile() ? pause_now() : -1;
}

/* ---------------------------------------------------------------- window */
/* Make the window's timer: once, outside the handler.  It sends nothing:
 * the handler asks it (window_due).  Async-signal-safe (system calls
 * only). */
static void
window_create(void)
{
	struct sigevent ev;

	memset(&ev, 0, sizeof(ev));
	ev.sigev_notify = SIGEV_NONE;
	if (syscall(SYS_timer_create, CLOCK_PROCESS_CPUTIME_ID, &ev,
		    &win.timer) < 0) {
		win.timer = -1;
		shim_warn("cannot arm the CPU-time window; it is ignored");
	}
}

/* Set the window's timer to expire once after NS of process CPU time.
 * Async-signal-safe: the handler calls it, and nothing but the system
 * call. */
static void
window_set(uint64_t ns)
{
	struct itimerspec its = {{0, 0}, {0, 0}};
	int id = __atomic_load_n(&win.timer, __ATOMIC_ACQUIRE);

	if (id < 0)
		return;
	if (ns == 0)
		ns = 1;
	its.it_value.tv_sec = (time_t)(ns / 1000000000u);
	its.it_value.tv_nsec = (long)(ns % 1000000000u);
	syscall(SYS_timer_settime, id, 0, &its, NULL);
}

/* Async-signal-safe. */
static void
window_arm(uint64_t ns)
{
	if (win.timer < 0)
		window_create();
	window_set(ns);
}

/* Has the window's timer expired?  (Expired with no signal to send, it
 * reads 0; past its time but not yet checked by the tick, 1 ns.)
 * Async-signal-safe. */
static bool
window_due(void)
{
	struct itimerspec its;
	int id = __atomic_load_n(&win.timer, __ATOMIC_ACQUIRE);

	return id >= 0 && syscall(SYS_timer_gettime, id, &its) == 0 &&
	       its.it_value.tv_sec == 0 && its.it_value.tv_nsec <= 1;
}

/* Async-signal-safe. */
void
pause_window_stop(void)
{
	int id = __atomic_exchange_n(&win.timer, -1, __ATOMIC_ACQ_REL);

	if (id >= 0)
		syscall(SYS_timer_delete, id);
}

/* The window's edge came: take it once, whichever threads see it at the
 * same time.  Async-signal-safe. */
static void
window_edge(void)
{
	sigset_t old;

	pause_lock(&old);
	if (window_due() && shim_owns_profile()) {
		if (win.step == 0) {
			win.step = win.duration_ns ? 1 : 2;
			flip_locked(false);
			if (win.step == 1)
				window_set(win.duration_ns);
		} else if (win.step == 1) {
			win.step = 2;
			flip_locked(true);
		}
		if (win.step == 2)
			pause_window_stop();
	}
	pause_unlock(&old);
}

/* Take the toggle signals pending (blocked, so pending for the process
 * or this thread), at most a few: each one flips.  Async-signal-safe
 * (system calls only). */
static void
toggle_take(void)
{
	uint64_t set = 1ull << (toggle.sig - 1);
	struct timespec zero = {0, 0};

	for (int i = 0; i < 64 && syscall(SYS_rt_sigtimedwait, &set, NULL,
					  &zero, sizeof(set)) == toggle.sig;
	     i++)
		pause_set(!pause_now());
}

/* Async-signal-safe. */
void
pause_poll(void)
{
	if (win.timer >= 0 && window_due())
		window_edge();
	if (toggle.live)
		toggle_take();
}

/* Async-signal-safe. */
void
pause_fork_prepare(void)
{
	struct itimerspec its;

	win.fork_left = 0;
	if (win.timer >= 0 && syscall(SYS_timer_gettime, win.timer, &its) == 0)
		win.fork_left = (uint64_t)its.it_value.tv_sec * 1000000000u +
				(uint64_t)its.it_value.tv_nsec;
}

/* ---------------------------------------------------------------- toggle */
/* One warning "WHAT (signal N)REST" about the toggle signal.
 * Async-signal-safe. */
static void
toggle_warn(const char *what, const char *rest)
{
	char buf[200] = "", num[12];
	int k = 0;
	unsigned v = (unsigned)toggle.sig;

	do
		num[k++] = (char)('0' + v % 10);
	while ((v /= 10) != 0);
	strncat(buf, what, 80);
	strcat(buf, " (signal ");
	while (k > 0)
		strncat(buf, &num[--k], 1);
	strcat(buf, ")");
	strncat(buf, rest, 100);
	shim_warn(buf);
}

/* SIG back to its default action.  Async-signal-safe. */
static void
set_default(int sig)
{
	struct sigaction dfl;

	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	real_sigaction(sig, &dfl, NULL);
}

/* Our handler of the toggle signal.  Async-signal-safe. */
static void
on_toggle(int sig, siginfo_t *si, void *uc)
{
	int saved = errno;

	(void)si;
	(void)uc;
	if (shim_owns_profile()) {
		pause_set(!pause_now());
		errno = saved;
		return;
	}
	/* the process whose profile stopped or ended (its exit is under
	 * way: stdio's last flush is still to come) keeps the signal as ours,
	 * a toggle with nothing to toggle */
	if (shim_is_owner()) {
		errno = saved;
		return;
	}
	/* not ours to take (a vfork child, which shares our memory but not
	 * our actions, or a fork child that has no profile): the default
	 * action, as without profrun, once this handler returns */
	set_default(sig);
	syscall(SYS_tgkill, sys_getpid(), syscall(SYS_gettid), sig);
	errno = saved;
}

/* Install on_toggle for the toggle signal if the program has it at its
 * default action.  Async-signal-safe. */
static void
toggle_install(void)
{
	struct sigaction cur, ours;

	if (toggle.sig == 0 || toggle.live ||
	    REAL(sigaction)(toggle.sig, NULL, &cur) < 0)
		return;
	if ((cur.sa_flags & SA_SIGINFO) || cur.sa_handler != SIG_DFL) {
		toggle_warn(
			"the toggle signal",
			" is not at its default action in this program; toggling by signal is off");
		if (rec != NULL)
			rec->flags |= PROFRUN_PAUSE_F_TOGGLE_OFF;
		return;
	}
	memset(&ours, 0, sizeof(ours));
	ours.sa_sigaction = on_toggle;
	ours.sa_flags = SA_SIGINFO | SA_RESTART;
	sigfillset(&ours.sa_mask);
	if (real_sigaction(toggle.sig, &ours, NULL) == 0) {
		masks_hold_toggle(
			toggle.sig); /* blocked: pause_poll takes it */
		toggle.live = true;
	}
}

/* Async-signal-safe. */
bool
pause_is_toggle(int sig)
{
	return toggle.live && sig == toggle.sig;
}

/* Async-signal-safe. */
int
pause_toggle_signal(void)
{
	return toggle.live ? toggle.sig : 0;
}

/* The program sets an action of its own for the toggle signal: it is the
 * program's from now on.  Async-signal-safe. */
static void
toggle_give_back(void)
{
	toggle.live = false;
	masks_release_toggle(toggle.sig);
	set_default(toggle.sig);
	if (rec != NULL)
		rec->flags |= PROFRUN_PAUSE_F_TOGGLE_OFF;
	toggle_warn("the program handles the toggle signal",
		    " itself; toggling by signal is off");
}

/* Async-signal-safe as sigaction is. */
int
pause_sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	struct sigaction view;
	int r;

	memset(&view, 0, sizeof(view));
	view.sa_handler = SIG_DFL;
	if (act == NULL ||
	    (!(act->sa_flags & SA_SIGINFO) && act->sa_handler == SIG_DFL)) {
		if (old != NULL)
			*old = view;
		return 0;
	}
	toggle_give_back();
	r = real_sigaction(sig, act, old);
	if (r == 0 && old != NULL)
		*old = view;
	return r;
}

/* signal(), bsd_signal(), ssignal() and sigset() for the toggle signal:
 * REAL_FN is the next definition of the one called.  Async-signal-safe
 * as they are. */
shim_handler_fn
pause_signal(shim_handler_fn (*real_fn)(int, shim_handler_fn), int sig,
	     shim_handler_fn handler)
{
	struct sigaction ours = {.sa_sigaction = on_toggle};
	shim_handler_fn r;

	if (handler == SIG_DFL)
		return SIG_DFL;
	if (handler != SIG_HOLD)
		toggle_give_back();
	if (real_fn == NULL)
		return SIG_ERR;
	r = real_fn(sig, handler);
	return r == ours.sa_handler ? SIG_DFL : r; /* the same union */
}

/* ---------------------------------------------------------------- setup */
/* Not async-signal-safe (called once, from the constructor). */
void
pause_configure(bool start_paused, int sig, uint64_t delay_ns,
		uint64_t duration_ns)
{
	toggle.sig = sig;
	threads_keep_ticking(sig != 0 || delay_ns != 0 || duration_ns != 0);
	win.delay_ns = delay_ns;
	win.duration_ns = duration_ns;
	win.step = delay_ns ? 0 : duration_ns ? 1 : 2;
	/* before any timer is armed: nothing is counted until a resume */
	paused = start_paused || delay_ns;
}

/* Async-signal-safe. */
void
pause_attach(struct profrun_header *h, struct profrun_pause *r, bool forked)
{
	rec = r;
	/* a process that never pauses leaves the record untouched, all
	 * zero, and its page on disk given back */
	if (rec != NULL &&
	    (toggle.sig || win.delay_ns || win.duration_ns || paused)) {
		rec->thread_slots = PROFRUN_THREAD_SLOTS;
		rec->toggle_signal = toggle.sig;
		if (toggle.sig)
			rec->flags |= PROFRUN_PAUSE_F_TOGGLE;
		if (win.delay_ns || win.duration_ns)
			rec->flags |= PROFRUN_PAUSE_F_WINDOW;
		if (paused) {
			rec->mark_cpu_ns = h->cpu_start_ns;
			rec->pauses = 1;
			rec->paused = 1;
			if (!forked)
				rec->flags |= PROFRUN_PAUSE_F_START_PAUSED;
		}
	}
	if (!forked) {
		toggle_install();
		if (win.step < 2)
			window_arm(win.step == 0 ? win.delay_ns
						 : win.duration_ns);
	} else if (win.step < 2 && win.fork_left > 0) {
		window_arm(win.fork_left);
	}
}

/* Async-signal-safe. */
void
pause_fork_child(void)
{
	lock = 0;	/* a thread of the parent may have held it */
	win.timer = -1; /* POSIX timers are not inherited */
	rec = NULL;
}

/* At the end of the image (exit or exec): close the pause still open, so
 * that the record adds up to the end.  Async-signal-safe. */
void
pause_finish(void)
{
	sigset_t old;
	uint64_t now;

	if (rec == NULL || !pause_now())
		return; /* no pause to close: no system call (the exit path) */
	pause_lock(&old);
	if (pause_now()) {
		now = writer_cpu_ns();
		if (now > rec->mark_cpu_ns)
			rec->paused_cpu_ns += now - rec->mark_cpu_ns;
		rec->mark_cpu_ns = now;
	}
	pause_unlock(&old);
}

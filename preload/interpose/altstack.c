/* SPDX-License-Identifier: MIT */
/*
 * An alternate signal stack of the shim's own for every thread it starts
 * (the main thread at start, the others in the pthread_create
 * trampoline), so that our SIGPROF handler (SA_ONSTACK) never runs on the
 * interrupted stack: a signal frame on x86-64 with AVX-512 needs about
 * 12 KiB, more than a coroutine's or a small thread's stack has left.
 *
 * The program's own alternate stack always wins: a thread where one is
 * set already keeps it, and sigaltstack() is interposed so that the
 * program sees exactly what it set (SS_DISABLE while only ours is in
 * place).  Setting one of its own puts ours aside on that thread, and
 * disabling its own puts ours back.
 *
 * The program's SA_ONSTACK handlers run where they would without profrun:
 * while no thread has a stack of the program's, they go in without
 * SA_ONSTACK (on the thread's own stack, not ours: a handler may use more
 * than our 64 KiB, or set a stack of its own); and SIGPROF waits while
 * they run (added to their sa_mask), so that our frame never lands on top
 * of theirs on a small stack of the program's.  sigaction() reports the
 * action as the program set it.
 *
 * The stack copier (stacks.c) copies from the interrupted stack pointer,
 * not from the handler's, so -g is unchanged.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "shim.h"
#include "interpose/interpose.h"
#include "sys.h"

#define ALT_SIZE  (64u * 1024u) /* usable bytes, far above AT_MINSIGSTKSZ */
#define ALT_GUARD 4096u		/* PROT_NONE below it: overflow faults */
#ifndef SS_AUTODISARM
#define SS_AUTODISARM (1u << 31) /* <linux/signal.h> */
#endif

/* The calling thread's stack of ours (mapping base, guard included), or
 * NULL: none. */
static __thread char *t_alt __attribute__((tls_model("initial-exec")));
/* The program's own stack is in place on this thread (ours waits behind
 * it, mapped, and comes back when the program disables its own). */
static __thread bool t_prog __attribute__((tls_model("initial-exec")));

/* Threads where the program's own stack is in place.  While there is none,
 * the program's SA_ONSTACK handlers go in without SA_ONSTACK: without
 * profrun they would run on the thread's own stack, not on ours. */
static int prog_stacks;
/* Per signal (bit SIG - 1): the program asked for SA_ONSTACK / its mask
 * did not hold SIGPROF, which we added. */
static uint64_t onstack_sigs, prof_added;

/* The raw system call (glibc's wrapper is the symbol we interpose).
 * Async-signal-safe. */
static int
raw_sigaltstack(const stack_t *ss, stack_t *old)
{
	return (int)syscall(SYS_sigaltstack, ss, old);
}

/* Bytes to map for the stack: the usable size, or four times the minimum
 * the kernel asks for if that is more, plus the guard page. */
static size_t
alt_map_size(void)
{
	size_t size = ALT_SIZE, min = (size_t)getauxval(AT_MINSIGSTKSZ) * 4;

	if (min > size)
		size = (min + 4095) & ~(size_t)4095;
	return size + ALT_GUARD;
}

/* Our stack back in place on this thread; 0 or -1.  Async-signal-safe. */
static int
ours_back(void)
{
	stack_t ss = {.ss_sp = t_alt + ALT_GUARD,
		      .ss_size = alt_map_size() - ALT_GUARD};

	return raw_sigaltstack(&ss, NULL);
}

/* Async-signal-safe (system calls only). */
void
altstack_thread_start(void)
{
	stack_t cur;
	size_t len = alt_map_size();
	char *p;
	int saved = errno;

	if (t_alt != NULL || raw_sigaltstack(NULL, &cur) < 0 ||
	    !(cur.ss_flags & SS_DISABLE))
		goto out; /* the program has one: it wins */
	p = sys_mmap(NULL, len, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		goto out;
	sys_mprotect(p, ALT_GUARD, PROT_NONE);
	t_alt = p;
	if (ours_back() < 0) {
		sys_munmap(p, len);
		t_alt = NULL;
	}
out:
	errno = saved;
}

/* Put SA_ONSTACK back into (ON) or take it out of the real actions of
 * the program's SA_ONSTACK handlers.  Async-signal-safe. */
static void
onstack_apply(bool on)
{
	uint64_t sigs = __atomic_load_n(&onstack_sigs, __ATOMIC_ACQUIRE);
	struct sigaction cur;

	for (int sig = 1; sig <= 64 && REAL(sigaction) != NULL; sig++) {
		if (!(sigs & (1ull << (sig - 1))) ||
		    real_sigaction(sig, NULL, &cur) < 0)
			continue;
		if (on)
			cur.sa_flags |= SA_ONSTACK;
		else
			cur.sa_flags &= ~SA_ONSTACK;
		real_sigaction(sig, &cur, NULL);
	}
}

/* The program's own stack comes (ON) or goes on this thread.
 * Async-signal-safe. */
static void
prog_stack(bool on)
{
	if (t_prog == on)
		return;
	t_prog = on;
	if (on && __atomic_fetch_add(&prog_stacks, 1, __ATOMIC_ACQ_REL) == 0)
		onstack_apply(true);
	else if (!on &&
		 __atomic_sub_fetch(&prog_stacks, 1, __ATOMIC_ACQ_REL) == 0)
		onstack_apply(false);
}

/* Async-signal-safe (system calls only). */
void
altstack_thread_end(void)
{
	stack_t off = {.ss_flags = SS_DISABLE};
	int saved = errno;

	prog_stack(false);
	if (t_alt == NULL)
		return;
	/* refused (EPERM) while running on it: then it stays mapped */
	if (raw_sigaltstack(&off, NULL) == 0) {
		sys_munmap(t_alt, alt_map_size());
		t_alt = NULL;
	}
	errno = saved;
}

/* Async-signal-safe. */
void
altstack_fork_child(void)
{
	prog_stacks = t_prog ? 1 : 0; /* only this thread lives on */
}

/* The program's sigaltstack().  While ours is in place the program's view
 * is "none" (SS_DISABLE, as the kernel reports it); a stack of its own
 * takes ours' place, and ours comes back when it disables its own.  Errors
 * are the kernel's: the call goes to the kernel first.  Async-signal-safe,
 * as sigaltstack is. */
EXPORT int
sigaltstack(const stack_t *ss, stack_t *old)
{
	stack_t view = {.ss_flags = SS_DISABLE};
	bool disable = ss != NULL && (ss->ss_flags & SS_DISABLE);
	int saved;

	if (t_alt == NULL || t_prog) {
		if (raw_sigaltstack(ss, old) < 0)
			return -1;
		if (ss != NULL) {
			saved = errno;
			prog_stack(!disable);
			if (disable && t_alt != NULL)
				ours_back();
			errno = saved;
		}
		return 0;
	}
	/* ours is in place: the program sees none */
	if (old != NULL && raw_sigaltstack(NULL, old) < 0)
		return -1; /* EFAULT */
	if (ss != NULL && !disable) {
		if (raw_sigaltstack(ss, NULL) < 0)
			return -1; /* EFAULT, EINVAL, ENOMEM, EPERM: as without us */
		saved = errno;
		prog_stack(true);
		errno = saved;
	} else if (ss != NULL &&
		   (ss->ss_flags & ~SS_DISABLE & ~SS_AUTODISARM)) {
		errno = EINVAL;
		return -1;
	}
	if (old != NULL)
		*old = view;
	return 0;
}

/* Async-signal-safe. */
void
altstack_forget(int sig)
{
	uint64_t bit = sig >= 1 && sig <= 64 ? 1ull << (sig - 1) : 0;

	if (bit && (__atomic_load_n(&onstack_sigs, __ATOMIC_RELAXED) & bit)) {
		__atomic_and_fetch(&onstack_sigs, ~bit, __ATOMIC_ACQ_REL);
		__atomic_and_fetch(&prof_added, ~bit, __ATOMIC_ACQ_REL);
	}
}

/* Async-signal-safe as sigaction is. */
int
altstack_sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	uint64_t bit = sig >= 1 && sig <= 64 ? 1ull << (sig - 1) : 0;
	uint64_t was_on, was_added;
	struct sigaction copy;
	bool onstack = act != NULL && (act->sa_flags & SA_ONSTACK), add;
	int r;

	if (REAL(sigaction) == NULL) {
		errno = ENOSYS;
		return -1;
	}
	was_on = __atomic_load_n(&onstack_sigs, __ATOMIC_ACQUIRE) & bit;
	if (bit == 0 || (!was_on && !onstack) || !shim_owns_profile())
		return real_sigaction(sig, act, old);
	was_added = __atomic_load_n(&prof_added, __ATOMIC_ACQUIRE) & bit;
	if (onstack) {
		/* SIGPROF waits while the handler runs: our frame never goes
		 * on top of it on a small stack of the program's */
		copy = *act;
		add = sigismember(&copy.sa_mask, SIGPROF) != 1;
		sigaddset(&copy.sa_mask, SIGPROF);
		if (__atomic_load_n(&prog_stacks, __ATOMIC_ACQUIRE) == 0)
			copy.sa_flags &= ~SA_ONSTACK;
		act = &copy;
	}
	r = real_sigaction(sig, act, old);
	if (r < 0)
		return r;
	if (onstack) {
		__atomic_or_fetch(&onstack_sigs, bit, __ATOMIC_ACQ_REL);
		if (add)
			__atomic_or_fetch(&prof_added, bit, __ATOMIC_ACQ_REL);
		else
			__atomic_and_fetch(&prof_added, ~bit, __ATOMIC_ACQ_REL);
	} else if (act != NULL) {
		altstack_forget(sig);
	}
	if (old != NULL && was_on) {
		old->sa_flags |= SA_ONSTACK;
		if (was_added)
			sigdelset(&old->sa_mask, SIGPROF);
	}
	return r;
}

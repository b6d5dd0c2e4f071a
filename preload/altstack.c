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
 * place).  Setting one of its own replaces ours on that thread; disabling
 * "its" stack while ours is in place changes nothing but its view.
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

#define EXPORT __attribute__((visibility("default")))

#define ALT_SIZE  (64u * 1024u) /* usable bytes, far above AT_MINSIGSTKSZ */
#define ALT_GUARD 4096u		/* PROT_NONE below it: overflow faults */

/* The calling thread's stack of ours (mapping base, guard included), or
 * NULL: none, or the program set its own. */
static __thread char *t_alt __attribute__((tls_model("initial-exec")));

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

/* Async-signal-safe (system calls only). */
void
altstack_thread_start(void)
{
	stack_t cur, ss;
	size_t len = alt_map_size();
	char *p;
	int saved = errno;

	if (t_alt != NULL || raw_sigaltstack(NULL, &cur) < 0 ||
	    !(cur.ss_flags & SS_DISABLE))
		goto out; /* the program has one: it wins */
	p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		goto out;
	mprotect(p, ALT_GUARD, PROT_NONE);
	ss.ss_sp = p + ALT_GUARD;
	ss.ss_size = len - ALT_GUARD;
	ss.ss_flags = 0;
	if (raw_sigaltstack(&ss, NULL) < 0) {
		munmap(p, len);
		goto out;
	}
	t_alt = p;
out:
	errno = saved;
}

/* Async-signal-safe (system calls only). */
void
altstack_thread_end(void)
{
	stack_t off = {.ss_flags = SS_DISABLE};
	int saved = errno;

	if (t_alt == NULL)
		return;
	/* refused (EPERM) while running on it: then it stays mapped */
	if (raw_sigaltstack(&off, NULL) == 0) {
		munmap(t_alt, alt_map_size());
		t_alt = NULL;
	}
	errno = saved;
}

/* The program's sigaltstack().  While ours is in place the program's view
 * is "none" (SS_DISABLE, as the kernel reports it); a stack of its own
 * replaces ours, and ours is unmapped.  Errors are the kernel's: the call
 * goes to the kernel first.  Async-signal-safe, as sigaltstack is. */
EXPORT int
sigaltstack(const stack_t *ss, stack_t *old)
{
	stack_t prev, ours;
	int saved;

	if (t_alt == NULL)
		return raw_sigaltstack(ss, old);
	if (raw_sigaltstack(ss, &prev) < 0)
		return -1; /* EFAULT, EINVAL, ENOMEM: as without us */
	if (old != NULL && raw_sigaltstack(NULL, old) < 0)
		return -1; /* EFAULT */
	if (ss != NULL && (ss->ss_flags & SS_DISABLE)) {
		/* "its" stack disabled: ours goes back, unseen */
		ours = prev;
		ours.ss_flags = 0;
		saved = errno;
		raw_sigaltstack(&ours, NULL);
		errno = saved;
	} else if (ss != NULL) {
		munmap(t_alt, alt_map_size()); /* the program's wins */
		t_alt = NULL;
	}
	if (old != NULL) {
		memset(old, 0, sizeof(*old));
		old->ss_flags = SS_DISABLE;
	}
	return 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * Threads and signal masks, as the program sees them.
 *
 * Each thread's timer (threads.c) sends SIGPROF to that thread only, so a
 * thread that blocks signals would never be sampled.  While we profile,
 * SIGPROF therefore stays unblocked for real, and the program sees exactly
 * the mask it asked for: pthread_sigmask() and sigprocmask() keep a
 * per-thread "SIGPROF blocked" bit of the program's view and report it
 * back; sigwait(), sigwaitinfo(), sigtimedwait() and signalfd() never wait
 * for SIGPROF, so our samples never reach them.  A new thread inherits its
 * creator's view; an exec'd image gets the mask the program asked for.
 *
 * pthread_create() starts each thread through a trampoline that registers
 * it and arms its timer before the program's start routine runs; a key
 * destructor disarms it and records its CPU time and name at its end.
 *
 * When the program takes SIGPROF for itself (shim.c steps aside) these
 * interposers pass everything through unchanged.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <stdarg.h>
#include <sys/signalfd.h>
#include <threads.h>

#include "shim.h"

#define EXPORT __attribute__((visibility("default")))

typedef int (*sigprocmask_fn)(int, const sigset_t *, sigset_t *);
typedef int (*sigwait_fn)(const sigset_t *, int *);
typedef int (*sigwaitinfo_fn)(const sigset_t *, siginfo_t *);
typedef int (*sigtimedwait_fn)(const sigset_t *, siginfo_t *,
			       const struct timespec *);
typedef int (*signalfd_fn)(int, const sigset_t *, int);
typedef int (*posix_spawn_fn)(pid_t *, const char *,
			      const posix_spawn_file_actions_t *,
			      const posix_spawnattr_t *, char *const[],
			      char *const[]);
typedef int (*pthread_create_fn)(pthread_t *, const pthread_attr_t *,
				 void *(*)(void *), void *);
typedef int (*thrd_create_fn)(thrd_t *, thrd_start_t, void *);
typedef int (*clone_fn)(int (*)(void *), void *, int, void *, ...);

pthread_sigmask_fn real_pthread_sigmask;
static sigprocmask_fn real_sigprocmask;
static int (*real_sigpending)(sigset_t *);
static sigwait_fn real_sigwait;
static sigwaitinfo_fn real_sigwaitinfo;
static sigtimedwait_fn real_sigtimedwait;
static signalfd_fn real_signalfd;
static pthread_create_fn real_pthread_create;
static thrd_create_fn real_thrd_create;
static clone_fn real_clone;
static posix_spawn_fn real_posix_spawn, real_posix_spawnp;

/* The program's view: does this thread block SIGPROF?  And is a SIGPROF
 * someone sent pending for it? */
static __thread bool t_prof_blocked __attribute__((tls_model("initial-exec")));
static __thread bool t_foreign __attribute__((tls_model("initial-exec")));
static pthread_key_t end_key;
static bool have_end_key;

#define CALL_REAL(fn, fail, ...)                                               \
	(REAL(fn) != NULL ? real_##fn(__VA_ARGS__) : (errno = ENOSYS, (fail)))

/* True while masks are ours to keep: this process owns a live profile.
 * Async-signal-safe. */
static bool
virtualizing(void)
{
	return shim_owns_profile();
}

/* Unblock SIGPROF for real if it is blocked, remembering in the view that
 * the program blocked it.  Async-signal-safe. */
static void
adopt_real_mask(void)
{
	sigset_t cur, prof;

	if (REAL(pthread_sigmask) == NULL ||
	    real_pthread_sigmask(SIG_SETMASK, NULL, &cur) != 0 ||
	    !sigismember(&cur, SIGPROF))
		return;
	t_prof_blocked = true;
	sigemptyset(&prof);
	sigaddset(&prof, SIGPROF);
	real_pthread_sigmask(SIG_UNBLOCK, &prof, NULL);
}

/* Async-signal-safe. */
void
masks_apply_view(bool block)
{
	sigset_t prof;

	if (!t_prof_blocked || REAL(pthread_sigmask) == NULL)
		return;
	sigemptyset(&prof);
	sigaddset(&prof, SIGPROF);
	real_pthread_sigmask(block ? SIG_BLOCK : SIG_UNBLOCK, &prof, NULL);
}

/* Async-signal-safe. */
bool
masks_view_blocked(void)
{
	return t_prof_blocked;
}

/* Async-signal-safe. */
void
masks_set_view_blocked(bool blocked)
{
	t_prof_blocked = blocked;
}

/* Async-signal-safe. */
void
masks_hold_foreign(void)
{
	t_foreign = true;
}

/* Key destructor: the thread is ending.  Not async-signal-safe (it runs
 * at thread exit, where that does not matter). */
static void
on_thread_end(void *unused)
{
	int saved = errno;

	(void)unused;
	threads_unregister_self();
	altstack_thread_end();
	errno = saved;
}

/* Not async-signal-safe (dlsym, pthread_key_create). */
void
masks_init(void)
{
	REAL(pthread_sigmask);
	REAL(sigprocmask);
	REAL(sigpending);
	REAL(sigwait);
	REAL(sigwaitinfo);
	REAL(sigtimedwait);
	REAL(signalfd);
	if (!have_end_key && pthread_key_create(&end_key, on_thread_end) == 0)
		have_end_key = true;
	adopt_real_mask();
}

/* ---------------------------------------------------------------- masks */
/* The view's SIGPROF bit after HOW with SET.  Returns false for an
 * invalid HOW (the real call then fails as it would). */
static bool
view_after(int how, const sigset_t *set, bool *blocked)
{
	bool in = sigismember(set, SIGPROF) == 1;

	switch (how) {
	case SIG_BLOCK:
		*blocked = t_prof_blocked || in;
		return true;
	case SIG_UNBLOCK:
		*blocked = t_prof_blocked && !in;
		return true;
	case SIG_SETMASK:
		*blocked = in;
		return true;
	default:
		return false;
	}
}

/* One implementation for both calls: SIGPROF leaves the real request,
 * the view keeps it.  REAL_FN is pthread_sigmask's or sigprocmask's.
 * Returns what REAL_FN returns. */
static int
mask_call(int (*real_fn)(int, const sigset_t *, sigset_t *), int how,
	  const sigset_t *set, sigset_t *old)
{
	sigset_t copy;
	bool was = t_prof_blocked, now = was;
	int r;

	if (set != NULL) {
		copy = *set; /* SET and OLD may be the same set */
		if (view_after(how, set, &now))
			sigdelset(&copy, SIGPROF); /* never blocked for real */
	}
	r = real_fn(how, set != NULL ? &copy : NULL, old);
	if (r != 0)
		return r;
	t_prof_blocked = now;
	if (was && !now && t_foreign) {
		t_foreign = false;
		timer_foreign_action(); /* delivered as the unblock returns */
	}
	if (old != NULL) {
		if (was)
			sigaddset(old, SIGPROF);
		else
			sigdelset(old, SIGPROF);
	}
	return r;
}

/* Async-signal-safe as pthread_sigmask is. */
EXPORT int
pthread_sigmask(int how, const sigset_t *set, sigset_t *old)
{
	if (REAL(pthread_sigmask) == NULL)
		return ENOSYS;
	if (!virtualizing())
		return real_pthread_sigmask(how, set, old);
	return mask_call(real_pthread_sigmask, how, set, old);
}

/* Async-signal-safe as sigprocmask is. */
EXPORT int
sigprocmask(int how, const sigset_t *set, sigset_t *old)
{
	if (REAL(sigprocmask) == NULL) {
		errno = ENOSYS;
		return -1;
	}
	if (!virtualizing())
		return real_sigprocmask(how, set, old);
	return mask_call(real_sigprocmask, how, set, old);
}

/* SIGPROF someone sent while the view blocked it is pending.
 * Async-signal-safe as sigpending is. */
EXPORT int
sigpending(sigset_t *set)
{
	int r = CALL_REAL(sigpending, -1, set);

	if (r == 0 && t_foreign && virtualizing())
		sigaddset(set, SIGPROF);
	return r;
}

/* ---------------------------------------------------------------- waits */
/* SET without SIGPROF into COPY while we profile; the set to pass on. */
static const sigset_t *
without_sigprof(const sigset_t *set, sigset_t *copy)
{
	if (set == NULL || !virtualizing() || sigismember(set, SIGPROF) != 1)
		return set;
	*copy = *set;
	sigdelset(copy, SIGPROF);
	return copy;
}

EXPORT int
sigwait(const sigset_t *set, int *sig)
{
	sigset_t copy;

	if (REAL(sigwait) == NULL)
		return ENOSYS;
	return real_sigwait(without_sigprof(set, &copy), sig);
}

EXPORT int
sigwaitinfo(const sigset_t *set, siginfo_t *info)
{
	sigset_t copy;

	return CALL_REAL(sigwaitinfo, -1, without_sigprof(set, &copy), info);
}

EXPORT int
sigtimedwait(const sigset_t *set, siginfo_t *info, const struct timespec *ts)
{
	sigset_t copy;

	return CALL_REAL(sigtimedwait, -1, without_sigprof(set, &copy), info,
			 ts);
}

EXPORT int
signalfd(int fd, const sigset_t *mask, int flags)
{
	sigset_t copy;

	return CALL_REAL(signalfd, -1, fd, without_sigprof(mask, &copy), flags);
}

/* ---------------------------------------------------------------- spawn */
/* What a posix_spawn child inherits of SIGPROF is what the program set:
 * SIG_IGN stays ignored (not our handler reset to SIG_DFL) and a blocked
 * view is blocked, unless ATTR sets them itself. */
static int
spawn_as_viewed(posix_spawn_fn real_fn, pid_t *pid, const char *path,
		const posix_spawn_file_actions_t *fa,
		const posix_spawnattr_t *attr, char *const argv[],
		char *const envp[], bool search)
{
	pid_t child = 0;
	struct sigaction view;
	short flags = 0;
	sigset_t dfl;
	bool ign, block;
	int r;

	if (real_fn == NULL)
		return ENOSYS;
	if (!virtualizing())
		return real_fn(pid, path, fa, attr, argv, envp);
	if (attr != NULL)
		posix_spawnattr_getflags(attr, &flags);
	sigemptyset(&dfl);
	if (attr != NULL && (flags & POSIX_SPAWN_SETSIGDEF))
		posix_spawnattr_getsigdefault(attr, &dfl);
	timer_get_program_action(&view);
	ign = view.sa_handler == SIG_IGN && sigismember(&dfl, SIGPROF) != 1;
	block = t_prof_blocked && !(flags & POSIX_SPAWN_SETSIGMASK);
	if (ign)
		timer_hold_ignored(true);
	if (block)
		masks_apply_view(true);
	r = real_fn(&child, path, fa, attr, argv, envp);
	if (block)
		masks_apply_view(false);
	if (ign)
		timer_hold_ignored(false);
	if (r == 0) {
		offspring_spawned(child, path, search);
		if (pid != NULL)
			*pid = child;
	}
	return r;
}

EXPORT int
posix_spawn(pid_t *pid, const char *path, const posix_spawn_file_actions_t *fa,
	    const posix_spawnattr_t *attr, char *const argv[],
	    char *const envp[])
{
	return spawn_as_viewed(REAL(posix_spawn), pid, path, fa, attr, argv,
			       envp, false);
}

EXPORT int
posix_spawnp(pid_t *pid, const char *file, const posix_spawn_file_actions_t *fa,
	     const posix_spawnattr_t *attr, char *const argv[],
	     char *const envp[])
{
	return spawn_as_viewed(REAL(posix_spawnp), pid, file, fa, attr, argv,
			       envp, true);
}

/* ---------------------------------------------------------------- threads */
struct start {
	void *(*fn)(void *);	/* pthread_create's */
	int (*thrd_fn)(void *); /* or thrd_create's */
	void *arg;
	bool prof_blocked; /* the creator's view */
};

/* First code of every thread pthread_create() or thrd_create() starts:
 * take the creator's view of SIGPROF, register, arm the timer; the
 * program's start routine runs next.  Frees P. */
static struct start
thread_begin(void *p)
{
	struct start s = *(struct start *)p;

	free(p);
	t_prof_blocked = s.prof_blocked;
	if (virtualizing()) {
		adopt_real_mask(); /* pthread_attr_setsigmask_np */
		altstack_thread_start();
		stacks_thread_start();
		threads_register_self(false);
		if (have_end_key)
			pthread_setspecific(end_key, &end_key);
	}
	return s;
}

static void *
trampoline(void *p)
{
	struct start s = thread_begin(p);

	return s.fn(s.arg);
}

/* C11 threads: glibc's thrd_create() starts them through its internal
 * pthread_create, which the interposer below never sees. */
static int
thrd_trampoline(void *p)
{
	struct start s = thread_begin(p);

	return s.thrd_fn(s.arg);
}

/* The record of a new thread's start, or NULL to start it unchanged. */
static struct start *
new_start(void *(*fn)(void *), int (*thrd_fn)(void *), void *arg)
{
	struct start *s;

	if (!virtualizing() || (s = malloc(sizeof(*s))) == NULL)
		return NULL;
	s->fn = fn;
	s->thrd_fn = thrd_fn;
	s->arg = arg;
	s->prof_blocked = t_prof_blocked;
	return s;
}

/* Not async-signal-safe (neither is pthread_create). */
EXPORT int
pthread_create(pthread_t *thread, const pthread_attr_t *attr,
	       void *(*fn)(void *), void *arg)
{
	struct start *s;
	int r;

	if (REAL(pthread_create) == NULL)
		return EAGAIN;
	if ((s = new_start(fn, NULL, arg)) == NULL)
		return real_pthread_create(thread, attr, fn, arg);
	r = real_pthread_create(thread, attr, trampoline, s);
	if (r != 0)
		free(s);
	return r;
}

/* Not async-signal-safe (neither is thrd_create). */
EXPORT int
thrd_create(thrd_t *thr, thrd_start_t fn, void *arg)
{
	struct start *s;
	int r;

	if (REAL(thrd_create) == NULL)
		return thrd_error;
	if ((s = new_start(NULL, fn, arg)) == NULL)
		return real_thrd_create(thr, fn, arg);
	r = real_thrd_create(thr, thrd_trampoline, s);
	if (r != thrd_success)
		free(s);
	return r;
}

/* A thread the program starts with clone() itself runs on a stack and
 * thread pointer of its own making, where nothing of ours may run: it is
 * counted, so that the report names the cause of its unsampled CPU time.
 * The arguments past ARG are passed on as they came (the kernel reads
 * them only when FLAGS ask).  Async-signal-safe as clone is. */
EXPORT int
clone(int (*fn)(void *), void *stack, int flags, void *arg, ...)
{
	va_list ap;
	pid_t *ptid, *ctid;
	void *tls;
	int r;

	va_start(ap, arg);
	ptid = va_arg(ap, pid_t *);
	tls = va_arg(ap, void *);
	ctid = va_arg(ap, pid_t *);
	va_end(ap);
	r = CALL_REAL(clone, -1, fn, stack, flags, arg, ptid, tls, ctid);
	if (r > 0 && (flags & CLONE_THREAD))
		threads_count_unhooked();
	return r;
}

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
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdarg.h>
#include <sys/signalfd.h>
#include <threads.h>

#include "libc/libc.h"
#include "shim.h"
#include "interpose/interpose.h"
#include "sample/sample.h"

typedef int (*sigprocmask_fn)(int, const sigset_t *, sigset_t *);
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
static int (*real_sigsuspend)(const sigset_t *);
static sigwaitinfo_fn real_sigwaitinfo;
static sigtimedwait_fn real_sigtimedwait;
static signalfd_fn real_signalfd;
static pthread_create_fn real_pthread_create;
static thrd_create_fn real_thrd_create;
static clone_fn real_clone;
static posix_spawn_fn real_posix_spawn, real_posix_spawnp;
static int (*real_system)(const char *);
static FILE *(*real_popen)(const char *, const char *);

/* The program's view: does this thread block SIGPROF?  And is a SIGPROF
 * someone sent pending for it? */
static __thread bool t_prof_blocked __attribute__((tls_model("initial-exec")));
static __thread bool t_foreign __attribute__((tls_model("initial-exec")));
/* The program's view of the toggle signal (pause.c) while it is ours:
 * blocked for real in every thread, whatever the program asked. */
static __thread bool t_toggle_blocked
	__attribute__((tls_model("initial-exec")));
static __thread siginfo_t t_foreign_info
	__attribute__((tls_model("initial-exec")));
static pthread_key_t end_key;
static bool have_end_key;

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

/* SIG's real bit on the calling thread.  Async-signal-safe. */
static void
real_block(int sig, bool block)
{
	sigset_t one;

	sigemptyset(&one);
	sigaddset(&one, sig);
	if (REAL(pthread_sigmask) != NULL)
		real_pthread_sigmask(block ? SIG_BLOCK : SIG_UNBLOCK, &one,
				     NULL);
}

/* Async-signal-safe. */
void
masks_hold_toggle(int sig)
{
	sigset_t cur;

	if (REAL(pthread_sigmask) != NULL &&
	    real_pthread_sigmask(SIG_SETMASK, NULL, &cur) == 0)
		t_toggle_blocked = sigismember(&cur, sig) == 1;
	real_block(sig, true);
}

/* Async-signal-safe. */
void
masks_release_toggle(int sig)
{
	if (!t_toggle_blocked)
		real_block(sig, false);
}

/* Async-signal-safe. */
void
masks_toggle_view(bool program)
{
	int sig = pause_toggle_signal();

	if (sig != 0 && !t_toggle_blocked)
		real_block(sig, !program);
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

/* Not async-signal-safe (dlsym). */
void
masks_init(void)
{
	REAL(pthread_sigmask);
	REAL(sigprocmask);
	REAL(sigpending);
	REAL(sigsuspend);
	REAL(sigwaitinfo);
	REAL(sigtimedwait);
	REAL(signalfd);
	adopt_real_mask();
}

/* ---------------------------------------------------------------- masks */
/* The view's bit of SIG (blocked: CUR) after HOW with SET.  Returns false
 * for an invalid HOW (the real call then fails as it would). */
static bool
view_after(int how, const sigset_t *set, int sig, bool cur, bool *blocked)
{
	bool in = sigismember(set, sig) == 1;

	switch (how) {
	case SIG_BLOCK:
		*blocked = cur || in;
		return true;
	case SIG_UNBLOCK:
		*blocked = cur && !in;
		return true;
	case SIG_SETMASK:
		*blocked = in;
		return true;
	default:
		return false;
	}
}

/* SIG into SET if BLOCKED, out of it if not. */
static void
set_bit(sigset_t *set, int sig, bool blocked)
{
	if (blocked)
		sigaddset(set, sig);
	else
		sigdelset(set, sig);
}

/* One implementation for both calls: SIGPROF leaves the real request and
 * the toggle signal (TSIG, 0: none) stays in it (never blocked / always
 * blocked for real), the view keeps what the program asked.  REAL_FN is
 * pthread_sigmask's or sigprocmask's.  Returns what REAL_FN returns. */
static int
mask_call(int (*real_fn)(int, const sigset_t *, sigset_t *), int how,
	  const sigset_t *set, sigset_t *old, int tsig)
{
	sigset_t copy;
	bool was = t_prof_blocked, now = was;
	bool twas = t_toggle_blocked, tnow = twas;
	int r;

	if (set != NULL) {
		copy = *set; /* SET and OLD may be the same set */
		if (view_after(how, set, SIGPROF, was, &now))
			sigdelset(&copy, SIGPROF); /* never blocked for real */
		if (tsig != 0 && view_after(how, set, tsig, twas, &tnow))
			set_bit(&copy, tsig, how != SIG_UNBLOCK);
	}
	r = real_fn(how, set != NULL ? &copy : NULL, old);
	if (r != 0)
		return r;
	t_prof_blocked = now;
	if (tsig != 0)
		t_toggle_blocked = tnow;
	if (was && !now && t_foreign) {
		t_foreign = false;
		timer_foreign_action(); /* delivered as the unblock returns */
	}
	if (old != NULL) {
		set_bit(old, SIGPROF, was);
		if (tsig != 0)
			set_bit(old, tsig, twas);
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
	return mask_call(real_pthread_sigmask, how, set, old,
			 pause_toggle_signal());
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
	return mask_call(real_sigprocmask, how, set, old,
			 pause_toggle_signal());
}

/* SIGPROF is pending for the program when someone sent it while the view
 * blocked it, never for one of our samples in flight; the toggle signal,
 * while it is ours, is not the program's.  Async-signal-safe as
 * sigpending is. */
EXPORT int
sigpending(sigset_t *set)
{
	int r = CALL_REAL(sigpending, -1, set);

	if (r == 0 && virtualizing()) {
		set_bit(set, SIGPROF, t_foreign);
		if (pause_toggle_signal() != 0)
			sigdelset(set, pause_toggle_signal());
	}
	return r;
}

/* ---------------------------------------------------------------- old masks */
/* System V's sighold() and sigrelse(), BSD's sigblock() and sigsetmask()
 * (signals 1..32 as bits of an int): the same view as sigprocmask().
 * Async-signal-safe as they are. */
static int
mask_one(int how, int sig)
{
	sigset_t one;

	if (sigemptyset(&one) < 0 || sigaddset(&one, sig) < 0)
		return -1; /* EINVAL */
	return sigprocmask(how, &one, NULL);
}

EXPORT int
sighold(int sig)
{
	return mask_one(SIG_BLOCK, sig);
}

EXPORT int
sigrelse(int sig)
{
	return mask_one(SIG_UNBLOCK, sig);
}

#if SHIM_LIBC_GLIBC
/* MASK's bits as a set / the first 32 signals of SET as bits. */
static void
bits_to_set(int mask, sigset_t *set)
{
	sigemptyset(set);
	for (int i = 0; i < 32; i++)
		if ((unsigned)mask & (1u << i))
			sigaddset(set, i + 1);
}

static int
set_to_bits(const sigset_t *set)
{
	unsigned mask = 0;

	for (int i = 0; i < 32; i++)
		if (sigismember(set, i + 1) == 1)
			mask |= 1u << i;
	return (int)mask;
}

static int
bsd_mask(int how, int mask)
{
	sigset_t set, old;

	bits_to_set(mask, &set);
	if (sigprocmask(how, &set, &old) < 0)
		return -1;
	return set_to_bits(&old);
}

int sigblock(int mask);
int sigsetmask(int mask);

EXPORT int
sigblock(int mask)
{
	return bsd_mask(SIG_BLOCK, mask);
}

EXPORT int
sigsetmask(int mask)
{
	return bsd_mask(SIG_SETMASK, mask);
}
#endif

/* ---------------------------------------------------------------- waits */
/* SET without SIGPROF into COPY while we profile; the set to pass on:
 * our samples never reach a wait of the program's. */
static const sigset_t *
without_sigprof(const sigset_t *set, sigset_t *copy)
{
	if (set == NULL || !virtualizing() || sigismember(set, SIGPROF) != 1)
		return set;
	*copy = *set;
	sigdelset(copy, SIGPROF);
	return copy;
}

/* A SIGPROF someone sent is held for the program (its view blocks
 * SIGPROF) and it waits for one: hand it over (its siginfo into INFO
 * unless NULL), as the kernel would have.  Async-signal-safe. */
static bool
take_foreign(const sigset_t *set, siginfo_t *info)
{
	if (!t_foreign || set == NULL || !virtualizing() ||
	    sigismember(set, SIGPROF) != 1)
		return false;
	t_foreign = false;
	if (info != NULL) {
		*info = t_foreign_info;
		if (info->si_code == SI_TKILL)
			info->si_code = SI_USER; /* as glibc's own waits say */
	}
	return true;
}

/* Async-signal-safe. */
void
masks_hold_foreign(const siginfo_t *si)
{
	t_foreign_info = *si;
	t_foreign = true;
}

/* glibc's sigwait() waits again after EINTR; so does this one, with
 * sigtimedwait() underneath so that a SIGPROF someone sends meanwhile
 * (its handler interrupts the wait) is handed over.  Async-signal-safe
 * as sigwait is. */
EXPORT int
sigwait(const sigset_t *set, int *sig)
{
	sigset_t copy;
	const sigset_t *pass = without_sigprof(set, &copy);
	int saved = errno, r;

	if (REAL(sigtimedwait) == NULL)
		return ENOSYS;
	for (;;) {
		if (take_foreign(set, NULL)) {
			*sig = SIGPROF;
			return 0;
		}
		r = real_sigtimedwait(pass, NULL, NULL);
		if (r > 0) {
			*sig = r;
			errno = saved;
			return 0;
		}
		if (errno != EINTR) {
			r = errno;
			errno = saved;
			return r;
		}
	}
}

EXPORT int
sigwaitinfo(const sigset_t *set, siginfo_t *info)
{
	sigset_t copy;
	int saved = errno, r;

	if (take_foreign(set, info))
		return SIGPROF;
	r = CALL_REAL(sigwaitinfo, -1, without_sigprof(set, &copy), info);
	if (r < 0 && errno == EINTR && take_foreign(set, info)) {
		errno = saved;
		return SIGPROF;
	}
	return r;
}

EXPORT int
sigtimedwait(const sigset_t *set, siginfo_t *info, const struct timespec *ts)
{
	sigset_t copy;
	int saved = errno, r;

	if (take_foreign(set, info))
		return SIGPROF;
	r = CALL_REAL(sigtimedwait, -1, without_sigprof(set, &copy), info, ts);
	if (r < 0 && errno == EINTR && take_foreign(set, info)) {
		errno = saved;
		return SIGPROF;
	}
	return r;
}

/* The view follows MASK while the thread is suspended: a SIGPROF someone
 * sends then gets the program's action if MASK unblocks it, and one held
 * already gets it now.  Async-signal-safe as sigsuspend is. */
EXPORT int
sigsuspend(const sigset_t *mask)
{
	sigset_t copy;
	bool was = t_prof_blocked, during;
	int r, saved;

	if (REAL(sigsuspend) == NULL) {
		errno = ENOSYS;
		return -1;
	}
	__asm__("" : "+r"(mask)); /* declared nonnull, yet NULL is EFAULT */
	if (mask == NULL || !virtualizing())
		return real_sigsuspend(mask);
	during = sigismember(mask, SIGPROF) == 1;
	if (!during && t_foreign) {
		t_foreign = false;
		timer_foreign_action(); /* SIG_DFL ends the process here */
	}
	copy = *mask;
	sigdelset(&copy, SIGPROF);
	if (pause_toggle_signal() != 0)
		sigaddset(&copy, pause_toggle_signal());
	t_prof_blocked = during;
	r = real_sigsuspend(&copy);
	saved = errno;
	t_prof_blocked = was;
	errno = saved;
	return r;
}

EXPORT int
signalfd(int fd, const sigset_t *mask, int flags)
{
	sigset_t copy;

	return CALL_REAL(signalfd, -1, fd, without_sigprof(mask, &copy), flags);
}

/* ---------------------------------------------------------------- spawn */
/* What a child started without fork() (posix_spawn, and glibc's system()
 * and popen(), which spawn through its internal posix_spawn) inherits of
 * SIGPROF is what the program set: SIG_IGN stays ignored (not our handler
 * reset to SIG_DFL) and a blocked view is blocked, unless the spawn's
 * attributes set them (SETSIGDEF with SIGPROF, SETSIGMASK).  Both are
 * real while the call runs: SIGPROF is ignored for the whole process
 * (samples of other threads are dropped meanwhile) and blocked for the
 * calling thread.  Its environment gets back the variables of ours it
 * lacks (environ.c). */
struct spawn_view {
	bool ign, block;
};

static void
spawn_view_begin(struct spawn_view *v, bool sets_default, bool sets_mask)
{
	struct sigaction view;

	timer_get_program_action(&view);
	v->ign = view.sa_handler == SIG_IGN && !sets_default;
	v->block = t_prof_blocked && !sets_mask;
	if (v->ign)
		timer_hold_ignored(true);
	if (v->block)
		masks_apply_view(true);
	masks_toggle_view(true);
}

static void
spawn_view_end(const struct spawn_view *v)
{
	int saved = errno;

	masks_toggle_view(false);
	if (v->block)
		masks_apply_view(false);
	if (v->ign)
		timer_hold_ignored(false);
	errno = saved;
}

static int
spawn_as_viewed(posix_spawn_fn real_fn, pid_t *pid, const char *path,
		const posix_spawn_file_actions_t *fa,
		const posix_spawnattr_t *attr, char *const argv[],
		char *const envp[], bool search)
{
	struct offspring_image im = {AT_FDCWD, path, -1, 0, search};
	ENVIRON_FOR_EXEC(envp, &im);
	pid_t child = 0;
	struct spawn_view v;
	short flags = 0;
	sigset_t dfl;
	int r;

	if (real_fn == NULL)
		return ENOSYS;
	if (!virtualizing()) {
		r = real_fn(&child, path, fa, attr, argv, envp);
		if (r == 0) {
			offspring_spawned(child, path, search);
			if (pid != NULL)
				*pid = child;
		}
		return r;
	}
	if (attr != NULL)
		posix_spawnattr_getflags(attr, &flags);
	sigemptyset(&dfl);
	if (attr != NULL && (flags & POSIX_SPAWN_SETSIGDEF))
		posix_spawnattr_getsigdefault(attr, &dfl);
	spawn_view_begin(&v, sigismember(&dfl, SIGPROF) == 1,
			 flags & POSIX_SPAWN_SETSIGMASK);
	r = real_fn(&child, path, fa, attr, argv, envp);
	spawn_view_end(&v);
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

/* system() and popen() run /bin/sh from inside the C library with the
 * environment in environ: while they do, environ holds the one fit for
 * /bin/sh's C library (its shim in LD_PRELOAD), when that differs. */
extern char **environ;
#define SHELL_ENVIRON_BEGIN()                                                  \
	char **shell_saved = environ;                                          \
	char *const *shell_env = environ;                                      \
	struct offspring_image shell_im = {AT_FDCWD, "/bin/sh", -1, 0, false}; \
	ENVIRON_FOR_EXEC(shell_env, &shell_im);                                \
	environ = (char **)shell_env
#define SHELL_ENVIRON_END()                                                    \
	do {                                                                   \
		if (environ == (char **)shell_env)                             \
			environ = shell_saved;                                 \
	} while (0)

/* Not async-signal-safe (neither is system). */
EXPORT int
system(const char *command)
{
	struct spawn_view v;
	int r;

	if (REAL(system) == NULL)
		return -1;
	SHELL_ENVIRON_BEGIN();
	if (command == NULL || !virtualizing()) {
		r = real_system(command);
	} else {
		spawn_view_begin(&v, false, false);
		r = real_system(command);
		spawn_view_end(&v);
	}
	SHELL_ENVIRON_END();
	return r;
}

/* Not async-signal-safe (neither is popen). */
EXPORT FILE *
popen(const char *command, const char *mode)
{
	struct spawn_view v;
	FILE *f;

	if (REAL(popen) == NULL) {
		errno = ENOSYS;
		return NULL;
	}
	SHELL_ENVIRON_BEGIN();
	if (!virtualizing()) {
		f = real_popen(command, mode);
	} else {
		spawn_view_begin(&v, false, false);
		f = real_popen(command, mode);
		spawn_view_end(&v);
	}
	SHELL_ENVIRON_END();
	return f;
}

/* ---------------------------------------------------------------- threads */
struct start {
	void *(*fn)(void *);	/* pthread_create's */
	int (*thrd_fn)(void *); /* or thrd_create's */
	void *arg;
	bool prof_blocked, toggle_blocked; /* the creator's view */
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
	t_toggle_blocked = s.toggle_blocked;
	if (virtualizing()) {
		adopt_real_mask(); /* pthread_attr_setsigmask_np */
		altstack_thread_start();
		stacks_thread_start();
		threads_register_self(false, false);
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

/* The key whose destructor sees each started thread end, made when the
 * first thread is started (a process that starts none never needs it). */
static void
make_end_key(void)
{
	have_end_key = pthread_key_create(&end_key, on_thread_end) == 0;
}

/* The record of a new thread's start, or NULL to start it unchanged. */
static struct start *
new_start(void *(*fn)(void *), int (*thrd_fn)(void *), void *arg)
{
	static pthread_once_t end_key_once = PTHREAD_ONCE_INIT;
	struct start *s;

	if (!virtualizing())
		return NULL;
	pthread_once(&end_key_once, make_end_key);
	if ((s = malloc(sizeof(*s))) == NULL)
		return NULL;
	s->fn = fn;
	s->thrd_fn = thrd_fn;
	s->arg = arg;
	s->prof_blocked = t_prof_blocked;
	s->toggle_blocked = t_toggle_blocked;
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

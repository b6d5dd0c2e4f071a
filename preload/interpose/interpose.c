/* SPDX-License-Identifier: MIT */
/*
 * The only symbols libprofrun.so exports: interposers that keep profiling
 * correct across fork and exec, and that step aside when the program wants
 * SIGPROF, ITIMER_PROF or profil() for itself.  Each forwards to real_<fn>
 * (dlsym(RTLD_NEXT)) and preserves the real function's result and errno.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "libc/libc.h"
#include "arch/arch.h"
#include "shim.h"
#include "interpose/interpose.h"
#include "sample/sample.h"
#include "member/member.h"
#include "sys.h"

#if SHIM_LIBC_GLIBC
#include <sys/gmon.h>
#endif

typedef pid_t (*fork_fn)(void);
typedef int (*execve_fn)(const char *, char *const[], char *const[]);
typedef int (*fexecve_fn)(int, char *const[], char *const[]);
typedef int (*execveat_fn)(int, const char *, char *const[], char *const[],
			   int);
typedef sighandler_t (*signal_fn)(int, sighandler_t);
typedef void (*monstartup_fn)(unsigned long, unsigned long);
typedef void (*exit_fn)(int);

static fork_fn real_fork;
static execve_fn real_execve, real_execvpe;
static fexecve_fn real_fexecve;
static signal_fn real_signal, real_bsd_signal, real_sigset;
#if SHIM_LIBC_GLIBC
static execveat_fn real_execveat;
static signal_fn real_ssignal;
static monstartup_fn real___monstartup;
#endif
static exit_fn real__exit, real__Exit;
typedef pid_t (*wait4_fn)(pid_t, int *, int, struct rusage *);
typedef int (*waitid_fn)(idtype_t, id_t, siginfo_t *, int);
static wait4_fn real_wait4;
static pid_t (*real_waitpid)(pid_t, int *, int);
static waitid_fn real_waitid;

/* Not async-signal-safe (dlsym). */
void
interpose_resolve_all(void)
{
	REAL(fork);
	REAL(execve);
	REAL(execvpe);
	REAL(fexecve);
#if SHIM_LIBC_GLIBC
	REAL(execveat);
	REAL(ssignal);
#endif
	REAL(signal);
	REAL(bsd_signal);
	REAL(sigset);
	REAL(_exit);
	REAL(_Exit);
	REAL(waitpid);
	REAL(wait4);
	REAL(waitid);
}

/* The system call NR made with the instruction itself, errno set as by
 * the C library's syscall(): for the shim's own calls (sys.h), and for
 * the program's syscall(), which is ours.  Calls may come before the
 * constructor (a sanitizer's runtime starts before any constructor and
 * calls the entries we interpose, sigaltstack among them).
 * Async-signal-safe. */
long
shim_raw_syscall(long nr, long a0, long a1, long a2, long a3, long a4, long a5)
{
	return sys_call6(nr, a0, a1, a2, a3, a4, a5);
}

/* ---------------------------------------------------------------- fork */
/* SIGPROF is blocked around fork so that a slow fork is not restarted for
 * ever; the child's own profile is set up by the pthread_atfork child hook
 * in shim.c, before SIGPROF is unblocked.  Async-signal-safe as fork is. */
EXPORT pid_t
fork(void)
{
	sigset_t prof, old;
	pid_t pid;
	int saved;

	sigemptyset(&prof);
	sigaddset(&prof, SIGPROF);
	REAL(pthread_sigmask)(SIG_BLOCK, &prof, &old);
	pid = CALL_REAL(fork, -1);
	saved = errno;
	offspring_forked(pid);
	real_pthread_sigmask(SIG_SETMASK, &old, NULL);
	errno = saved;
	return pid;
}

/* ---------------------------------------------------------------- wait
 * The status of each child the program waits for goes into the child's
 * record (offspring.c): the report tells a child that exited without
 * libc's exit from one killed.  STATUS NULL is passed on as our own.
 * Async-signal-safe as the calls are. */

/* Pass PID and STATUS on to the record; returns PID. */
static pid_t
reaped(pid_t pid, const int *status, int *out)
{
	int saved = errno;

	if (pid > 0)
		offspring_reaped(pid, *status);
	if (out != NULL && pid > 0)
		*out = *status;
	errno = saved;
	return pid;
}

EXPORT pid_t
waitpid(pid_t pid, int *status, int options)
{
	int st = 0;

	return reaped(CALL_REAL(waitpid, -1, pid, &st, options), &st, status);
}

EXPORT pid_t
wait(int *status)
{
	return waitpid(-1, status, 0);
}

EXPORT pid_t
wait4(pid_t pid, int *status, int options, struct rusage *ru)
{
	int st = 0;

	return reaped(CALL_REAL(wait4, -1, pid, &st, options, ru), &st, status);
}

EXPORT pid_t
wait3(int *status, int options, struct rusage *ru)
{
	return wait4(-1, status, options, ru);
}

EXPORT int
waitid(idtype_t type, id_t id, siginfo_t *info, int options)
{
	int r = CALL_REAL(waitid, -1, type, id, info, options), saved = errno;

	if (r == 0 && info != NULL && info->si_pid > 0) {
		int st = info->si_code == CLD_EXITED
				 ? (info->si_status & 0xff) << 8
			 : info->si_code == CLD_KILLED ? info->si_status & 0x7f
			 : info->si_code == CLD_DUMPED
				 ? (info->si_status & 0x7f) | 0x80
				 : -1;

		if (st >= 0)
			offspring_reaped(info->si_pid, st);
	}
	errno = saved;
	return r;
}

/* ---------------------------------------------------------------- _exit
 * The profile is finished with the status first (exit() does it in an
 * on_exit handler, which _exit() skips).  Async-signal-safe as _exit is. */
EXPORT void
_exit(int status)
{
	shim_exit_now(status);
	if (real__exit) /* resolved at start: no dlsym here */
		real__exit(status);
	syscall(SYS_exit_group, status);
	__builtin_unreachable();
}

EXPORT void
_Exit(int status)
{
	shim_exit_now(status);
	if (real__Exit)
		real__Exit(status);
	syscall(SYS_exit_group, status);
	__builtin_unreachable();
}

/* ---------------------------------------------------------------- exec
 * Each exec finishes the profile and switches profiling off first (the
 * timer survives exec, the handler does not), and restores both if the
 * exec fails.  In a vfork child nothing is touched: it shares the parent's
 * memory and has no timer of its own.  The environment passed on gets
 * back the variables of ours it lacks (environ.c).  Async-signal-safe as
 * execve is. */
/* How exec_image reaches the C library: the entry the program called. */
enum exec_entry { EXEC_VE, EXEC_VPE, EXEC_FVE, EXEC_VEAT };

/* The one body of every exec interposer: IM is the image, ENVP the
 * environment the program passed. */
static int
exec_image(enum exec_entry entry, struct offspring_image im, char *const argv[],
	   char *const envp[])
{
	ENVIRON_FOR_EXEC(envp, &im);
	long child = offspring_exec(&im);
	bool began = shim_exec_begin();
	int r = -1;

	switch (entry) {
	case EXEC_VE:
		r = CALL_REAL(execve, -1, im.path, argv, envp);
		break;
	case EXEC_VPE:
		r = CALL_REAL(execvpe, -1, im.path, argv, envp);
		break;
	case EXEC_FVE:
		r = CALL_REAL(fexecve, -1, im.fd, argv, envp);
		break;
	case EXEC_VEAT:
#if SHIM_LIBC_GLIBC
		r = CALL_REAL(execveat, -1, im.dirfd, im.path, argv, envp,
			      im.at_flags);
#endif
		break;
	}
	shim_exec_failed(began);
	offspring_exec_failed(child);
	return r;
}

EXPORT int
execve(const char *path, char *const argv[], char *const envp[])
{
	struct offspring_image im = {AT_FDCWD, path, -1, 0, false};
	return exec_image(EXEC_VE, im, argv, envp);
}

EXPORT int
execvpe(const char *file, char *const argv[], char *const envp[])
{
	struct offspring_image im = {AT_FDCWD, file, -1, 0, true};
	return exec_image(EXEC_VPE, im, argv, envp);
}

EXPORT int
execv(const char *path, char *const argv[])
{
	struct offspring_image im = {AT_FDCWD, path, -1, 0, false};
	return exec_image(EXEC_VE, im, argv, environ);
}

EXPORT int
execvp(const char *file, char *const argv[])
{
	struct offspring_image im = {AT_FDCWD, file, -1, 0, true};
	return exec_image(EXEC_VPE, im, argv, environ);
}

EXPORT int
fexecve(int fd, char *const argv[], char *const envp[])
{
	struct offspring_image im = {AT_FDCWD, "", fd, 0, false};
	return exec_image(EXEC_FVE, im, argv, envp);
}

#if SHIM_LIBC_GLIBC
EXPORT int
execveat(int dirfd, const char *path, char *const argv[], char *const envp[],
	 int flags)
{
	struct offspring_image im = {dirfd, path, -1, flags, false};
	return exec_image(EXEC_VEAT, im, argv, envp);
}
#endif

/* Arguments of execl*(): ARG0 and the variadic list up to NULL, into ARGV
 * (N + 1 slots, N counted by count_args).  Async-signal-safe. */
static size_t
count_args(const char *arg0, va_list ap)
{
	size_t n = 0;

	if (arg0 == NULL)
		return 0;
	for (n = 1; va_arg(ap, const char *) != NULL; n++)
		;
	return n;
}

static void
collect_args(char **argv, size_t n, const char *arg0, va_list ap)
{
	if (n > 0)
		argv[0] = (char *)arg0;
	for (size_t i = 1; i < n; i++)
		argv[i] = va_arg(ap, char *);
	argv[n] = NULL;
}

/* execl(), execlp(), execle(): collect the list, then the execv* above. */
#define EXECL_ARGV(argv, arg0, after)                                          \
	va_list ap;                                                            \
	size_t n_;                                                             \
	va_start(ap, arg0);                                                    \
	n_ = count_args(arg0, ap);                                             \
	va_end(ap);                                                            \
	char *argv[n_ + 1];                                                    \
	va_start(ap, arg0);                                                    \
	collect_args(argv, n_, arg0, ap);                                      \
	if (n_ > 0)                                                            \
		(void)va_arg(ap, char *);                                      \
	after;                                                                 \
	va_end(ap)

EXPORT int
execl(const char *path, const char *arg, ...)
{
	EXECL_ARGV(argv, arg, (void)0);
	return execv(path, argv);
}

EXPORT int
execlp(const char *file, const char *arg, ...)
{
	EXECL_ARGV(argv, arg, (void)0);
	return execvp(file, argv);
}

EXPORT int
execle(const char *path, const char *arg, ...)
{
	char *const *envp;

	EXECL_ARGV(argv, arg, envp = va_arg(ap, char *const *));
	return execve(path, argv, envp);
}

/* ---------------------------------------------------------------- rivals
 * While we profile, the program believes SIGPROF has the action it had
 * before (or last set to SIG_DFL/SIG_IGN) and ITIMER_PROF is disarmed:
 * queries and requests that keep it that way are answered from that view,
 * since they change nothing the program could observe without profrun.
 * A real handler, an armed ITIMER_PROF or a profil() call means the program
 * wants them for itself: profiling stops for good, the reason goes into the
 * file, and the call proceeds exactly as it would without profrun. */

/* True for SIG_DFL and SIG_IGN.  Async-signal-safe. */
static bool
is_default_or_ignore(sighandler_t h)
{
	return h == SIG_DFL || h == SIG_IGN;
}

/* sigaction() and __sigaction(), and the entries below that emulate
 * theirs with it.  Async-signal-safe as sigaction is. */
static int
program_sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	struct sigaction view;

	if (pause_is_toggle(sig))
		return pause_sigaction(sig, act, old);
	if (sig != SIGPROF || !shim_owns_profile())
		return altstack_sigaction(sig, act, old);
	if (act != NULL && !is_default_or_ignore(act->sa_handler)) {
		shim_rival(PROFRUN_F_RIVAL_SIGNAL,
			   "program installed its own SIGPROF handler");
		return CALL_REAL(sigaction, -1, sig, act, old);
	}
	timer_get_program_action(&view);
	if (act != NULL)
		timer_set_program_action(act);
	if (old != NULL)
		*old = view;
	return 0;
}

EXPORT int
sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	return program_sigaction(sig, act, old);
}

#if SHIM_LIBC_GLIBC
int __sigaction(int sig, const struct sigaction *act, struct sigaction *old);

EXPORT int
__sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	return program_sigaction(sig, act, old);
}
#endif

#if SHIM_LIBC_GLIBC
/* System V's signal(): the handler is reset to SIG_DFL as it is called
 * and the signal is not blocked while it runs (SA_RESETHAND, SA_NODEFER,
 * no SA_RESTART).  Under -std=c99/c11 glibc's signal() is this one.  All
 * of it goes through program_sigaction(), as glibc's goes through its
 * internal sigaction.  Async-signal-safe as sysv_signal is. */
static sighandler_t
sysv_signal_view(int sig, sighandler_t handler)
{
	struct sigaction act, old;

	if (handler == SIG_ERR) {
		errno = EINVAL;
		return SIG_ERR;
	}
	memset(&act, 0, sizeof(act));
	act.sa_handler = handler;
	act.sa_flags = SA_RESETHAND | SA_NODEFER;
	if (program_sigaction(sig, &act, &old) < 0)
		return SIG_ERR;
	return old.sa_handler;
}

sighandler_t sysv_signal(int sig,
			 sighandler_t handler); /* glibc's, no header */
sighandler_t __sysv_signal(int sig, sighandler_t handler);

EXPORT sighandler_t
sysv_signal(int sig, sighandler_t handler)
{
	return sysv_signal_view(sig, handler);
}

EXPORT sighandler_t
__sysv_signal(int sig, sighandler_t handler)
{
	return sysv_signal_view(sig, handler);
}
#endif

/* sigignore(): SIG_IGN, as glibc's.  Async-signal-safe. */
EXPORT int
sigignore(int sig)
{
	struct sigaction act;

	memset(&act, 0, sizeof(act));
	act.sa_handler = SIG_IGN;
	return program_sigaction(sig, &act, NULL);
}

#if SHIM_LIBC_GLIBC
/* 4.2BSD's sigvec(), which glibc keeps for old binaries only (no header
 * declares it): the mask holds signals 1..32 as bits, and the flags map
 * to SA_ONSTACK, SA_RESTART (unless SV_INTERRUPT) and SA_RESETHAND.
 * Async-signal-safe. */
struct shim_sigvec {
	sighandler_t sv_handler;
	int sv_mask;
	int sv_flags;
};
#define SHIM_SV_ONSTACK	  1
#define SHIM_SV_INTERRUPT 2
#define SHIM_SV_RESETHAND 4

int sigvec(int sig, const struct shim_sigvec *vec, struct shim_sigvec *ovec);

EXPORT int
sigvec(int sig, const struct shim_sigvec *vec, struct shim_sigvec *ovec)
{
	struct sigaction act, old;
	unsigned mask = 0;

	memset(&act, 0, sizeof(act));
	if (vec != NULL) {
		act.sa_handler = vec->sv_handler;
		for (int i = 0; i < 32; i++)
			if ((unsigned)vec->sv_mask & (1u << i))
				sigaddset(&act.sa_mask, i + 1);
		act.sa_flags =
			(vec->sv_flags & SHIM_SV_ONSTACK ? SA_ONSTACK : 0) |
			(vec->sv_flags & SHIM_SV_INTERRUPT ? 0 : SA_RESTART) |
			(vec->sv_flags & SHIM_SV_RESETHAND ? SA_RESETHAND : 0);
	}
	if (program_sigaction(sig, vec != NULL ? &act : NULL, &old) < 0)
		return -1;
	if (ovec == NULL)
		return 0;
	for (int i = 0; i < 32; i++)
		if (sigismember(&old.sa_mask, i + 1) == 1)
			mask |= 1u << i;
	ovec->sv_handler = old.sa_handler;
	ovec->sv_mask = (int)mask;
	ovec->sv_flags = (old.sa_flags & SA_ONSTACK ? SHIM_SV_ONSTACK : 0) |
			 (old.sa_flags & SA_RESTART ? 0 : SHIM_SV_INTERRUPT) |
			 (old.sa_flags & SA_RESETHAND ? SHIM_SV_RESETHAND : 0);
	return 0;
}
#endif

/* signal() and bsd_signal() for SIGPROF while we own it: SIG_DFL and
 * SIG_IGN go into the program's view (BSD semantics, as glibc's
 * signal()); a handler makes us step aside first.  REAL_FN is the next
 * definition of the one called. */
static sighandler_t
bsd_signal_view(signal_fn real_fn, int sig, sighandler_t handler)
{
	struct sigaction view, act;

	if (!is_default_or_ignore(handler)) {
		shim_rival(PROFRUN_F_RIVAL_SIGNAL,
			   "program installed its own SIGPROF handler");
		return real_fn ? real_fn(sig, handler) : SIG_ERR;
	}
	timer_get_program_action(&view);
	memset(&act, 0, sizeof(act));
	act.sa_handler = handler;
	act.sa_flags = SA_RESTART;
	sigaddset(&act.sa_mask, sig);
	timer_set_program_action(&act);
	return view.sa_handler;
}

/* Async-signal-safe as signal is. */
EXPORT sighandler_t
signal(int sig, sighandler_t handler)
{
	if (pause_is_toggle(sig))
		return pause_signal(REAL(signal), sig, handler);
	if (sig != SIGPROF || !shim_owns_profile()) {
		altstack_forget(sig);
		return CALL_REAL(signal, SIG_ERR, sig, handler);
	}
	return bsd_signal_view(real_signal, sig, handler);
}

sighandler_t bsd_signal(int sig,
			sighandler_t handler); /* not in every header */

/* Async-signal-safe as bsd_signal is. */
EXPORT sighandler_t
bsd_signal(int sig, sighandler_t handler)
{
	if (pause_is_toggle(sig))
		return pause_signal(REAL(bsd_signal), sig, handler);
	if (sig != SIGPROF || !shim_owns_profile()) {
		altstack_forget(sig);
		return CALL_REAL(bsd_signal, SIG_ERR, sig, handler);
	}
	return bsd_signal_view(real_bsd_signal, sig, handler);
}

#if SHIM_LIBC_GLIBC
sighandler_t ssignal(int sig, sighandler_t handler); /* glibc: signal() */

/* Async-signal-safe as ssignal is. */
EXPORT sighandler_t
ssignal(int sig, sighandler_t handler)
{
	if (pause_is_toggle(sig))
		return pause_signal(REAL(ssignal), sig, handler);
	if (sig != SIGPROF || !shim_owns_profile()) {
		altstack_forget(sig);
		return CALL_REAL(ssignal, SIG_ERR, sig, handler);
	}
	return bsd_signal_view(real_ssignal, sig, handler);
}
#endif

/* System V's sigset(): SIG_HOLD blocks SIGPROF (in the program's view),
 * anything else unblocks it and sets the action; the previous action is
 * returned, SIG_HOLD when it was blocked.  Async-signal-safe as sigset
 * is. */
EXPORT sighandler_t
sigset(int sig, sighandler_t disp)
{
	struct sigaction view, act;
	bool held;

	if (pause_is_toggle(sig))
		return pause_signal(REAL(sigset), sig, disp);
	if (sig != SIGPROF || !shim_owns_profile()) {
		if (disp != SIG_HOLD)
			altstack_forget(sig);
		return CALL_REAL(sigset, SIG_ERR, sig, disp);
	}
	if (disp != SIG_HOLD && !is_default_or_ignore(disp)) {
		shim_rival(PROFRUN_F_RIVAL_SIGNAL,
			   "program installed its own SIGPROF handler");
		return CALL_REAL(sigset, SIG_ERR, sig, disp);
	}
	timer_get_program_action(&view);
	held = masks_view_blocked();
	masks_set_view_blocked(disp == SIG_HOLD);
	if (disp != SIG_HOLD) {
		memset(&act, 0, sizeof(act));
		act.sa_handler = disp;
		timer_set_program_action(&act);
	}
	return held ? SIG_HOLD : view.sa_handler;
}

/* True when IT would leave the timer disarmed (NULL disarms, as the
 * kernel still accepts).  Async-signal-safe. */
static bool
is_disarm(const struct itimerval *it)
{
	return it == NULL ||
	       (it->it_value.tv_sec == 0 && it->it_value.tv_usec == 0);
}

/* A timeval the kernel accepts in an itimerval. */
static bool
tv_valid(const struct timeval *tv)
{
	return tv->tv_sec >= 0 && tv->tv_usec >= 0 && tv->tv_usec < 1000000;
}

/* The program's view: ITIMER_PROF disarmed while we own it.  A bad
 * pointer fails as the kernel fails it.  Async-signal-safe as getitimer
 * is. */
EXPORT int
getitimer(__itimer_which_t which, struct itimerval *cur)
{
	if (which != ITIMER_PROF || !shim_owns_profile() || cur == NULL)
		return CALL_REAL(getitimer, -1, which, cur);
	memset(cur, 0, sizeof(*cur));
	return 0;
}

/* Exactly the kernel's checks first: an invalid interval fails with
 * EINVAL and changes nothing.  Async-signal-safe as setitimer is. */
EXPORT int
setitimer(__itimer_which_t which, const struct itimerval *it,
	  struct itimerval *old)
{
	if (which != ITIMER_PROF || !shim_owns_profile())
		return CALL_REAL(setitimer, -1, which, it, old);
	if (it != NULL &&
	    (!tv_valid(&it->it_value) || !tv_valid(&it->it_interval))) {
		errno = EINVAL;
		return -1;
	}
	if (!is_disarm(it)) {
		shim_rival(PROFRUN_F_RIVAL_TIMER, "program armed ITIMER_PROF");
		return CALL_REAL(setitimer, -1, which, it, old);
	}
	if (old != NULL)
		memset(old, 0, sizeof(*old));
	return 0;
}

#if SHIM_LIBC_GLIBC
/* Async-signal-safe as profil is. */
EXPORT int
profil(unsigned short *buf, size_t size, size_t offset, unsigned int scale)
{
	if (!shim_owns_profile())
		return CALL_REAL(profil, -1, buf, size, offset, scale);
	/* glibc declares BUF nonnull, yet NULL turns profiling off: keep the
	 * compiler from deleting the test. */
	__asm__("" : "+r"(buf));
	if (buf == NULL)
		return 0; /* the program never turned it on */
	shim_rival(PROFRUN_F_RIVAL_PROFIL, "program called profil()");
	return CALL_REAL(profil, -1, buf, size, offset, scale);
}

/* A -pg build's startup code (gcrt1.o) calls __monstartup, which starts
 * gprof's own profil() from inside libc where no interposer sees it: step
 * aside first, so that gmon.out gets every sample as without profrun.
 * Not async-signal-safe (neither is __monstartup). */
EXPORT void
__monstartup(unsigned long lowpc, unsigned long highpc)
{
	if (shim_owns_profile())
		shim_rival(
			PROFRUN_F_RIVAL_PROFIL,
			"program runs gprof's profil() itself (built with -pg)");
	if (REAL(__monstartup) != NULL)
		real___monstartup(lowpc, highpc);
}
#endif

/* ---------------------------------------------------------------- syscall()
 * A program's rt_sigaction and rt_sigprocmask made through the C
 * library's syscall() get what sigaction() and sigprocmask() get: SIG_DFL
 * or SIG_IGN for SIGPROF stays in the view (our timer's next SIGPROF
 * would otherwise end the process), a handler makes us step aside, and
 * the mask view is kept.  The kernel's layouts: a 64-bit mask, and
 * sa_restorer before it (x86-64 and AArch64 both have one). */
struct kernel_sigaction {
	sighandler_t handler;
	unsigned long flags;
	void (*restorer)(void);
	uint64_t mask;
};

/* rt_sigaction(SIGPROF, ACT, OLD, SIZE) while we own SIGPROF.
 * Async-signal-safe. */
static long
raw_sigprof_action(const struct kernel_sigaction *act,
		   struct kernel_sigaction *old)
{
	struct sigaction view, set;

	timer_get_program_action(&view);
	if (act != NULL) {
		memset(&set, 0, sizeof(set));
		set.sa_handler = act->handler;
		set.sa_flags = (int)act->flags;
		set.sa_restorer = act->restorer;
		memcpy(&set.sa_mask, &act->mask, sizeof(act->mask));
		timer_set_program_action(&set);
	}
	if (old != NULL) {
		old->handler = view.sa_handler;
		old->flags = (unsigned long)view.sa_flags;
		old->restorer = view.sa_restorer;
		memcpy(&old->mask, &view.sa_mask, sizeof(old->mask));
	}
	return 0;
}

/* rt_sigprocmask(HOW, SET, OLD, 8) through sigprocmask().
 * Async-signal-safe. */
static long
raw_mask(int how, const uint64_t *set, uint64_t *old)
{
	sigset_t s, o;

	memset(&s, 0, sizeof(s));
	if (set != NULL)
		memcpy(&s, set, sizeof(*set));
	if (sigprocmask(how, set != NULL ? &s : NULL, old != NULL ? &o : NULL) <
	    0)
		return -1;
	if (old != NULL)
		memcpy(old, &o, sizeof(*old));
	return 0;
}

/* A seccomp filter may refuse the system calls a later reservation of
 * the member makes (reserve.c): every block of it is reserved before one
 * goes in.  Async-signal-safe. */
static void
before_seccomp(void)
{
	int saved = errno;

	if (shim_is_owner()) {
		reserve_all();
		offspring_look_up();
	}
	errno = saved;
}

/* prctl(PR_SET_SECCOMP) after reserving the member in full; every option
 * goes to the system call as it is.  Async-signal-safe. */
EXPORT int
prctl(int option, ...)
{
	unsigned long a[4];
	va_list ap;

	va_start(ap, option);
	for (int i = 0; i < 4; i++)
		a[i] = va_arg(ap, unsigned long);
	va_end(ap);
	if (option == PR_SET_SECCOMP)
		before_seccomp();
	return (int)shim_raw_syscall(SYS_prctl, option, (long)a[0], (long)a[1],
				     (long)a[2], (long)a[3], 0);
}

/* Async-signal-safe as syscall() is. */
EXPORT long(syscall)(long nr, ...)
{
	const struct kernel_sigaction *act;
	long a[6];
	va_list ap;

	va_start(ap, nr);
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	if (nr == SYS_rt_sigaction && a[0] == SIGPROF && a[3] == 8 &&
	    shim_owns_profile()) {
		act = (const struct kernel_sigaction *)a[1];
		if (act == NULL || is_default_or_ignore(act->handler))
			return raw_sigprof_action(
				act, (struct kernel_sigaction *)a[2]);
		shim_rival(PROFRUN_F_RIVAL_SIGNAL,
			   "program installed its own SIGPROF handler");
	} else if (nr == SYS_rt_sigprocmask && a[3] == 8 &&
		   shim_owns_profile()) {
		return raw_mask((int)a[0], (const uint64_t *)a[1],
				(uint64_t *)a[2]);
	} else if (nr == SYS_seccomp ||
		   (nr == SYS_prctl && a[0] == PR_SET_SECCOMP)) {
		before_seccomp();
	}
	return shim_raw_syscall(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
}

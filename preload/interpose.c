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
#include <stdlib.h>
#include <string.h>
#include <sys/gmon.h>
#include <sys/syscall.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "shim.h"

#define EXPORT __attribute__((visibility("default")))

typedef pid_t (*fork_fn)(void);
typedef int (*execve_fn)(const char *, char *const[], char *const[]);
typedef int (*execv_fn)(const char *, char *const[]);
typedef int (*fexecve_fn)(int, char *const[], char *const[]);
typedef int (*execveat_fn)(int, const char *, char *const[], char *const[],
			   int);
typedef sighandler_t (*signal_fn)(int, sighandler_t);
typedef void (*monstartup_fn)(unsigned long, unsigned long);
typedef void (*exit_fn)(int);

static fork_fn real_fork;
static execve_fn real_execve, real_execvpe;
static execv_fn real_execv, real_execvp;
static fexecve_fn real_fexecve;
static execveat_fn real_execveat;
static signal_fn real_signal, real_bsd_signal, real_ssignal, real_sigset;
static monstartup_fn real___monstartup;
static exit_fn real__exit, real__Exit;
typedef pid_t (*wait4_fn)(pid_t, int *, int, struct rusage *);
typedef int (*waitid_fn)(idtype_t, id_t, siginfo_t *, int);
static wait4_fn real_wait4;
static pid_t (*real_waitpid)(pid_t, int *, int);
static waitid_fn real_waitid;

/* Call real_<fn>, or fail with ENOSYS if it cannot be found. */
#define CALL_REAL(fn, fail, ...)                                               \
	(REAL(fn) != NULL ? real_##fn(__VA_ARGS__) : (errno = ENOSYS, (fail)))

/* Not async-signal-safe (dlsym). */
void
interpose_resolve_all(void)
{
	REAL(fork);
	REAL(execve);
	REAL(execvpe);
	REAL(execv);
	REAL(execvp);
	REAL(fexecve);
	REAL(execveat);
	REAL(signal);
	REAL(bsd_signal);
	REAL(ssignal);
	REAL(sigset);
	REAL(_exit);
	REAL(_Exit);
	REAL(waitpid);
	REAL(wait4);
	REAL(waitid);
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
 * memory and has no timer of its own.  Async-signal-safe as execve is. */
EXPORT int
execve(const char *path, char *const argv[], char *const envp[])
{
	long child = offspring_exec(
		&(struct offspring_image){AT_FDCWD, path, -1, 0, false});
	bool began = shim_exec_begin();
	int r = CALL_REAL(execve, -1, path, argv, envp);

	shim_exec_failed(began);
	offspring_exec_failed(child);
	return r;
}

EXPORT int
execvpe(const char *file, char *const argv[], char *const envp[])
{
	long child = offspring_exec(
		&(struct offspring_image){AT_FDCWD, file, -1, 0, true});
	bool began = shim_exec_begin();
	int r = CALL_REAL(execvpe, -1, file, argv, envp);

	shim_exec_failed(began);
	offspring_exec_failed(child);
	return r;
}

EXPORT int
execv(const char *path, char *const argv[])
{
	long child = offspring_exec(
		&(struct offspring_image){AT_FDCWD, path, -1, 0, false});
	bool began = shim_exec_begin();
	int r = CALL_REAL(execv, -1, path, argv);

	shim_exec_failed(began);
	offspring_exec_failed(child);
	return r;
}

EXPORT int
execvp(const char *file, char *const argv[])
{
	long child = offspring_exec(
		&(struct offspring_image){AT_FDCWD, file, -1, 0, true});
	bool began = shim_exec_begin();
	int r = CALL_REAL(execvp, -1, file, argv);

	shim_exec_failed(began);
	offspring_exec_failed(child);
	return r;
}

EXPORT int
fexecve(int fd, char *const argv[], char *const envp[])
{
	long child = offspring_exec(
		&(struct offspring_image){AT_FDCWD, "", fd, 0, false});
	bool began = shim_exec_begin();
	int r = CALL_REAL(fexecve, -1, fd, argv, envp);

	shim_exec_failed(began);
	offspring_exec_failed(child);
	return r;
}

EXPORT int
execveat(int dirfd, const char *path, char *const argv[], char *const envp[],
	 int flags)
{
	long child = offspring_exec(
		&(struct offspring_image){dirfd, path, -1, flags, false});
	bool began = shim_exec_begin();
	int r = CALL_REAL(execveat, -1, dirfd, path, argv, envp, flags);

	shim_exec_failed(began);
	offspring_exec_failed(child);
	return r;
}

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

/* Async-signal-safe as sigaction is. */
EXPORT int
sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	struct sigaction view;

	if (pause_is_toggle(sig))
		return pause_sigaction(sig, act, old);
	if (sig != SIGPROF || !shim_owns_profile())
		return CALL_REAL(sigaction, -1, sig, act, old);
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
	if (sig != SIGPROF || !shim_owns_profile())
		return CALL_REAL(signal, SIG_ERR, sig, handler);
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
	if (sig != SIGPROF || !shim_owns_profile())
		return CALL_REAL(bsd_signal, SIG_ERR, sig, handler);
	return bsd_signal_view(real_bsd_signal, sig, handler);
}

sighandler_t ssignal(int sig, sighandler_t handler); /* glibc: signal() */

/* Async-signal-safe as ssignal is. */
EXPORT sighandler_t
ssignal(int sig, sighandler_t handler)
{
	if (pause_is_toggle(sig))
		return pause_signal(REAL(ssignal), sig, handler);
	if (sig != SIGPROF || !shim_owns_profile())
		return CALL_REAL(ssignal, SIG_ERR, sig, handler);
	return bsd_signal_view(real_ssignal, sig, handler);
}

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
	if (sig != SIGPROF || !shim_owns_profile())
		return CALL_REAL(sigset, SIG_ERR, sig, disp);
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

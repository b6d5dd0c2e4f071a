/* SPDX-License-Identifier: MIT */
/* sigs MODE: programs that set dispositions, masks, waits and alternate
 * stacks of their own (tests/e2e/e2e_signals.py).  Each prints what it
 * observed; the tests compare that, and the exit status, with a bare run.
 *
 *   entries     sets SIGPROF to SIG_DFL through every libc entry that
 *               changes a disposition (sysv_signal, __sysv_signal,
 *               __sigaction, sigignore, sigvec), computing after each, and
 *               prints what each returned
 *   exitflush N prints N lines into a 4 MiB stdout buffer, writes its pid
 *               to stderr and exits: the lines go out in exit's last flush
 *   smallalt    sets a 7 KiB alternate stack and an SA_ONSTACK handler
 *               using 2 KiB of it that computes; raises it 100 times
 *   onstack     a handler with SA_ONSTACK and no alternate stack set by the
 *               program, on the main thread and on a thread: it uses
 *               200 KiB of stack and calls sigaltstack() itself
 *   sigwait     blocks SIGPROF, sends it to itself, takes it with sigwait,
 *               sigwaitinfo and sigtimedwait (kill, raise, sigqueue)
 *   sigsuspend  blocks SIGPROF, sends it to itself, sigsuspends with it
 *               unblocked: the default action ends the process
 *   children    ignores and blocks SIGPROF, then starts "sigs child"
 *               through vfork, system() and popen()
 *   child       prints whether SIGPROF is ignored and blocked here
 *   sleeper S   writes its pid to stderr; the main thread sleeps in
 *               nanosleep and a thread in epoll_wait (20 ms each) while
 *               another computes for S seconds; prints how many of the
 *               sleeps failed with EINTR
 *   rawcalls    SIGPROF to SIG_DFL and then blocked with syscall(): the
 *               raw rt_sigaction and rt_sigprocmask, computing after each
 *   oldmasks    blocks SIGPROF with sighold and sigblock, computing, and
 *               prints what sigprocmask and sigblock say of it
 *   masks N     loops over sigprocmask (block and unblock SIGUSR2) and
 *               prints ns per call
 */
#define _GNU_SOURCE
#pragma GCC diagnostic ignored "-Wdeprecated-declarations" /* sigignore, on purpose */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common.h"

volatile unsigned long workload_sink = 1;

__attribute__((noipa)) void
sigs_spin(double seconds)
{
	double start = thread_cpu_seconds();

	while (thread_cpu_seconds() - start < seconds)
		WORKLOAD_BODY(20000UL);
}

/* ---------------------------------------------------------------- entries */
struct old_sigvec { /* <signal.h> no longer declares it */
	void (*sv_handler)(int);
	int sv_mask;
	int sv_flags;
};

typedef void (*handler_fn)(int);

/* sigvec as an old binary links it: glibc keeps it for those only, on the
 * CPUs it had them (not on AArch64 or RISC-V, which never had sigvec) */
#if defined(__x86_64__)
int old_sigvec(int, const struct old_sigvec *, struct old_sigvec *);
__asm__(".symver old_sigvec, sigvec@GLIBC_2.2.5");
#else
static int
old_sigvec(int sig, const struct old_sigvec *v, struct old_sigvec *ov)
{
	struct sigaction sa = {.sa_handler = v->sv_handler}, old;
	int r = sigaction(sig, &sa, &old);

	ov->sv_handler = old.sa_handler;
	return r;
}
#endif

static const char *
name_of(handler_fn h)
{
	return h == SIG_DFL ? "dfl" : h == SIG_IGN ? "ign" : h == SIG_ERR ? "err" : "fn";
}

static int
mode_entries(void)
{
	handler_fn (*sysv)(int, handler_fn) = (handler_fn(*)(int, handler_fn))
		dlsym(RTLD_DEFAULT, "sysv_signal");
	handler_fn (*usysv)(int, handler_fn) = (handler_fn(*)(int, handler_fn))
		dlsym(RTLD_DEFAULT, "__sysv_signal");
	int (*usigaction)(int, const struct sigaction *, struct sigaction *) =
		(int (*)(int, const struct sigaction *, struct sigaction *))dlsym(
			RTLD_DEFAULT, "__sigaction");
	struct sigaction dfl = {.sa_handler = SIG_DFL}, old;
	struct old_sigvec v = {SIG_DFL, 0, 0}, ov;
	int r;

	if (!sysv || !usysv || !usigaction)
		return 2;
	printf("sysv_signal ign: %s\n", name_of(sysv(SIGPROF, SIG_IGN)));
	sigs_spin(0.1);
	printf("sysv_signal dfl: %s\n", name_of(sysv(SIGPROF, SIG_DFL)));
	sigs_spin(0.1);
	printf("__sysv_signal: %s\n", name_of(usysv(SIGPROF, SIG_DFL)));
	sigs_spin(0.1);
	printf("sigignore: %d\n", sigignore(SIGPROF));
	sigs_spin(0.1);
	r = usigaction(SIGPROF, &dfl, &old);
	printf("__sigaction: %d %s\n", r, name_of(old.sa_handler));
	sigs_spin(0.1);
	sigignore(SIGPROF);
	r = old_sigvec(SIGPROF, &v, &ov);
	printf("sigvec: %d %s\n", r, name_of(ov.sv_handler));
	sigs_spin(0.1);
	sigaction(SIGPROF, NULL, &old);
	printf("now: %s\n", name_of(old.sa_handler));
	return 0;
}

/* ---------------------------------------------------------------- exit */
static int
mode_exitflush(long n)
{
	static char buf[4 << 20];

	setvbuf(stdout, buf, _IOFBF, sizeof(buf));
	for (long i = 0; i < n; i++)
		printf("line %ld of the final flush\n", i);
	fprintf(stderr, "%d\n", (int)getpid());
	return 0;
}

/* ---------------------------------------------------------------- stacks */
static volatile int handled;

/* Uses USE bytes of the stack it runs on, and computes. */
static void
use_stack(size_t use, double seconds)
{
	volatile char *p = alloca(use);

	p[0] = 1;
	p[use - 1] = 1;
	sigs_spin(seconds);
	p[use / 2] = p[0];
}

static void
on_small(int sig)
{
	(void)sig;
	use_stack(2048, 0.004);
	handled++;
}

static int
mode_smallalt(void)
{
	static char alt[7 * 1024];
	stack_t ss = {.ss_sp = alt, .ss_size = sizeof(alt)};
	struct sigaction sa = {.sa_handler = on_small, .sa_flags = SA_ONSTACK};

	use_stack(2048, 0.001); /* its calls bound (lazy binding saves the FPU on the stack) */
	if (sigaltstack(&ss, NULL) < 0 || sigaction(SIGUSR1, &sa, NULL) < 0)
		return 2;
	for (int i = 0; i < 100; i++)
		raise(SIGUSR1);
	printf("smallalt: handler ran %d times\n", handled);
	return 0;
}

static volatile int onstack_ok;

static void
on_onstack(int sig)
{
	static __thread char own[16384];
	stack_t ss = {.ss_sp = own, .ss_size = sizeof(own)}, off = {.ss_flags = SS_DISABLE};
	int r;

	(void)sig;
	use_stack(200 * 1024, 0.02);
	r = sigaltstack(&ss, NULL);
	onstack_ok += r == 0 && sigaltstack(&off, NULL) == 0;
}

static void *
onstack_thread(void *arg)
{
	(void)arg;
	for (int i = 0; i < 20; i++)
		raise(SIGUSR1);
	return NULL;
}

static int
mode_onstack(void)
{
	struct sigaction sa = {.sa_handler = on_onstack, .sa_flags = SA_ONSTACK}, q;
	pthread_t t;

	if (sigaction(SIGUSR1, &sa, NULL) < 0 || sigaction(SIGUSR1, NULL, &q) < 0)
		return 2;
	onstack_thread(NULL);
	pthread_create(&t, NULL, onstack_thread, NULL);
	pthread_join(t, NULL);
	printf("onstack: %d of 40 set their own stack; flags %s\n", onstack_ok,
	       q.sa_flags & SA_ONSTACK ? "onstack" : "lost");
	return 0;
}

/* ---------------------------------------------------------------- waits */
static const char *
code_name(int code)
{
	return code == SI_USER ? "user" : code == SI_TKILL ? "tkill" : code == SI_QUEUE ? "queue" : "other";
}

static int
mode_sigwait(void)
{
	struct timespec ts = {1, 0};
	sigset_t prof, pend;
	siginfo_t si;
	int sig = 0, r;

	sigemptyset(&prof);
	sigaddset(&prof, SIGPROF);
	sigprocmask(SIG_BLOCK, &prof, NULL);
	kill(getpid(), SIGPROF);
	sigpending(&pend);
	r = sigwait(&prof, &sig);
	printf("sigwait: %d %d (pending before: %d)\n", r, sig, sigismember(&pend, SIGPROF));
	raise(SIGPROF);
	r = sigwaitinfo(&prof, &si);
	printf("sigwaitinfo: %d %s\n", r, r > 0 ? code_name(si.si_code) : strerror(errno));
	sigqueue(getpid(), SIGPROF, (union sigval){.sival_int = 7});
	r = sigtimedwait(&prof, &si, &ts);
	printf("sigtimedwait: %d %s %d\n", r, r > 0 ? code_name(si.si_code) : strerror(errno),
	       r > 0 ? si.si_value.sival_int : -1);
	ts.tv_sec = 0;
	ts.tv_nsec = 1000000;
	r = sigtimedwait(&prof, &si, &ts);
	printf("sigtimedwait again: %d %s\n", r, r > 0 ? "got" : strerror(errno));
	sigpending(&pend);
	printf("pending after: %d\n", sigismember(&pend, SIGPROF));
	return 0;
}

static int
mode_sigsuspend(void)
{
	sigset_t prof, none;

	sigemptyset(&prof);
	sigaddset(&prof, SIGPROF);
	sigemptyset(&none);
	sigprocmask(SIG_BLOCK, &prof, NULL);
	kill(getpid(), SIGPROF);
	printf("sigsuspend: waiting\n");
	fflush(stdout);
	sigsuspend(&none);
	printf("sigsuspend: returned\n");
	return 0;
}

/* ---------------------------------------------------------------- children */
static int
mode_child(void)
{
	struct sigaction sa;
	sigset_t cur;

	sigaction(SIGPROF, NULL, &sa);
	sigprocmask(SIG_SETMASK, NULL, &cur);
	printf("%s %s\n", sa.sa_handler == SIG_IGN ? "ignored" : "not-ignored",
	       sigismember(&cur, SIGPROF) ? "blocked" : "unblocked");
	return 0;
}

static int
mode_children(const char *self)
{
	char cmd[4200];
	sigset_t prof;
	FILE *p;
	char line[128];
	pid_t pid;
	int st;

	signal(SIGPROF, SIG_IGN);
	sigemptyset(&prof);
	sigaddset(&prof, SIGPROF);
	sigprocmask(SIG_BLOCK, &prof, NULL);
	sigs_spin(0.05);
	printf("vfork: ");
	fflush(stdout);
	pid = vfork();
	if (pid == 0) {
		execl(self, self, "child", (char *)NULL);
		_exit(127);
	}
	waitpid(pid, &st, 0);
	snprintf(cmd, sizeof(cmd), "printf 'system: '; '%s' child", self);
	fflush(stdout);
	if (system(cmd) != 0)
		printf("system failed\n");
	snprintf(cmd, sizeof(cmd), "'%s' child", self);
	p = popen(cmd, "r");
	if (p == NULL || fgets(line, sizeof(line), p) == NULL)
		return 2;
	pclose(p);
	printf("popen: %s", line);
	return 0;
}

/* ---------------------------------------------------------------- EINTR */
static volatile int sleeping_stop;
static int eintr_epoll;

static void *
spinner(void *arg)
{
	sigs_spin(*(double *)arg);
	sleeping_stop = 1;
	return NULL;
}

static void *
epoller(void *arg)
{
	int ep = epoll_create1(0);
	struct epoll_event ev;

	(void)arg;
	while (!sleeping_stop)
		if (epoll_wait(ep, &ev, 1, 20) < 0 && errno == EINTR)
			eintr_epoll++;
	close(ep);
	return NULL;
}

/* The main thread sleeps while a thread computes: a process-directed
 * signal goes to the main thread first, asleep or not. */
static int
mode_sleeper(double seconds)
{
	pthread_t a, b;
	int eintr_sleep = 0;

	fprintf(stderr, "%d\n", (int)getpid());
	pthread_create(&a, NULL, spinner, &seconds);
	pthread_create(&b, NULL, epoller, NULL);
	while (!sleeping_stop) {
		struct timespec ts = {0, 20000000};

		if (nanosleep(&ts, NULL) < 0 && errno == EINTR)
			eintr_sleep++;
	}
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	printf("sleeper: %d nanosleep and %d epoll_wait interrupted\n", eintr_sleep,
	       eintr_epoll);
	return 0;
}

/* ---------------------------------------------------------------- raw calls */
struct kernel_sigaction {
	void (*handler)(int);
	unsigned long flags;
	void (*restorer)(void);
	unsigned long mask;
};

static int
mode_rawcalls(void)
{
	struct kernel_sigaction dfl = {SIG_DFL, 0, NULL, 0}, old;
	unsigned long prof = 1ul << (SIGPROF - 1), was = 0;
	long r;
	sigset_t cur;

	r = syscall(SYS_rt_sigaction, SIGPROF, &dfl, &old, 8);
	printf("rt_sigaction: %ld, was %s\n", r, old.handler == SIG_DFL ? "dfl" : "other");
	sigs_spin(0.3);
	r = syscall(SYS_rt_sigprocmask, SIG_BLOCK, &prof, &was, 8);
	sigprocmask(SIG_SETMASK, NULL, &cur);
	printf("rt_sigprocmask: %ld, was %d, now %d\n", r, (was & prof) != 0,
	       sigismember(&cur, SIGPROF));
	sigs_spin(0.3);
	return 0;
}

/* ---------------------------------------------------------------- old masks */
static int
prof_blocked(void)
{
	sigset_t cur;

	sigprocmask(SIG_SETMASK, NULL, &cur);
	return sigismember(&cur, SIGPROF);
}

static int
mode_oldmasks(void)
{
	int held, released, blocked, old, back;

	sighold(SIGPROF);
	held = prof_blocked();
	sigs_spin(0.2);
	sigrelse(SIGPROF);
	released = prof_blocked();
	old = sigblock((1 << (SIGPROF - 1)));
	blocked = prof_blocked();
	sigs_spin(0.2);
	back = sigsetmask(old);
	printf("oldmasks: held %d released %d blocked %d, old had it %d, then %d, now %d\n",
	       held, released, blocked, (old & (1 << (SIGPROF - 1))) != 0,
	       (back & (1 << (SIGPROF - 1))) != 0, prof_blocked());
	return 0;
}

/* ---------------------------------------------------------------- cost */
static int
mode_masks(long n)
{
	sigset_t usr, old;
	double t0;

	sigemptyset(&usr);
	sigaddset(&usr, SIGUSR2);
	t0 = cpu_seconds();
	for (long i = 0; i < n; i++) {
		sigprocmask(SIG_BLOCK, &usr, &old);
		sigprocmask(SIG_SETMASK, &old, NULL);
	}
	printf("masks: %.0f ns per sigprocmask\n", (cpu_seconds() - t0) * 1e9 / (2.0 * n));
	return 0;
}

int
main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (strcmp(mode, "entries") == 0)
		return mode_entries();
	if (strcmp(mode, "exitflush") == 0 && argc > 2)
		return mode_exitflush(atol(argv[2]));
	if (strcmp(mode, "smallalt") == 0)
		return mode_smallalt();
	if (strcmp(mode, "onstack") == 0)
		return mode_onstack();
	if (strcmp(mode, "sigwait") == 0)
		return mode_sigwait();
	if (strcmp(mode, "sigsuspend") == 0)
		return mode_sigsuspend();
	if (strcmp(mode, "children") == 0)
		return mode_children(argv[0]);
	if (strcmp(mode, "child") == 0)
		return mode_child();
	if (strcmp(mode, "sleeper") == 0 && argc > 2)
		return mode_sleeper(atof(argv[2]));
	if (strcmp(mode, "rawcalls") == 0)
		return mode_rawcalls();
	if (strcmp(mode, "oldmasks") == 0)
		return mode_oldmasks();
	if (strcmp(mode, "masks") == 0 && argc > 2)
		return mode_masks(atol(argv[2]));
	fprintf(stderr, "sigs: unknown mode '%s'\n", mode);
	return 2;
}

/* SPDX-License-Identifier: MIT */
/* percpu MODE ARGS...: threads and processes whose CPU time is known by
 * construction, for the per-thread sampling tests (tests/e2e_threads.py).
 * Every spin runs on the calling thread's own CPU clock, so the split
 * holds however the threads are scheduled.
 *
 *   blocked S      two workers that block every signal (one itself, one
 *                  by inheriting its creator's full mask) spin S s each
 *                  while main sleeps in pthread_join
 *   ratio U        four threads spin 1, 2, 3 and 4 times U s
 *   named U        threads "alpha" and "beta" spin 3 U and U s
 *   short N S      N children in turn, each spinning S s, then the
 *                  parent spins as long as they did together
 *   syscalls S     reads from /dev/zero beside a user loop, S s of CPU;
 *                  prints the kernel's user/system split
 *   waiters S      a daemon: every signal blocked, main in sigtimedwait
 *                  and a signalfd reader while a worker spins S s
 *   toggle S       block and unblock SIGPROF in a tight loop for S s,
 *                  checking the mask the program sees each time
 *   many N S       N threads, 16 at a time, each spinning S s
 *   raise ign|dfl  SIGPROF ignored or default, then raise(SIGPROF)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"

volatile unsigned long workload_sink = 1;

/* Spin S s of this thread's CPU time in the caller's frame. */
#define SPIN(s)                                                             \
	do {                                                                \
		double end_ = thread_cpu_seconds() + (s);                   \
		while (thread_cpu_seconds() < end_)                         \
			WORKLOAD_BODY(20000);                               \
	} while (0)

#define SPINNER(name)                                                       \
	__attribute__((noipa)) void name(double s);                         \
	__attribute__((noipa)) void name(double s)                          \
	{                                                                   \
		SPIN(s);                                                    \
	}

SPINNER(self_blocked_spin)
SPINNER(inherited_spin)
SPINNER(ratio_1)
SPINNER(ratio_2)
SPINNER(ratio_3)
SPINNER(ratio_4)
SPINNER(named_alpha)
SPINNER(named_beta)
SPINNER(short_child)
SPINNER(parent_spin)
SPINNER(user_loop)
SPINNER(waiter_worker)
SPINNER(toggle_work)
SPINNER(many_worker)
SPINNER(raise_spin)

struct job {
	void (*fn)(double);
	double s;
	const char *name;
	bool block_self;
};

static bool
view_blocks_sigprof(void)
{
	sigset_t cur;

	pthread_sigmask(SIG_SETMASK, NULL, &cur);
	return sigismember(&cur, SIGPROF) == 1;
}

static void *
run_job(void *arg)
{
	struct job *j = arg;
	sigset_t all;

	if (j->block_self) {
		sigfillset(&all);
		pthread_sigmask(SIG_BLOCK, &all, NULL);
	}
	if (j->name)
		pthread_setname_np(pthread_self(), j->name);
	j->fn(j->s);
	return view_blocks_sigprof() ? (void *)1 : NULL;
}

/* Start N jobs (with every signal blocked in the creator when
 * FULL_MASK), join them; returns how many saw SIGPROF blocked. */
static int
run_jobs(struct job *j, int n, bool full_mask)
{
	pthread_t t[16];
	sigset_t all, old;
	void *r;
	int blocked = 0;

	sigfillset(&all);
	for (int i = 0; i < n; i++) {
		if (full_mask)
			pthread_sigmask(SIG_SETMASK, &all, &old);
		if (pthread_create(&t[i], NULL, run_job, &j[i]) != 0)
			return -1;
		if (full_mask)
			pthread_sigmask(SIG_SETMASK, &old, NULL);
	}
	for (int i = 0; i < n; i++) {
		pthread_join(t[i], &r);
		blocked += r != NULL;
	}
	return blocked;
}

static int
mode_blocked(double s)
{
	struct job j[2] = {{self_blocked_spin, s, NULL, true},
			   {inherited_spin, s, NULL, false}};
	pthread_t t[2];
	sigset_t all, old;
	void *r;
	int blocked = 0;

	pthread_create(&t[0], NULL, run_job, &j[0]);
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pthread_create(&t[1], NULL, run_job, &j[1]);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	for (int i = 0; i < 2; i++) {
		pthread_join(t[i], &r);
		blocked += r != NULL;
	}
	printf("blocked: %d of 2 workers see SIGPROF blocked\n", blocked);
	return 0;
}

static int
mode_ratio(double u)
{
	struct job j[4] = {{ratio_1, u, NULL, false},
			   {ratio_2, 2 * u, NULL, false},
			   {ratio_3, 3 * u, NULL, false},
			   {ratio_4, 4 * u, NULL, false}};

	return run_jobs(j, 4, false) < 0;
}

static int
mode_named(double u)
{
	struct job j[2] = {{named_alpha, 3 * u, "alpha", false},
			   {named_beta, u, "beta", false}};

	return run_jobs(j, 2, false) < 0;
}

static int
mode_short(int n, double s)
{
	int status, bad = 0;

	for (int i = 0; i < n; i++) {
		pid_t pid = fork();

		if (pid == 0) {
			short_child(s);
			_exit(0);
		}
		if (pid < 0 || waitpid(pid, &status, 0) < 0 || status != 0)
			bad++;
	}
	parent_spin(n * s);
	printf("short: %d children, %d failed\n", n, bad);
	return bad != 0;
}

static double
tv(const struct timeval *t)
{
	return (double)t->tv_sec + (double)t->tv_usec / 1e6;
}

__attribute__((noipa)) static void
read_zero(int fd, int times)
{
	static char buf[1 << 20];

	for (int i = 0; i < times; i++)
		if (read(fd, buf, sizeof(buf)) < 0)
			return;
}

static int
mode_syscalls(double s)
{
	int fd = open("/dev/zero", O_RDONLY | O_CLOEXEC);
	double end = thread_cpu_seconds() + s;
	struct rusage ru;

	if (fd < 0)
		return 1;
	while (thread_cpu_seconds() < end) {
		read_zero(fd, 200);
		user_loop(0.01);
	}
	getrusage(RUSAGE_SELF, &ru);
	printf("syscalls: user %.3f sys %.3f\n", tv(&ru.ru_utime),
	       tv(&ru.ru_stime));
	return 0;
}

static int
mode_waiters(double s)
{
	struct job j = {waiter_worker, s, NULL, false};
	struct timespec ts = {0, 50 * 1000 * 1000};
	struct pollfd pfd;
	sigset_t all;
	siginfo_t si;
	pthread_t t;
	int caught = 0, reads = 0, fd;
	void *r;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, NULL);
	fd = signalfd(-1, &all, SFD_CLOEXEC);
	if (fd < 0 || pthread_create(&t, NULL, run_job, &j) != 0)
		return 1;
	while (pthread_tryjoin_np(t, &r) == EBUSY) {
		if (sigtimedwait(&all, &si, &ts) >= 0)
			caught++;
		pfd = (struct pollfd){fd, POLLIN, 0};
		if (poll(&pfd, 1, 10) > 0) {
			struct signalfd_siginfo ssi;

			if (read(fd, &ssi, sizeof(ssi)) == sizeof(ssi))
				reads++;
		}
	}
	printf("waiters: sigtimedwait took %d signals, signalfd read %d\n",
	       caught, reads);
	return 0;
}

static int
mode_toggle(double s)
{
	sigset_t prof, pending;
	double end = thread_cpu_seconds() + s;
	long rounds = 0, wrong = 0;

	sigemptyset(&prof);
	sigaddset(&prof, SIGPROF);
	while (thread_cpu_seconds() < end) {
		sigprocmask(SIG_BLOCK, &prof, NULL);
		wrong += !view_blocks_sigprof();
		toggle_work(0.0002);
		sigpending(&pending);
		wrong += sigismember(&pending, SIGPROF) == 1;
		sigprocmask(SIG_UNBLOCK, &prof, NULL);
		wrong += view_blocks_sigprof();
		rounds++;
	}
	printf("toggle: %s\n", rounds > 0 && wrong == 0 ? "views right" : "wrong");
	return 0;
}

static int
mode_many(int n, double s)
{
	struct job j[16];
	int done = 0;

	while (done < n) {
		int k = n - done < 16 ? n - done : 16;

		for (int i = 0; i < k; i++)
			j[i] = (struct job){many_worker, s, NULL, false};
		if (run_jobs(j, k, false) < 0)
			return 1;
		done += k;
	}
	printf("many: %d threads joined\n", done);
	return 0;
}

static int
mode_raise(const char *how)
{
	signal(SIGPROF, strcmp(how, "ign") == 0 ? SIG_IGN : SIG_DFL);
	raise_spin(0.3);
	raise(SIGPROF);
	printf("raise: still running\n");
	return 0;
}

int
main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	double a = arg_double(argc, argv, 2, 1.0);
	double b = arg_double(argc, argv, 3, 0.002);

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (strcmp(mode, "blocked") == 0)
		return mode_blocked(a);
	if (strcmp(mode, "ratio") == 0)
		return mode_ratio(a);
	if (strcmp(mode, "named") == 0)
		return mode_named(a);
	if (strcmp(mode, "short") == 0)
		return mode_short((int)a, b);
	if (strcmp(mode, "syscalls") == 0)
		return mode_syscalls(a);
	if (strcmp(mode, "waiters") == 0)
		return mode_waiters(a);
	if (strcmp(mode, "toggle") == 0)
		return mode_toggle(a);
	if (strcmp(mode, "many") == 0)
		return mode_many((int)a, b);
	if (strcmp(mode, "raise") == 0)
		return mode_raise(argc > 2 ? argv[2] : "dfl");
	fprintf(stderr, "percpu: unknown mode '%s'\n", mode);
	return 2;
}

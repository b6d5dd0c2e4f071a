/* SPDX-License-Identifier: MIT */
/* offspring MODE ...: processes and threads that slip past the usual ways
 * a profiler follows a program.  One line on stdout per outcome.
 *
 *   rawexit STATUS S   burn S s in raw_hot, then end with a raw exit_group
 *                      system call (no libc exit): status STATUS
 *   rawchild STATUS S  fork a child that does rawexit STATUS S; print its
 *                      status as waitpid saw it
 *   children N S       fork N children at once, each waiting until all are
 *                      forked, then burning S s in child_hot; reap them all
 *   thrd N S           start N C11 threads (thrd_create), each burning S s
 *                      of its own CPU in thrd_hot; join them
 *   exec PROG ARGS...  fork a child that execv()s PROG ARGS..., and also
 *                      posix_spawn() it; reap both
 *   clone S            start a thread with clone(CLONE_THREAD) itself,
 *                      which burns S s of its own CPU in clone_hot while
 *                      the main thread sleeps
 *   spawnthreads N     create and join N threads one after another, each
 *                      returning at once */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <threads.h>
#include <unistd.h>

#include "common.h"

volatile unsigned long workload_sink = 1;
extern char **environ;

WORKLOAD_BURN(raw_hot, cpu_seconds)
WORKLOAD_BURN(child_hot, cpu_seconds)
WORKLOAD_BURN(thrd_hot, thread_cpu_seconds)
WORKLOAD_BURN(clone_hot, thread_cpu_seconds)

static int
reap(pid_t pid)
{
	int st;

	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return st;
}

static int
mode_rawexit(int status, double s)
{
	raw_hot(s);
	fflush(stdout);
	syscall(SYS_exit_group, status);
	return 99;
}

static int
mode_rawchild(int status, double s)
{
	pid_t pid = fork();
	int st;

	if (pid == 0)
		mode_rawexit(status, s);
	st = reap(pid);
	printf("rawchild: %s %d\n", WIFEXITED(st) ? "exit" : "other",
	       WIFEXITED(st) ? WEXITSTATUS(st) : st);
	return !(WIFEXITED(st) && WEXITSTATUS(st) == status);
}

static int
mode_children(int n, double s)
{
	int fds[2], bad = 0;
	pid_t pids[256];

	if (n > 256 || pipe(fds) < 0)
		return 1;
	for (int i = 0; i < n; i++) {
		char c;

		pids[i] = fork();
		if (pids[i] < 0)
			return 1;
		if (pids[i] == 0) {
			close(fds[1]);
			while (read(fds[0], &c, 1) < 0 && errno == EINTR)
				;
			child_hot(s);
			_exit(0);
		}
	}
	close(fds[1]); /* all forked: let them go */
	for (int i = 0; i < n; i++) {
		int st = reap(pids[i]);

		bad += !(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	}
	printf("children: %d of %d exited 0\n", n - bad, n);
	return bad != 0;
}

static int
thrd_main(void *arg)
{
	thrd_hot(*(double *)arg);
	return 7;
}

static int
mode_thrd(int n, double s)
{
	thrd_t t[64];
	int bad = 0;

	if (n > 64)
		return 1;
	for (int i = 0; i < n; i++)
		if (thrd_create(&t[i], thrd_main, &s) != thrd_success)
			return 1;
	for (int i = 0; i < n; i++) {
		int res = 0;

		bad += thrd_join(t[i], &res) != thrd_success || res != 7;
	}
	printf("thrd: %d of %d returned 7\n", n - bad, n);
	return bad != 0;
}

static int
mode_exec(char **argv)
{
	pid_t pid = fork(), spawned;
	int st, st2;

	if (pid == 0) {
		execv(argv[0], argv);
		_exit(127);
	}
	st = reap(pid);
	if (posix_spawn(&spawned, argv[0], NULL, NULL, argv, environ) != 0)
		return 1;
	st2 = reap(spawned);
	printf("exec: %d %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : -1,
	       WIFEXITED(st2) ? WEXITSTATUS(st2) : -1);
	return 0;
}

static volatile int clone_done;
static double clone_seconds;

/* Runs on the thread pointer of the thread that cloned it: no errno, no
 * locks, nothing of libc's but the clock. */
static int
clone_main(void *unused)
{
	(void)unused;
	clone_hot(clone_seconds);
	__atomic_store_n(&clone_done, 1, __ATOMIC_RELEASE);
	return 0;
}

static int
mode_clone(double s)
{
	size_t size = 1 << 20;
	char *stack = malloc(size);
	struct timespec ts = {0, 2000000};

	clone_seconds = s;
	if (stack == NULL ||
	    clone(clone_main, stack + size,
		  CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND |
			  CLONE_THREAD | CLONE_SYSVSEM,
		  NULL) < 0)
		return 1;
	while (!__atomic_load_n(&clone_done, __ATOMIC_ACQUIRE))
		nanosleep(&ts, NULL);
	nanosleep(&ts, NULL); /* its exit */
	printf("clone: done\n");
	return 0; /* its stack stays: it may still be ending */
}

static void *
nothing(void *arg)
{
	return arg;
}

static int
mode_spawnthreads(long n)
{
	for (long i = 0; i < n; i++) {
		pthread_t t;

		if (pthread_create(&t, NULL, nothing, NULL) != 0 ||
		    pthread_join(t, NULL) != 0)
			return 1;
	}
	printf("spawnthreads: %ld\n", n);
	return 0;
}

int
main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";

	if (strcmp(mode, "rawexit") == 0 && argc == 4)
		return mode_rawexit(atoi(argv[2]), atof(argv[3]));
	if (strcmp(mode, "rawchild") == 0 && argc == 4)
		return mode_rawchild(atoi(argv[2]), atof(argv[3]));
	if (strcmp(mode, "children") == 0 && argc == 4)
		return mode_children(atoi(argv[2]), atof(argv[3]));
	if (strcmp(mode, "thrd") == 0 && argc == 4)
		return mode_thrd(atoi(argv[2]), atof(argv[3]));
	if (strcmp(mode, "exec") == 0 && argc >= 3)
		return mode_exec(argv + 2);
	if (strcmp(mode, "clone") == 0 && argc == 3)
		return mode_clone(atof(argv[2]));
	if (strcmp(mode, "spawnthreads") == 0 && argc == 3)
		return mode_spawnthreads(atol(argv[2]));
	fprintf(stderr, "usage: offspring "
			"rawexit|rawchild|children|thrd|exec|clone|spawnthreads "
			"...\n");
	return 2;
}

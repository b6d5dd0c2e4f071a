/* SPDX-License-Identifier: MIT */
/* libcs MODE ...: a program built with either C library (musl-gcc builds it
 * as libcs-musl) that starts processes and images of the other, and sets
 * signals of its own, for tests/e2e/e2e_musl.py.  One line on stdout per
 * outcome.
 *
 *   fork P C STATUS    child burns C s in child_hot and exits STATUS;
 *                      parent burns P s in parent_hot, prints its status
 *   exec S PROG ARGS   burn S s in before_exec, then execv PROG ARGS
 *   spawn PROG ARGS    posix_spawn PROG ARGS, print its exit status
 *   system S CMD       burn S s in parent_hot, print system(CMD)'s status
 *   signals S          a SIGUSR1 handler taken 100 times; SIGPROF set to
 *                      SIG_IGN with signal() and sent (ignored); SIGPROF
 *                      blocked, sent and taken by sigwait; S s burnt in
 *                      parent_hot between the steps; exits 3 */
#define _GNU_SOURCE
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"

volatile unsigned long workload_sink = 1;
extern char **environ;

WORKLOAD_BURN(parent_hot, cpu_seconds)
WORKLOAD_BURN(child_hot, cpu_seconds)
WORKLOAD_BURN(before_exec, cpu_seconds)

static volatile sig_atomic_t usr1;

static void
on_usr1(int sig)
{
	(void)sig;
	usr1++;
}

static int
status_of(int st)
{
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static int
signals(double s)
{
	struct sigaction sa = {0};
	sigset_t set;
	int got = 0;

	sa.sa_handler = on_usr1;
	sigaction(SIGUSR1, &sa, NULL);
	for (int i = 0; i < 100; i++)
		raise(SIGUSR1);
	parent_hot(s / 3);
	if (signal(SIGPROF, SIG_IGN) == SIG_ERR)
		return 1;
	kill(getpid(), SIGPROF);
	parent_hot(s / 3);
	sigemptyset(&set);
	sigaddset(&set, SIGPROF);
	sigprocmask(SIG_BLOCK, &set, NULL);
	signal(SIGPROF, SIG_DFL);
	raise(SIGPROF);
	if (sigwait(&set, &got) != 0)
		return 1;
	parent_hot(s / 3);
	printf("signals: usr1 %d, sigwait %s\n", (int)usr1,
	       got == SIGPROF ? "SIGPROF" : "other");
	return 3;
}

int
main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	int st;
	pid_t pid;

	setvbuf(stdout, NULL, _IONBF, 0);
	if (strcmp(mode, "fork") == 0 && argc == 5) {
		pid = fork();
		if (pid == 0) {
			child_hot(atof(argv[3]));
			exit(atoi(argv[4]));
		}
		parent_hot(atof(argv[2]));
		waitpid(pid, &st, 0);
		printf("fork: child exit %d\n", status_of(st));
		return 0;
	}
	if (strcmp(mode, "exec") == 0 && argc >= 4) {
		before_exec(atof(argv[2]));
		execv(argv[3], argv + 3);
		perror("execv");
		return 127;
	}
	if (strcmp(mode, "spawn") == 0 && argc >= 3) {
		if (posix_spawn(&pid, argv[2], NULL, NULL, argv + 2, environ) != 0)
			return 127;
		waitpid(pid, &st, 0);
		printf("spawn: child exit %d\n", status_of(st));
		return 0;
	}
	if (strcmp(mode, "system") == 0 && argc == 4) {
		parent_hot(atof(argv[2]));
		st = system(argv[3]);
		printf("system: status %d\n", status_of(st));
		return 0;
	}
	if (strcmp(mode, "signals") == 0 && argc == 3)
		return signals(atof(argv[2]));
	fprintf(stderr, "usage: libcs fork|exec|spawn|system|signals ...\n");
	return 2;
}

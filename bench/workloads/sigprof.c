/* SPDX-License-Identifier: MIT */
/* sigprof MODE N [DEPTH]: the cost of one sample, signal delivery included.
 * Sends itself N SIGPROFs that look like the shim's own timer's
 * (rt_tgsigqueueinfo, SI_TIMER with THREADS_TIMER_MAGIC), each delivered
 * before the call returns, from DEPTH KiB down the stack (default 16, so
 * that a -g copy of 8 KiB is full), and prints the thread's CPU time per
 * signal in ns.  MODE "own": the program installs a handler that does
 * nothing (the baseline: delivery and return alone); "shim": it leaves
 * SIGPROF to the preloaded shim (run it with LD_PRELOAD=libprofrun.so,
 * with or without PROFRUN_STACKS=1).  Used by bench/stacks.py. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common.h"

#define TIMER_MAGIC 0x70726f66 /* preload/sample/sample.h THREADS_TIMER_MAGIC */

volatile unsigned long workload_sink = 1;

static void
nothing(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)si;
	(void)uc;
	workload_sink++;
}

static double
send_all(long n)
{
	siginfo_t si;
	pid_t pid = getpid(), tid = (pid_t)syscall(SYS_gettid);
	double t0 = thread_cpu_seconds();

	for (long i = 0; i < n; i++) {
		memset(&si, 0, sizeof(si));
		si.si_signo = SIGPROF;
		si.si_code = SI_TIMER;
		si.si_value.sival_int = TIMER_MAGIC;
		syscall(SYS_rt_tgsigqueueinfo, pid, tid, SIGPROF, &si);
	}
	return thread_cpu_seconds() - t0;
}

/* Descend DEPTH KiB, a KiB a frame, then send. */
__attribute__((noipa)) static double
descend(long n, int depth)
{
	volatile char pad[1024];
	double r;

	pad[0] = (char)depth;
	if (depth <= 0)
		return send_all(n);
	r = descend(n, depth - 1);
	return r + pad[0] * 0.0;
}

int
main(int argc, char **argv)
{
	struct sigaction sa;
	long n;
	double cpu;

	if (argc < 3 || (strcmp(argv[1], "own") && strcmp(argv[1], "shim"))) {
		fprintf(stderr, "usage: sigprof own|shim N [DEPTH_KIB]\n");
		return 64;
	}
	n = atol(argv[2]);
	if (strcmp(argv[1], "own") == 0) {
		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = nothing;
		sa.sa_flags = SA_SIGINFO | SA_RESTART;
		sigaction(SIGPROF, &sa, NULL);
	}
	cpu = descend(n, argc > 3 ? atoi(argv[3]) : 16);
	printf("sigprof: %ld signals, %.1f ns each\n", n,
	       1e9 * cpu / (double)n);
	return 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * The least a preloaded sampler does in every process, for
 * bench/startup-ab.py to measure beside profrun's shim and perf record
 * (docs/benchmarks.md, "What a process costs at the least"): a SIGPROF
 * handler that counts, an alternate signal stack, and the thread's CPU-time
 * timer at the tick's rate.  No file, no executable's path, no settings:
 * it keeps nothing and is not a profiler.
 *
 * `ninja -C build bench` builds it as build/bench/floor-shim.so.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define STACK_SIZE 65536

static volatile unsigned long samples;

static void
on_sigprof(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	samples += 1 + (unsigned long)(si->si_overrun > 0 ? si->si_overrun : 0);
}

__attribute__((constructor)) static void
start(void)
{
	struct sigaction sa = {0};
	struct sigevent ev = {0};
	struct itimerspec its = {{0, 4000000}, {0, 4000000}};
	stack_t ss = {0};
	timer_t timer;

	sa.sa_sigaction = on_sigprof;
	sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK;
	sigfillset(&sa.sa_mask);
	if (sigaction(SIGPROF, &sa, NULL) != 0)
		return;
	ss.ss_sp = mmap(NULL, STACK_SIZE, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ss.ss_size = STACK_SIZE;
	if (ss.ss_sp != MAP_FAILED)
		sigaltstack(&ss, NULL);
	ev.sigev_notify = SIGEV_THREAD_ID;
	ev.sigev_signo = SIGPROF;
	ev._sigev_un._tid = (pid_t)syscall(SYS_gettid);
	if (timer_create(CLOCK_THREAD_CPUTIME_ID, &ev, &timer) == 0)
		timer_settime(timer, 0, &its, NULL);
}

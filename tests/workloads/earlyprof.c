/* SPDX-License-Identifier: MIT */
/* libearlyprof.so: a profiler linked into a program, which takes SIGPROF
 * and ITIMER_PROF (100 Hz) in its constructor, before the program's main
 * and before a preloaded profrun starts (tests/e2e_faults.py). */
#include <signal.h>
#include <string.h>
#include <sys/time.h>

volatile int earlyprof_ticks;

static void
on_prof(int sig)
{
	(void)sig;
	earlyprof_ticks++;
}

__attribute__((constructor)) static void
earlyprof_start(void)
{
	struct itimerval it = {{0, 10000}, {0, 10000}};
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_prof;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGPROF, &sa, NULL);
	setitimer(ITIMER_PROF, &it, NULL);
}

/* SPDX-License-Identifier: MIT */
/* rival HOW [SECONDS]: a program that wants SIGPROF and ITIMER_PROF for
 * itself, as another profiler or a language runtime does.  HOW is
 * "sigaction", "signal", "sigset" or "bsd_signal" (how the handler goes
 * in).  It arms ITIMER_PROF
 * at 100 Hz, burns SECONDS of CPU, and checks that its own handler got the
 * signals and that both queries return what it set.  Exit 0 when all
 * holds, 1 otherwise. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>

#include "common.h"
#include "spin.h"

sighandler_t bsd_signal(int sig, sighandler_t handler); /* not in every header */
/* sigset() is obsolescent, and exactly what programs still call */
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

volatile unsigned long workload_sink = 1;
static volatile sig_atomic_t ticks;

static void
on_prof(int sig)
{
	(void)sig;
	ticks++;
}

int
main(int argc, char **argv)
{
	const char *how = argc > 1 ? argv[1] : "sigaction";
	double seconds = arg_double(argc, argv, 2, 1.0);
	struct itimerval it = { { 0, 10000 }, { 0, 10000 } }, cur;
	struct sigaction sa, now;
	int bad = 0;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_prof;
	sa.sa_flags = SA_RESTART;
	if (strcmp(how, "signal") == 0)
		bad += signal(SIGPROF, on_prof) == SIG_ERR;
	else if (strcmp(how, "sigset") == 0)
		bad += sigset(SIGPROF, on_prof) == SIG_ERR;
	else if (strcmp(how, "bsd_signal") == 0)
		bad += bsd_signal(SIGPROF, on_prof) == SIG_ERR;
	else
		bad += sigaction(SIGPROF, &sa, NULL) != 0;
	bad += setitimer(ITIMER_PROF, &it, NULL) != 0;
	spin(seconds);
	bad += sigaction(SIGPROF, NULL, &now) != 0 || now.sa_handler != on_prof;
	bad += getitimer(ITIMER_PROF, &cur) != 0 ||
	       cur.it_interval.tv_usec != 10000;
	it.it_value.tv_usec = it.it_interval.tv_usec = 0;
	setitimer(ITIMER_PROF, &it, NULL);
	/* at least half of what 100 Hz over SECONDS of CPU gives */
	bad += ticks < seconds * 50;
	printf("rival %s: %s\n", how, bad ? "disturbed" : "own handler and timer work");
	return bad ? 1 : 0;
}

/* SPDX-License-Identifier: MIT */
/* observe [SECONDS]: prints what a program can see of its own process
 * state that a profiler could disturb: errno, SIGPROF's disposition and
 * mask, ITIMER_PROF, the blocked signals, its open descriptors, and the
 * same again after asking for SIG_IGN and disarming the timer, and in a
 * forked child.  Run with and without profrun, the output must be equal. */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"
#include "spin.h"

volatile unsigned long workload_sink = 1;

static const char *
disposition(void (*h)(int))
{
	return h == SIG_DFL ? "SIG_DFL" : h == SIG_IGN ? "SIG_IGN" : "handler";
}

static void
show(const char *when)
{
	struct sigaction sa;
	struct itimerval it;
	sigset_t mask;
	struct dirent *e;
	DIR *d;
	int saved = errno;

	printf("%s: errno %d\n", when, saved);
	sigaction(SIGPROF, NULL, &sa);
	printf("%s: SIGPROF %s flags %#x mask-has-PROF %d\n", when,
	       disposition(sa.sa_handler), (unsigned)sa.sa_flags,
	       sigismember(&sa.sa_mask, SIGPROF));
	getitimer(ITIMER_PROF, &it);
	printf("%s: ITIMER_PROF %ld.%06ld / %ld.%06ld\n", when,
	       (long)it.it_value.tv_sec, (long)it.it_value.tv_usec,
	       (long)it.it_interval.tv_sec, (long)it.it_interval.tv_usec);
	sigprocmask(SIG_BLOCK, NULL, &mask);
	printf("%s: SIGPROF blocked %d\n", when, sigismember(&mask, SIGPROF));
	d = opendir("/proc/self/fd");
	printf("%s: fds", when);
	while (d && (e = readdir(d)) != NULL)
		if (e->d_name[0] != '.' && atoi(e->d_name) != dirfd(d))
			printf(" %s", e->d_name);
	printf("\n");
	if (d)
		closedir(d);
	errno = saved;
}

int
main(int argc, char **argv)
{
	double seconds = arg_double(argc, argv, 1, 0.5);
	struct itimerval zero = { { 0, 0 }, { 0, 0 } }, old;
	pid_t pid;
	int st;

	show("start");
	spin(seconds);
	errno = 0;
	if (close(-1) == 0 || errno != EBADF)
		printf("close(-1) did not fail with EBADF\n");
	show("after EBADF");
	printf("signal(SIG_IGN) returned %s\n",
	       disposition(signal(SIGPROF, SIG_IGN)));
	memset(&old, 0xff, sizeof(old));
	setitimer(ITIMER_PROF, &zero, &old);
	printf("setitimer(0) old %ld.%06ld\n", (long)old.it_value.tv_sec,
	       (long)old.it_value.tv_usec);
	spin(seconds);
	show("after SIG_IGN");
	printf("signal(SIG_DFL) returned %s\n",
	       disposition(signal(SIGPROF, SIG_DFL)));
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		spin(seconds);
		show("child");
		fflush(stdout);
		_exit(0);
	}
	waitpid(pid, &st, 0);
	printf("child status %d\n", st);
	show("end");
	return 0;
}

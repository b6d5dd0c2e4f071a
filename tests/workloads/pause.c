/* SPDX-License-Identifier: MIT */
/* pause MODE ARGS...: a program that pauses and resumes profrun through
 * <profrun/profrun.h>, built with nothing extra to link, and runs the same
 * without profrun.  The phases are the same loop body in functions of
 * their own, each for a given CPU time:
 *
 *   bracket S       pause; setup_work S; resume; measured_work S; pause;
 *                   teardown_work S
 *   from-thread S   the same phases in a worker thread; the main thread,
 *                   which does no work, pauses and resumes
 *   resume-only S   as bracket without the first pause (for --start-paused)
 *   query           the queries after a pause and after a resume
 *   fork S          pause, a child runs paused_child_work S; resume, a
 *                   child runs running_child_work S
 *   exec S          resume; measured_work S; exec "pause burn S"
 *   burn S          busy_work S, no call at all
 *   window A B C    early_work until the process used A CPU seconds,
 *                   middle_work until A+B, late_work until A+B+C
 *   toggle S        setup_work S; says "ready" and reads a line; waits for
 *                   sampling to be resumed (a toggle signal from outside);
 *                   measured_work S; "ready", a line, waits for the pause;
 *                   teardown_work S
 *   handles S       installs a SIGUSR2 handler, raises SIGUSR2, busy_work S
 *
 * Prints one line (per step for toggle) and exits 0. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <profrun/profrun.h>

#include "common.h"

volatile unsigned long workload_sink = 1;

#define CHUNK 200000UL /* between clock reads: the clock (a system call) stays under 1% */

/* Busy for S CPU seconds of the calling thread in FN. */
#define PHASE(fn)                                                            \
	__attribute__((noipa)) void fn(double s)                             \
	{                                                                    \
		double t0 = thread_cpu_seconds();                            \
		while (thread_cpu_seconds() - t0 < s)                        \
			WORKLOAD_BODY(workload_chunk(CHUNK));                \
	}

PHASE(setup_work)
PHASE(measured_work)
PHASE(teardown_work)
PHASE(paused_child_work)
PHASE(running_child_work)
PHASE(busy_work)

/* Busy in FN until the process has used UNTIL CPU seconds. */
#define UNTIL(fn)                                                            \
	__attribute__((noipa)) void fn(double until)                         \
	{                                                                    \
		while (cpu_seconds() < until)                                \
			WORKLOAD_BODY(workload_chunk(CHUNK));                \
	}

UNTIL(early_work)
UNTIL(middle_work)
UNTIL(late_work)

static double seconds;
static volatile int step; /* worker and main thread of from-thread */

static void
wait_step(int want)
{
	struct timespec ms = {0, 1000000};

	while (__atomic_load_n(&step, __ATOMIC_ACQUIRE) != want)
		nanosleep(&ms, NULL);
}

static void
set_step(int v)
{
	__atomic_store_n(&step, v, __ATOMIC_RELEASE);
}

static void *
worker(void *arg)
{
	(void)arg;
	setup_work(seconds);
	set_step(1);
	wait_step(2);
	measured_work(seconds);
	set_step(3);
	wait_step(4);
	teardown_work(seconds);
	return NULL;
}

static int
from_thread(void)
{
	pthread_t t;

	profrun_pause();
	if (pthread_create(&t, NULL, worker, NULL) != 0)
		return 1;
	wait_step(1);
	profrun_resume();
	set_step(2);
	wait_step(3);
	profrun_pause();
	set_step(4);
	pthread_join(t, NULL);
	printf("from-thread done\n");
	return 0;
}

static int
run_child(void (*fn)(double))
{
	pid_t pid = fork();
	int st;

	if (pid == 0) {
		fn(seconds);
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) ||
	    WEXITSTATUS(st) != 0)
		return 1;
	return 0;
}

/* Wait (up to 20 s) for profrun_active() to become WANT; false if not. */
static int
wait_active(int want)
{
	struct timespec ms = {0, 1000000};

	for (int i = 0; i < 20000; i++) {
		if (profrun_active() == want)
			return 1;
		nanosleep(&ms, NULL);
	}
	return 0;
}

static int
handshake(int want)
{
	char line[16];

	printf("toggle: ready\n");
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		return 0;
	return wait_active(want);
}

static int
toggle(void)
{
	setup_work(seconds);
	if (!handshake(1))
		return printf("toggle: never resumed\n"), 1;
	measured_work(seconds);
	if (!handshake(0))
		return printf("toggle: never paused\n"), 1;
	teardown_work(seconds);
	printf("toggle done\n");
	return 0;
}

static volatile sig_atomic_t handled;

static void
on_usr2(int sig)
{
	(void)sig;
	handled++;
}

static int
handles(void)
{
	signal(SIGUSR2, on_usr2);
	raise(SIGUSR2);
	busy_work(seconds);
	printf("handles: handler ran %d times\n", (int)handled);
	return 0;
}

static int
query(void)
{
	int p1, a1;

	profrun_pause();
	p1 = profrun_paused();
	a1 = profrun_active();
	profrun_resume();
	printf("query: paused %d active %d, then paused %d active %d\n", p1,
	       a1, profrun_paused(), profrun_active());
	return 0;
}

static int
bracket(const char *mode)
{
	if (mode[0] == 'b')
		profrun_pause();
	setup_work(seconds);
	profrun_resume();
	measured_work(seconds);
	profrun_pause();
	teardown_work(seconds);
	printf("%s done\n", mode);
	return 0;
}

int
main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	char arg[32];

	seconds = arg_double(argc, argv, 2, 1.0);
	if (strcmp(mode, "bracket") == 0 || strcmp(mode, "resume-only") == 0)
		return bracket(mode);
	if (strcmp(mode, "from-thread") == 0)
		return from_thread();
	if (strcmp(mode, "query") == 0)
		return query();
	if (strcmp(mode, "toggle") == 0)
		return toggle();
	if (strcmp(mode, "handles") == 0)
		return handles();
	if (strcmp(mode, "burn") == 0) {
		busy_work(seconds);
		printf("burn done\n");
		return 0;
	}
	if (strcmp(mode, "fork") == 0) {
		profrun_pause();
		if (run_child(paused_child_work))
			return 1;
		profrun_resume();
		if (run_child(running_child_work))
			return 1;
		printf("fork done\n");
		return 0;
	}
	if (strcmp(mode, "exec") == 0) {
		profrun_resume();
		measured_work(seconds);
		snprintf(arg, sizeof(arg), "%.3f", seconds);
		fflush(stdout);
		execl("/proc/self/exe", argv[0], "burn", arg, (char *)NULL);
		return 1;
	}
	if (strcmp(mode, "window") == 0) {
		double a = arg_double(argc, argv, 2, 1), b = arg_double(argc, argv, 3, 1),
		       c = arg_double(argc, argv, 4, 1);

		early_work(a);
		middle_work(a + b);
		late_work(a + b + c);
		printf("window done\n");
		return 0;
	}
	fprintf(stderr, "pause: unknown mode '%s'\n", mode);
	return 2;
}

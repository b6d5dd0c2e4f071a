/* SPDX-License-Identifier: MIT */
/*
 * Wall-clock workload: time on and off the CPU in known shares, with
 * every blocking call checked for an early return or EINTR (a profiler
 * that signals a blocked thread would cause one).
 *
 *   wall phases [SCALE]   burn() SCALE s of CPU, sleep_phase() sleeps
 *                         SCALE s, pipe_phase() blocks SCALE/2 s reading a
 *                         pipe a forked child writes to, cond_phase()
 *                         SCALE/2 s in pthread_cond_timedwait
 *   wall threads [SCALE]  burner thread: SCALE s of CPU; sleeper thread:
 *                         poll() for SCALE s; main: pthread_join
 *   wall exec PATH ARGS   the phases run by a fork child, which then
 *                         execs PATH ARGS (under --wall, both images are
 *                         sampled by a sampler of their own)
 *
 * Prints one line per check to stdout ("... ok", or what went wrong),
 * and exits 1 if any call returned early or failed.  To stderr, the wall
 * time each blocking call and each phase really took ("took NAME
 * SECONDS"): on a loaded machine they run longer than asked.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int bad;
static double scale = 1.0;

static double
now(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A blocking call that took T seconds of the WANT it should have. */
static void
check_time(const char *what, double t, double want)
{
	fprintf(stderr, "took %s %.4f\n", what, t);
	if (t < want * 0.98) {
		printf("%s returned early (%.3f s of %.3f)\n", what, t, want);
		bad = 1;
	}
}

__attribute__((noinline)) void
burn(double secs)
{
	volatile unsigned long x = 0;
	double end = now(CLOCK_THREAD_CPUTIME_ID) + secs;

	while (now(CLOCK_THREAD_CPUTIME_ID) < end)
		for (int i = 0; i < 100000; i++)
			x += (unsigned long)i * 7;
}

__attribute__((noinline)) void
sleep_phase(double secs)
{
	struct timespec ts = {(time_t)secs,
			      (long)((secs - (double)(time_t)secs) * 1e9)};
	double t0 = now(CLOCK_MONOTONIC);

	if (nanosleep(&ts, NULL) != 0) {
		printf("nanosleep failed: %s\n", strerror(errno));
		bad = 1;
	}
	check_time("nanosleep", now(CLOCK_MONOTONIC) - t0, secs);
}

__attribute__((noinline)) void
pipe_phase(double secs)
{
	int fd[2];
	char c = 0;
	ssize_t n;
	pid_t pid;
	double t0;

	if (pipe(fd) != 0)
		exit(2);
	pid = fork();
	if (pid == 0) {
		struct timespec ts = {0, (long)(secs * 1e9)};

		close(fd[0]);
		while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
			;
		if (write(fd[1], "x", 1) != 1)
			_exit(3);
		_exit(0);
	}
	close(fd[1]);
	t0 = now(CLOCK_MONOTONIC);
	n = read(fd[0], &c, 1);
	if (n != 1) {
		printf("read returned %zd: %s\n", n, strerror(errno));
		bad = 1;
	}
	check_time("read", now(CLOCK_MONOTONIC) - t0, secs * 0.9);
	close(fd[0]);
	waitpid(pid, NULL, 0);
}

__attribute__((noinline)) void
cond_phase(double secs)
{
	pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
	pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
	struct timespec dl;
	double t0 = now(CLOCK_MONOTONIC);
	int r;

	clock_gettime(CLOCK_REALTIME, &dl);
	dl.tv_nsec += (long)(secs * 1e9);
	dl.tv_sec += dl.tv_nsec / 1000000000;
	dl.tv_nsec %= 1000000000;
	pthread_mutex_lock(&m);
	do
		r = pthread_cond_timedwait(&cv, &m, &dl);
	while (r == 0); /* a spurious wake-up is allowed; EINTR is not */
	pthread_mutex_unlock(&m);
	if (r != ETIMEDOUT) {
		printf("pthread_cond_timedwait returned %s\n", strerror(r));
		bad = 1;
	}
	check_time("pthread_cond_timedwait", now(CLOCK_MONOTONIC) - t0, secs);
}

/* FN(SECS), its wall time said on stderr under NAME. */
static void
timed(const char *name, void (*fn)(double), double secs)
{
	double t0 = now(CLOCK_MONOTONIC);

	fn(secs);
	fprintf(stderr, "took %s %.4f\n", name, now(CLOCK_MONOTONIC) - t0);
}

static void
phases(void)
{
	timed("burn", burn, scale);
	timed("sleep_phase", sleep_phase, scale);
	timed("pipe_phase", pipe_phase, scale / 2);
	timed("cond_phase", cond_phase, scale / 2);
	printf("phases %s\n", bad ? "FAILED" : "ok");
}

static void *
burner(void *arg)
{
	(void)arg;
	burn(scale);
	return NULL;
}

__attribute__((noinline)) void
poll_phase(double secs)
{
	double t0 = now(CLOCK_MONOTONIC);
	int r = poll(NULL, 0, (int)(secs * 1000));

	if (r != 0) {
		printf("poll returned %d: %s\n", r, strerror(errno));
		bad = 1;
	}
	check_time("poll", now(CLOCK_MONOTONIC) - t0, secs);
}

static void *
sleeper(void *arg)
{
	(void)arg;
	poll_phase(scale);
	return NULL;
}

static void
threads(void)
{
	pthread_t a, b;

	pthread_create(&a, NULL, burner, NULL);
	pthread_create(&b, NULL, sleeper, NULL);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	printf("threads %s\n", bad ? "FAILED" : "ok");
}

int
main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	if (strcmp(argv[1], "exec") == 0 && argc >= 3) {
		pid_t pid;
		int st;

		fflush(stdout);
		pid = fork();
		if (pid == 0) {
			scale = 0.5;
			phases();
			fflush(stdout);
			execv(argv[2], argv + 2);
			_exit(127);
		}
		if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
			return 1;
		printf("child exited %d\n", WEXITSTATUS(st));
		return WEXITSTATUS(st);
	}
	if (argc >= 3)
		scale = atof(argv[2]);
	if (strcmp(argv[1], "phases") == 0)
		phases();
	else if (strcmp(argv[1], "threads") == 0)
		threads();
	else
		return 2;
	return bad;
}

/* SPDX-License-Identifier: MIT */
/* bench-spawn [-n K] RESULT [NAME=VALUE...] -- PROGRAM [ARGS...]: run
 * PROGRAM K times in a row (default once) with the NAME=VALUE pairs added
 * to its environment (not to this process's: LD_PRELOAD must reach only the
 * program), wait for each with wait4() and write
 * "WALL_S CPU_S MAXRSS_KB STATUS" to the file RESULT: total wall and CPU
 * time, the largest peak RSS, the first non-zero exit status.
 *
 * bench/run measures through this small process rather than from Python:
 * a child's ru_maxrss includes the image it had before exec, which for a
 * child of the Python interpreter is the interpreter's own RSS. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct totals {
	double cpu;
	long maxrss;
	int status;
};

static double
now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double
tv_seconds(struct timeval tv)
{
	return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

static int
exit_status(int wstatus)
{
	if (WIFEXITED(wstatus))
		return WEXITSTATUS(wstatus);
	return WIFSIGNALED(wstatus) ? -WTERMSIG(wstatus) : -1;
}

/* In the child: apply NAME=VALUE arguments up to "--", then exec. */
static void
exec_program(char **args)
{
	for (; *args && strcmp(*args, "--") != 0; args++)
		if (putenv(*args) != 0)
			_exit(127);
	if (!*args || !args[1]) {
		fprintf(stderr, "bench-spawn: no program after --\n");
		_exit(127);
	}
	execvp(args[1], args + 1);
	perror("bench-spawn: exec");
	_exit(127);
}

/* Run the program once and add its usage to *t.  Returns 0 or -1. */
static int
run_once(char **args, struct totals *t)
{
	struct rusage usage;
	int wstatus;
	pid_t pid = fork();

	if (pid < 0) {
		perror("bench-spawn: fork");
		return -1;
	}
	if (pid == 0)
		exec_program(args);
	if (wait4(pid, &wstatus, 0, &usage) < 0) {
		perror("bench-spawn: wait4");
		return -1;
	}
	t->cpu += tv_seconds(usage.ru_utime) + tv_seconds(usage.ru_stime);
	if (usage.ru_maxrss > t->maxrss)
		t->maxrss = usage.ru_maxrss;
	if (t->status == 0)
		t->status = exit_status(wstatus);
	return 0;
}

int
main(int argc, char **argv)
{
	struct totals t = {0};
	long times = 1;
	double start;
	FILE *out;
	int first = 1;

	if (argc > 2 && strcmp(argv[1], "-n") == 0) {
		times = atol(argv[2]);
		first = 3;
	}
	if (argc - first < 2 || times < 1) {
		fprintf(stderr,
			"usage: bench-spawn [-n K] RESULT [NAME=VALUE...] -- PROGRAM [ARGS...]\n");
		return 64;
	}
	start = now_seconds();
	for (long i = 0; i < times; i++)
		if (run_once(argv + first + 1, &t) < 0)
			return 1;
	out = fopen(argv[first], "w");
	if (!out) {
		perror("bench-spawn: result file");
		return 1;
	}
	fprintf(out, "%.9f %.6f %ld %d\n", now_seconds() - start, t.cpu,
		t.maxrss, t.status);
	return fclose(out) ? 1 : 0;
}

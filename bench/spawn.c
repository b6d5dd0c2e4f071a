/* SPDX-License-Identifier: MIT */
/* bench-spawn RESULT [NAME=VALUE...] -- PROGRAM [ARGS...]: run PROGRAM
 * with the NAME=VALUE pairs added to its environment (not to this
 * process's: LD_PRELOAD must reach only the program), wait for it with
 * wait4() and write "WALL_S CPU_S MAXRSS_KB STATUS" to the file RESULT.
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

int
main(int argc, char **argv)
{
	struct rusage usage;
	int wstatus;
	double start;
	pid_t pid;
	FILE *out;

	if (argc < 3) {
		fprintf(stderr, "usage: bench-spawn RESULT [NAME=VALUE...] -- PROGRAM [ARGS...]\n");
		return 64;
	}
	start = now_seconds();
	pid = fork();
	if (pid < 0) {
		perror("bench-spawn: fork");
		return 1;
	}
	if (pid == 0)
		exec_program(argv + 2);
	if (wait4(pid, &wstatus, 0, &usage) < 0) {
		perror("bench-spawn: wait4");
		return 1;
	}
	out = fopen(argv[1], "w");
	if (!out) {
		perror("bench-spawn: result file");
		return 1;
	}
	fprintf(out, "%.9f %.6f %ld %d\n", now_seconds() - start,
		tv_seconds(usage.ru_utime) + tv_seconds(usage.ru_stime),
		usage.ru_maxrss, exit_status(wstatus));
	return fclose(out) ? 1 : 0;
}

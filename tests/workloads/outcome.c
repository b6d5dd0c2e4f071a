/* SPDX-License-Identifier: MIT */
/* outcome MODE [CPU_SECONDS]: burns CPU in spin() for CPU_SECONDS, prints
 * "outcome MODE" on stdout, then ends as MODE says:
 *   exit:N    exit(N)           _exit:N  _exit(N)      _Exit:N  _Exit(N)
 *   abort     abort()           signal:N raise(N) with the default action
 *   ready     print "ready PID" on stdout and keep spinning until killed */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "spin.h"

volatile unsigned long workload_sink = 1;

int
main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "exit:0";
	double seconds = arg_double(argc, argv, 2, 0.5);

	spin(seconds);
	if (strcmp(mode, "ready") == 0) {
		printf("ready %d\n", (int)getpid());
		fflush(stdout);
		for (;;)
			spin(1.0);
	}
	printf("outcome %s\n", mode);
	fflush(stdout);
	if (strncmp(mode, "exit:", 5) == 0)
		exit(atoi(mode + 5));
	if (strncmp(mode, "_exit:", 6) == 0)
		_exit(atoi(mode + 6));
	if (strncmp(mode, "_Exit:", 6) == 0)
		_Exit(atoi(mode + 6));
	if (strcmp(mode, "abort") == 0)
		abort();
	if (strncmp(mode, "signal:", 7) == 0) {
		signal(atoi(mode + 7), SIG_DFL);
		raise(atoi(mode + 7));
	}
	return 2;
}

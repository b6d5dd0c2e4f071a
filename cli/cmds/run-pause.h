/* SPDX-License-Identifier: MIT */
/* The options of `profrun PROGRAM` that pause and resume sampling:
 * --start-paused, --toggle-signal, --delay and --duration, handed to the
 * shim as PROFRUN_START, PROFRUN_TOGGLE_SIGNAL, PROFRUN_DELAY and
 * PROFRUN_DURATION. */
#ifndef PROFRUN_CLI_RUN_PAUSE_H
#define PROFRUN_CLI_RUN_PAUSE_H

#include <getopt.h>
#include <stdbool.h>

struct pause_opts {
	bool start_paused;
	int toggle_sig;	 /* 0 = none */
	double delay;	 /* CPU seconds, < 0 = none */
	double duration; /* CPU seconds, < 0 = none */
};

#define PAUSE_OPTS_INIT                                                        \
	{                                                                      \
		.delay = -1, .duration = -1                                    \
	}

/* getopt_long values (above the characters of run.c's short options). */
enum {
	OPT_START_PAUSED = 512,
	OPT_TOGGLE_SIGNAL,
	OPT_DELAY,
	OPT_DURATION,
};

/* clang-format off */
#define PAUSE_LONGOPTS \
	{"start-paused", no_argument, NULL, OPT_START_PAUSED}, \
	{"toggle-signal", required_argument, NULL, OPT_TOGGLE_SIGNAL}, \
	{"delay", required_argument, NULL, OPT_DELAY}, \
	{"duration", required_argument, NULL, OPT_DURATION}

#define PAUSE_OPTIONS_HELP \
	"      --start-paused  sample nothing until the program calls\n" \
	"                      profrun_resume() (<profrun/profrun.h>) or gets the\n" \
	"                      toggle signal\n" \
	"      --toggle-signal SIG  each SIG (USR1, USR2, HUP, WINCH, URG or\n" \
	"                      RTMIN+N) sent to the program or to profrun pauses or\n" \
	"                      resumes sampling; refused if the program handles SIG\n" \
	"      --delay SECONDS     start paused and resume after SECONDS of the\n" \
	"                      process's CPU time (not wall time)\n" \
	"      --duration SECONDS  pause for good after SECONDS more of CPU time\n" \
	"                      (each process and exec'd program counts its own)\n"
/* clang-format on */

/* Handle C, an OPT_* of the above, with ARG.  Returns -1 to go on, or
 * EXIT_USAGE after saying why not. */
int pause_option(int c, const char *arg, struct pause_opts *o);

/* Refuse, before anything runs, a toggle signal the program would not get
 * at its default action (ignored or blocked where profrun starts).
 * Returns 0, or EXIT_USAGE after one line. */
int pause_check(const struct pause_opts *o);

/* Set the shim's variables for O.  Returns 0, or -1 (out of memory). */
int pause_environ(const struct pause_opts *o);

#endif /* PROFRUN_CLI_RUN_PAUSE_H */

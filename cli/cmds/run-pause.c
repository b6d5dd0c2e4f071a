/* SPDX-License-Identifier: MIT */
/* The options of `profrun PROGRAM` that pause and resume sampling
 * (run-pause.h); the shim does the pausing (preload/pause.c). */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"
#include "run-pause.h"

/* The signals that may toggle: ones the program is unlikely to get from
 * anyone else, whose default action is harmless to take over. */
static const struct {
	const char *name;
	int sig;
} toggle_names[] = {
	{"USR1", SIGUSR1},   {"USR2", SIGUSR2}, {"HUP", SIGHUP},
	{"WINCH", SIGWINCH}, {"URG", SIGURG},
};

/* "RTMIN+N" (or "RTMIN") into a signal number, or 0. */
static int
rt_signal(const char *s)
{
	char *end;
	long n = 0;

	if (strncasecmp(s, "RTMIN", 5) != 0)
		return 0;
	s += 5;
	if (*s == '+') {
		errno = 0;
		n = strtol(s + 1, &end, 10);
		if (errno || end == s + 1 || *end || n < 0)
			return 0;
	} else if (*s != '\0') {
		return 0;
	}
	return n <= SIGRTMAX - SIGRTMIN ? SIGRTMIN + (int)n : 0;
}

/* NAME ("USR1", "SIGUSR1", "RTMIN+2", or its number) as a toggle signal,
 * or 0 when it is not one of those allowed. */
static int
toggle_signal(const char *name)
{
	char *end;
	long n;
	size_t i;

	if (strncasecmp(name, "SIG", 3) == 0)
		name += 3;
	errno = 0;
	n = strtol(name, &end, 10);
	if (end != name && *end == '\0' && errno == 0) {
		for (i = 0; i < sizeof(toggle_names) / sizeof(toggle_names[0]);
		     i++)
			if (toggle_names[i].sig == n)
				return (int)n;
		return n >= SIGRTMIN && n <= SIGRTMAX ? (int)n : 0;
	}
	for (i = 0; i < sizeof(toggle_names) / sizeof(toggle_names[0]); i++)
		if (strcasecmp(name, toggle_names[i].name) == 0)
			return toggle_names[i].sig;
	return rt_signal(name);
}

/* A number of CPU seconds, >= 0; -1 if ARG is not one. */
static double
cpu_seconds(const char *arg)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (errno || end == arg || *end || !(v >= 0) || v > 1e6)
		return -1;
	return v;
}

int
pause_option(int c, const char *arg, struct pause_opts *o)
{
	double *dst = c == OPT_DELAY ? &o->delay : &o->duration;

	switch (c) {
	case OPT_START_PAUSED:
		o->start_paused = true;
		return -1;
	case OPT_TOGGLE_SIGNAL:
		o->toggle_sig = toggle_signal(arg);
		if (o->toggle_sig)
			return -1;
		cli_error(
			"--toggle-signal: '%s' cannot toggle sampling (USR1, USR2, HUP, WINCH, URG or RTMIN+N)",
			arg);
		return EXIT_USAGE;
	default:
		*dst = cpu_seconds(arg);
		if (*dst >= 0)
			return -1;
		cli_error("--%s: '%s' is not a number of seconds (0 to 1e6)",
			  c == OPT_DELAY ? "delay" : "duration", arg);
		return EXIT_USAGE;
	}
}

int
pause_check(const struct pause_opts *o)
{
	struct sigaction cur;
	sigset_t mask;

	if (o->toggle_sig == 0)
		return 0;
	if (sigaction(o->toggle_sig, NULL, &cur) == 0 &&
	    cur.sa_handler == SIG_IGN) {
		cli_error(
			"--toggle-signal: signal %d (%s) is ignored where profrun starts, so the program would not have it at its default action",
			o->toggle_sig, strsignal(o->toggle_sig));
		return EXIT_USAGE;
	}
	if (sigprocmask(SIG_BLOCK, NULL, &mask) == 0 &&
	    sigismember(&mask, o->toggle_sig) == 1) {
		cli_error(
			"--toggle-signal: signal %d (%s) is blocked where profrun starts, so the program would never take it",
			o->toggle_sig, strsignal(o->toggle_sig));
		return EXIT_USAGE;
	}
	return 0;
}

/* Set NAME to the seconds V (when V >= 0).  Returns 0 or -1. */
static int
set_seconds(const char *name, double v)
{
	char buf[64];

	if (v < 0)
		return 0;
	snprintf(buf, sizeof(buf), "%.9g", v);
	return setenv(name, buf, 1);
}

int
pause_environ(const struct pause_opts *o)
{
	char buf[16];

	if (o->start_paused && setenv("PROFRUN_START", "paused", 1))
		return -1;
	if (o->toggle_sig) {
		snprintf(buf, sizeof(buf), "%d", o->toggle_sig);
		if (setenv("PROFRUN_TOGGLE_SIGNAL", buf, 1))
			return -1;
	}
	return set_seconds("PROFRUN_DELAY", o->delay) ||
			       set_seconds("PROFRUN_DURATION", o->duration)
		       ? -1
		       : 0;
}

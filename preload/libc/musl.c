/* SPDX-License-Identifier: MIT */
/*
 * musl's side of libc.h.  musl has no profil(), and needs none: the
 * SIGPROF handler (timer.c) counts the main executable's PCs into the
 * histogram, as it does under glibc.  musl calls constructors
 * without arguments and atexit() handlers without the status: both come
 * from __libc_start_main, which the program's start-up code (crt1) calls
 * through the dynamic linker, so the preloaded one here is taken.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "libc/libc.h"
#include "shim.h"

typedef int (*main_fn)(int, char **, char **);
typedef int (*start_main_fn)(main_fn, int, char **, void (*)(void),
			     void (*)(void), void (*)(void));
typedef void (*exit_fn_t)(int);

static start_main_fn real___libc_start_main;
static exit_fn_t real_exit;
static main_fn program_main;
static int command_argc;
static char **command_argv;
static int exit_status;
static void (*exit_fn)(int status);

/* Not async-signal-safe. */
void
libc_resolve(void)
{
	REAL(exit);
}

/* Not async-signal-safe. */
void
libc_command_line(int *argc, char ***argv)
{
	*argc = command_argc;
	*argv = command_argv;
}

static void
at_exit_hook(void)
{
	exit_fn(exit_status);
}

/* Not async-signal-safe. */
void
libc_on_exit(void (*fn)(int status))
{
	exit_fn = fn;
	atexit(at_exit_hook);
}

/* Async-signal-safe: musl's messages are static strings, and a profiled
 * program's locale is never asked (the shim writes in the C locale). */
const char *
libc_errdesc(int err)
{
	return strerror(err);
}

/* The status main returned is exit()'s. */
static int
main_then_status(int argc, char **argv, char **envp)
{
	exit_status = program_main(argc, argv, envp);
	return exit_status;
}

/* The program's start-up code calls this before any constructor runs
 * (musl runs them from here): keep the command line, and main's status.
 * Not async-signal-safe. */
int __libc_start_main(main_fn main, int argc, char **argv, void (*init)(void),
		      void (*fini)(void), void (*ldso)(void));

EXPORT int
__libc_start_main(main_fn main, int argc, char **argv, void (*init)(void),
		  void (*fini)(void), void (*ldso)(void))
{
	command_argc = argc;
	command_argv = argv;
	program_main = main;
	if (REAL(__libc_start_main) == NULL)
		abort();
	return real___libc_start_main(main_then_status, argc, argv, init, fini,
				      ldso);
}

/* exit() called by the program: its status for the exit hook.  Not
 * async-signal-safe (neither is exit). */
EXPORT void
exit(int status)
{
	exit_status = status;
	if (REAL(exit) != NULL)
		real_exit(status);
	_Exit(status);
}

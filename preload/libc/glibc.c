/* SPDX-License-Identifier: MIT */
/*
 * glibc's side of libc.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "libc/libc.h"
#include "shim.h"

profil_fn real_profil;

static void (*exit_fn)(int status);

/* Not async-signal-safe. */
void
libc_resolve(void)
{
	REAL(profil);
}

/* glibc passes a preloaded object's constructors the command line: the
 * values given are already the program's.  Not async-signal-safe. */
void
libc_command_line(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
}

static void
on_exit_hook(int status, void *arg)
{
	(void)arg;
	exit_fn(status);
}

/* Not async-signal-safe. */
void
libc_on_exit(void (*fn)(int status))
{
	exit_fn = fn;
	on_exit(on_exit_hook, NULL);
}

/* Async-signal-safe: strerrordesc_np returns a static string. */
const char *
libc_errdesc(int err)
{
	return strerrordesc_np(err);
}

/* SPDX-License-Identifier: MIT */
/*
 * What the harnesses share: the CLI's message functions, silenced (a fuzzer
 * feeds millions of damaged inputs, each worth a warning), and invariant
 * checks that turn a broken promise into a crash the fuzzer reports.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli/cli.h"
#include "fuzz.h"

void
cli_error(const char *fmt, ...)
{
	(void)fmt;
}

void
cli_warn(const char *fmt, ...)
{
	(void)fmt;
}

void
fuzz_assert(int cond, const char *msg)
{
	if (cond)
		return;
	fprintf(stderr, "fuzz: invariant broken: %s\n", msg);
	abort();
}

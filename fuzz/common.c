/* SPDX-License-Identifier: MIT */
/*
 * What the harnesses share: the CLI's messages silenced (a fuzzer
 * feeds millions of damaged inputs, each worth a warning), and invariant
 * checks that turn a broken promise into a crash the fuzzer reports.
 */
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "fuzz.h"

static void
drop_message(bool warning, const char *msg)
{
	(void)warning;
	(void)msg;
}

/* Before the first input, in the fuzzer and in the replay driver alike. */
__attribute__((constructor)) static void
silence_messages(void)
{
	cli_set_message_sink(drop_message);
}

void
fuzz_assert(int cond, const char *msg)
{
	if (cond)
		return;
	fprintf(stderr, "fuzz: invariant broken: %s\n", msg);
	abort();
}

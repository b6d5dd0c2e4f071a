/* SPDX-License-Identifier: MIT */
/* Parts of the gmon.out export (formats/gmon.c). */
#ifndef PROFRUN_CLI_GMON_H
#define PROFRUN_CLI_GMON_H

#include <stdio.h>

#include "stacks.h"

/* The call arc records of S's calls between adjacent physical frames both
 * in EXE: from_pc the caller's frame address, self_pc the callee's entry
 * (its frame address when unknown), count the samples of the stacks with
 * that call (once per stack), in address order.  0, or -1 after an error
 * message.  (formats/gmon-arcs.c) */
int gmon_arcs(const struct report_stacks *s, const char *exe, FILE *out);

#endif /* PROFRUN_CLI_GMON_H */

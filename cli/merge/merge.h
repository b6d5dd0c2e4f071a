/* SPDX-License-Identifier: MIT */
/* `profrun merge`: exact sums of profiles of the same binary. */
#ifndef PROFRUN_CLI_MERGE_H
#define PROFRUN_CLI_MERGE_H

#include <stdbool.h>
#include <stddef.h>

/* Sum the N profiles PATHS into the run directory OUT: one member file
 * per binary, its counts the exact sum of that binary's members.  Inputs
 * whose main binary (the one with the most samples) differs from the
 * first input's are refused, or with FORCE merged into it by function
 * name.  Returns 0, 1 when OUT was written but the inputs lack members
 * (unreadable, or processes that left none: said in one line), or -1
 * after printing an error. */
int merge_profiles(char *const *paths, size_t n, const char *out, bool force);

#endif /* PROFRUN_CLI_MERGE_H */

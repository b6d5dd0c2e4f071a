/* SPDX-License-Identifier: MIT */
/* Parts of the text report (formats/text.c) kept in files of their own. */
#ifndef PROFRUN_CLI_TEXT_H
#define PROFRUN_CLI_TEXT_H

#include <stdio.h>

#include "report.h"

/* The table by executable, when the run holds several
 * (formats/text-executables.c). */
void report_text_executables(const struct report *r, FILE *out);

/* With --processes: the processes by CPU time, highest first, one line
 * each (formats/text-executables.c). */
void report_text_processes(const struct report *r, FILE *out);

/* With --by-thread: each process's threads (formats/text-threads.c). */
void report_text_threads(const struct report *r, FILE *out);

/* A wall profile's clock line, and its blocked time by thread and system
 * call (formats/text-wall.c). */
void report_text_clock(const struct report *r, FILE *out);
void report_text_wall(const struct report *r, FILE *out);

/* One line, when some of L's samples are in code without symbols: how
 * much, where, and how to get the names (formats/text-names.c). */
void report_text_missing_names(const struct func_list *l, uint64_t total,
			       FILE *out);

#endif /* PROFRUN_CLI_TEXT_H */

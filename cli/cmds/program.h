/* SPDX-License-Identifier: MIT */
/* Finding and vetting the program `profrun PROGRAM` is asked to run. */
#ifndef PROFRUN_PROGRAM_H
#define PROFRUN_PROGRAM_H

#include <stdbool.h>
#include <stddef.h>

/* Resolve NAME as execvp(3) would: a name with a slash is used as given,
 * otherwise each $PATH entry is tried.  Returns 0 and fills OUT, or the
 * exit status to give up with: 127 (not found) or 126 (not executable),
 * after printing one line naming the program. */
int program_resolve(const char *name, char *out, size_t outsz);

/* Check that PATH can be reached by LD_PRELOAD: a dynamically linked ELF
 * executable, or a script whose interpreter is one.  Returns 0, or 126
 * after printing one line saying why not. */
int program_check_dynamic(const char *path);

/* True when PATH is set-user-ID or set-group-ID: the dynamic linker runs
 * it in secure-execution mode, where LD_PRELOAD is ignored, so profrun runs
 * it unprofiled. */
bool program_is_setid(const char *path);

/* True when PATH is a musl program (its PT_INTERP is a musl loader), or a
 * script whose interpreter is one: it needs libprofrun-musl.so. */
bool program_is_musl(const char *path);

#endif /* PROFRUN_PROGRAM_H */

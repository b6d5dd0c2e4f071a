/* SPDX-License-Identifier: MIT */
/* Finding separate debug information for libdwfl. */
#ifndef PROFRUN_CLI_DEBUGINFO_H
#define PROFRUN_CLI_DEBUGINFO_H

#include <elfutils/libdwfl.h>
#include <stddef.h>

/* Use DIRS (N of them) as extra roots for debug files, searched before
 * the standard ones: each for a build-id tree (DIR/.build-id/xx/yyy.debug),
 * the executable's own directory under it, and the .gnu_debuglink name
 * directly in it.  Returns 0 or -1 when out of memory. */
int debuginfo_set_dirs(const char *const *dirs, size_t n);

/* Offline callbacks: the executable by path, debug files from the
 * directories above, the standard places, and debuginfod when
 * DEBUGINFOD_URLS is set (libdwfl's own client).  A debug file found
 * under the executable's .gnu_debuglink name but made for another build
 * is warned about and skipped. */
extern const Dwfl_Callbacks debuginfo_callbacks;

#endif /* PROFRUN_CLI_DEBUGINFO_H */

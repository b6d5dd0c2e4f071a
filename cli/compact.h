/* SPDX-License-Identifier: MIT */
/* Giving back the disk space a finished run's profiles do not use. */
#ifndef PROFRUN_CLI_COMPACT_H
#define PROFRUN_CLI_COMPACT_H

#include <stdint.h>

/* Punch the all-zero blocks out of every member of the run directory DIR
 * whose process is finished and gone; what the members read back is
 * unchanged.  Best effort and silent: a member still being written, a
 * filesystem without hole punching, or any error leaves files as they
 * are.  Returns the bytes of disk space given back. */
uint64_t run_compact(const char *dir);

#endif /* PROFRUN_CLI_COMPACT_H */

/* SPDX-License-Identifier: MIT */
/* Run directories: one member file per process image (docs/format.md). */
#ifndef PROFRUN_CLI_RUN_H
#define PROFRUN_CLI_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "profile.h"

/* A member of a run directory that could not be read: damaged, or out of
 * memory reading it.  PATH or REASON is NULL when there was no memory left
 * to keep it. */
struct run_unreadable {
	char *path;
	char *reason;
	int64_t pid; /* by its name, -1 when not known */
};

/* A process whose member should be in the run but is not: a child the
 * run's members recorded that left no member. */
struct run_missing {
	int32_t pid, ppid; /* the process, and the one that started it */
	uint16_t kind;	   /* enum profrun_child_kind */
	char *path;	   /* the image, NULL when not recorded (a fork) */
};

/* Images the run could not profile, by path and reason. */
struct run_not_profiled {
	char *path;
	uint16_t reason; /* enum profrun_child_reason */
	bool script;	 /* a #! script, judged by its interpreter */
	size_t count;	 /* processes */
};

/* A run: the members that could be read, and those that could not. */
struct run {
	char *path;
	bool is_dir;
	struct profile *members; /* in run order: start time, pid, seq */
	size_t n;
	size_t skipped; /* members left out (each was warned about) */
	struct run_unreadable *unreadable; /* the first nunreadable of them */
	size_t nunreadable;
	struct run_missing *missing; /* members that should be here */
	size_t nmissing;
	struct run_not_profiled *not_profiled; /* most processes first */
	size_t nnot_profiled;
	uint64_t children_unrecorded; /* children past the members' records:
				       * neither named nor checked */
};

/* A run's report is partial: members could not be read, or are missing. */
static inline bool
run_partial(const struct run *run)
{
	return run->skipped > 0 || run->nmissing > 0;
}

/* Load PATH, a run directory or a single member file.  Members of a
 * directory that cannot be read are warned about, left out and listed in
 * RUN->unreadable (a report of the rest is partial).  Returns 0, or -1 after
 * printing one error line. */
int run_load(const char *path, struct run *run);

void run_fini(struct run *run);

/* Match the offspring the members recorded against the members: fill
 * RUN's missing and not_profiled lists, and the end, as the parent's wait
 * saw it, of each process whose last image never finished (hdr.reaped).
 * Returns 0, or -1 when out of memory.  (run-offspring.c) */
int run_check_offspring(struct run *run);

/* "set-user-ID", "static", ... for enum profrun_child_reason; "forked",
 * "spawned", "exec'd" for enum profrun_child_kind. */
const char *run_child_reason(uint16_t reason);
const char *run_child_how(uint16_t kind);

/* Load the N profiles PATHS as one run: their members side by side, in
 * the order given.  Returns 0, or -1 after printing one error line. */
int run_load_many(char *const *paths, size_t n, struct run *run);

/* Whether PATH is a run directory: a directory holding nothing but
 * member files (regular files with member names).  0 when it is, 1 when
 * PATH does not exist, -1 after an error ending in HINT (what the user
 * may do about it) when it is something else. */
int run_dir_check(const char *path, const char *hint);

/* Remove the member files of the run directory PATH, and PATH itself when
 * REMOVE_DIR; nothing when PATH is not a run directory (as run_dir_check
 * says, and with the same return values). */
int run_dir_empty(const char *path, bool remove_dir, const char *hint);

/* The process PID, which the caller started and waited for, ended with
 * wait STATUS: say so in its latest member in DIR when that image never
 * finished (header.reaped).  Returns 0, or -1 (the member could not be
 * written). */
int run_note_reaped(const char *dir, uint32_t pid, int status);

/* The path of a member of PID in the directory DIR that does not exist
 * yet, in a new string; NULL when out of memory. */
char *run_member_path(const char *dir, uint32_t pid);

/* Limit every member of RUN to its samples taken between LO and HI
 * seconds (HI < 0: to its end) after its start, or with FROM_RUN after
 * the run's (its first member's) start (profile_limit_time).  Returns 0,
 * or -1 after printing one error line.  (member-window.c) */
int run_limit_time(struct run *run, double lo, double hi, bool from_run);

#endif /* PROFRUN_CLI_RUN_H */

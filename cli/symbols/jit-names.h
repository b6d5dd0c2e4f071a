/* SPDX-License-Identifier: MIT */
/* Names of code a runtime compiled, from the files the runtime writes for
 * perf: a perf map (/tmp/perf-PID.map: "START SIZE name" lines, hex) and
 * a jitdump (jit-PID.dump: code-load records name code, debug records
 * give its lines).  Both are read as hostile input. */
#ifndef PROFRUN_CLI_JIT_NAMES_H
#define PROFRUN_CLI_JIT_NAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Most bytes of either file read (the shim copies no more). */
#define JIT_NAMES_MAX_FILE (64ull * 1024 * 1024)

/* One piece of named code: [start, end), runtime addresses. */
struct jit_sym {
	uint64_t start, end;
	uint64_t seq; /* order written: a later one at an address wins */
	char *name;
};

/* One line-table entry of a jitdump: code at addr on from file:line. */
struct jit_line {
	uint64_t addr;
	uint64_t seq;
	const char *file; /* one of the names' strings */
	uint32_t line;
};

struct jit_names {
	struct jit_sym *v; /* by start once finished */
	size_t n, cap;
	uint64_t *max_end;	/* highest end among the first i (finished) */
	struct jit_line *lines; /* by addr once finished */
	size_t nlines, lines_cap;
	char **files; /* the file names lines point at */
	size_t nfiles, files_cap;
	uint64_t seq;
	uint64_t refused; /* lines or records that made no sense */
};

/* Add the entries of a perf map of LEN bytes at BUF.  A last line without
 * a newline is taken only when COMPLETE (a copy cut short ends mid-line).
 * Returns 0, or -1 when out of memory. */
int jit_names_parse_map(struct jit_names *j, const char *buf, size_t len,
			bool complete);

/* Add the code-load and debug records of a jitdump of LEN bytes at BUF.
 * Returns 0, 1 when BUF is no jitdump (bad header), or -1 when out of
 * memory; records cut short at the end are ignored. */
int jit_names_parse_dump(struct jit_names *j, const uint8_t *buf, size_t len);

/* Sort what was added, for lookups.  Returns 0, or -1 when out of memory. */
int jit_names_finish(struct jit_names *j);

/* The latest entry holding PC, or NULL. */
const struct jit_sym *jit_names_find(const struct jit_names *j, uint64_t pc);

/* The source line of PC in code S (jitdump debug records): its line, the
 * file into *FILE; 0 when none is known. */
uint32_t jit_names_line(const struct jit_names *j, const struct jit_sym *s,
			uint64_t pc, const char **file);

void jit_names_fini(struct jit_names *j);

#endif /* PROFRUN_CLI_JIT_NAMES_H */

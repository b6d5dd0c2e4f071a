/* SPDX-License-Identifier: MIT */
/* Mapping sampled link-time addresses to functions (libdwfl). */
#ifndef PROFRUN_CLI_SYMBOLIZE_H
#define PROFRUN_CLI_SYMBOLIZE_H

#include <stdbool.h>
#include <stdint.h>

#include "profile.h"

/* One function (or unnamed address range) with its samples.  The key is
 * (module, name): equal names in different executables stay apart. */
struct func {
	char *module;	  /* executable path */
	char *name;	  /* shown name */
	char *symbol;	  /* raw symbol name (names of ranges repeat name) */
	char *file;	  /* source file, NULL when unknown */
	int line;	  /* 0 when unknown */
	uint64_t addr;	  /* entry address (link-time) */
	uint64_t samples;
};

struct func_list {
	struct func *v;
	size_t n, cap;
};

void func_list_fini(struct func_list *l);

/* Append a copy of F; returns 0 or -1 when out of memory. */
int func_list_add(struct func_list *l, const struct func *f);

/* Merge entries with the same (module, name), then sort by samples
 * (descending) and name. */
void func_list_finish(struct func_list *l);

/* Distinct modules in L, counting no further than 2. */
size_t func_list_modules(const struct func_list *l);

/* Symbolization, cached per (executable path, build-id). */
struct symbolizer;

struct symbolizer *symbolizer_new(bool force);
void symbolizer_free(struct symbolizer *sz);

/* Resolve SAMPLES (N of them, sorted by address, from the executable and
 * build-id recorded in P) and append one entry per function to OUT.
 * Samples in no symbol become "[module 0xSTART-0xEND]" entries; none is
 * ever dropped.  Returns 0, or -1 after printing an error (the binary was
 * rebuilt and force is off, or out of memory). */
int symbolize(struct symbolizer *sz, const struct profile *p,
	      const struct profile_sample *samples, size_t n,
	      struct func_list *out);

/* Source file (allocated; absolute when the compilation directory is
 * known) and line of the code at link-time ADDR in P's executable; *FILE
 * is NULL when unknown.  Returns 0, or -1 when out of memory. */
int symbolize_source(struct symbolizer *sz, const struct profile *p,
		     uint64_t addr, char **file, int *line);

/* Short name of an executable path, for display. */
const char *module_display(const char *exe);

#endif /* PROFRUN_CLI_SYMBOLIZE_H */

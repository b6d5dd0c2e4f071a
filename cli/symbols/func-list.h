/* SPDX-License-Identifier: MIT */
/* Lists of report entries: functions, or source lines, with samples. */
#ifndef PROFRUN_CLI_FUNC_LIST_H
#define PROFRUN_CLI_FUNC_LIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One function (or unnamed address range, or source line) with its
 * samples. */
struct func {
	char *module;  /* executable path */
	char *name;    /* shown name (demangled unless asked not to) */
	char *symbol;  /* raw name (names of ranges repeat name) */
	char *caller;  /* shown name of the symbol holding the code, when
			 * inlined (functions) or always (lines); else NULL */
	char *file;    /* source file, NULL when unknown */
	int line;      /* 0 when unknown */
	uint64_t addr; /* entry address (link-time) */
	uint64_t samples;
	uint64_t kernel;    /* of them, taken right after a system call */
	uint64_t offcpu;    /* of them, of a blocked thread (--wall) */
	uint64_t inclusive; /* stacks with it anywhere on them, scaled to
			     * samples; 0 when the run has no stacks */
};

/* What makes two entries one. */
enum func_key {
	KEY_FUNCTION,	 /* module, name */
	KEY_LINE,	 /* module, file, line, name */
	KEY_LINE_CALLER, /* module, file, line, name, caller */
};

struct func_list {
	struct func *v;
	size_t n, cap;
	enum func_key key;
};

void func_list_fini(struct func_list *l);

/* Append a copy of F; returns 0 or -1 when out of memory. */
int func_list_add(struct func_list *l, const struct func *f);

/* Merge entries with the same key, then sort by samples (descending),
 * then by name (functions) or place (lines). */
void func_list_finish(struct func_list *l);

/* Distinct modules of L's entries with samples, counting no further
 * than 2. */
size_t func_list_modules(const struct func_list *l);

/* True when MODULE (a path, or "[vdso]", "[unknown]") is the one NAME
 * names: the same, or the same file name. */
bool func_module_is(const char *module, const char *name);

/* Drop the entries of L whose module is not NAME's. */
void func_list_keep_module(struct func_list *l, const char *name);

/* Samples per module, most first (ties by name); modules whose entries
 * have no samples are not counted. */
struct module_total {
	char *module;
	uint64_t samples;
};

/* The module totals of L into *OUT (N of them).  Returns 0, or -1 when out
 * of memory. */
int module_totals(const struct func_list *l, struct module_total **out,
		  size_t *n);
void module_totals_free(struct module_total *v, size_t n);

/* Sum of the samples of L's entries from index FIRST on. */
uint64_t func_list_samples(const struct func_list *l, size_t first);

/* Sum of the kernel samples of L's entries. */
uint64_t func_list_kernel(const struct func_list *l);

#endif /* PROFRUN_CLI_FUNC_LIST_H */

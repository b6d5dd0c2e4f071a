/* SPDX-License-Identifier: MIT */
/* Samples outside the main executables: mapped to the shared libraries
 * and vdso recorded at run time, summed per object across processes,
 * symbolized like the executables. */
#ifndef PROFRUN_CLI_OUTSIDE_H
#define PROFRUN_CLI_OUTSIDE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "func-list.h"
#include "profile.h"
#include "symbolize.h"

/* The module name of what fell in no known object ("[unknown]") and of
 * the vdso ("[vdso]"). */
#define OUTSIDE_UNKNOWN "[unknown]"
#define OUTSIDE_VDSO	"[vdso]"

/* The file name of profrun's own shim: its samples are the cost of
 * profiling, not the program's. */
#define OUTSIDE_SHIM "libprofrun.so"

/* The module name of code a runtime compiled ("[JIT]"), and the name of
 * what of it no perf map or jitdump named. */
#define OUTSIDE_JIT	   "[JIT]"
#define OUTSIDE_JIT_NO_MAP "[JIT code without a map]"

/* One object's samples at link-time addresses. */
struct lib {
	struct sym_object obj;
	uint32_t kind;		   /* enum profrun_module_kind */
	uint64_t start, end, bias; /* as the first process had it loaded */
	struct profile_sample *samples;
	size_t n, cap, summed; /* as samples_append keeps them */
	uint64_t total;
};

struct lib_set {
	struct lib *v;
	size_t n, cap;
	uint64_t libs, vdso; /* samples in libraries, in the vdso */
	uint64_t unknown;    /* PC in no recorded object, or no usable PC */
	uint64_t lost;	     /* the PC table was full */
	uint64_t unrecorded; /* outside, where not recorded */
	uint64_t overhead;   /* in profrun's shim: left out of the objects */
	uint64_t jit;	     /* in code a runtime compiled, named */
	uint64_t jit_no_map; /* in such code that nothing names */
	struct func_list jit_funcs, jit_lines; /* the named, one per PC */
	char *jit_problem; /* the first copy of names that could not be
			    * read, or NULL */
};

/* True when the object at PATH is profrun's shim. */
bool outside_is_shim(const char *path);

/* P's samples in profrun's shim. */
uint64_t outside_overhead(const struct profile *p);

/* The record of P's object that held PC when it was sampled in module
 * generation GEN: the one loaded then; else the one found next at that
 * address (loaded before the scan that would have seen it); else the
 * last one there.  NULL when no record covers PC. */
const struct profile_module *outside_module(const struct profile *p,
					    uint64_t pc, uint32_t gen);

/* The object of M (recorded in P) as the symbolizer sees it. */
struct sym_object outside_object(const struct profile *p,
				 const struct profile_module *m);

struct jit_names;

/* The names of P's JIT code its copies of the runtime's perf map and
 * jitdump give, into J (finished for lookups); a copy that cannot be read
 * is left out, its reason kept in *PROBLEM when that is NULL (PROBLEM may
 * be NULL).  Returns 0, or -1 when out of memory. */
int outside_jit_names(const struct profile *p, struct jit_names *j,
		      char **problem);

/* Add the outside samples of P to SET.  Returns 0, or -1 when out of
 * memory. */
int lib_set_add(struct lib_set *set, const struct profile *p);

/* Symbolize SET into FUNCS (and LINES, when not NULL) and add one entry
 * for each kind of sample no object holds.  Returns 0, or -1 after printing an
 * error. */
int lib_set_symbolize(struct lib_set *set, struct symbolizer *sz,
		      struct func_list *funcs, struct func_list *lines);

void lib_set_fini(struct lib_set *set);

#endif /* PROFRUN_CLI_OUTSIDE_H */

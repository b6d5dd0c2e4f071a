/* SPDX-License-Identifier: MIT */
/* Mapping sampled link-time addresses to functions and lines (libdwfl). */
#ifndef PROFRUN_CLI_SYMBOLIZE_H
#define PROFRUN_CLI_SYMBOLIZE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "func-list.h"
#include "profile.h"

/* What to resolve, and how to name it. */
struct sym_opts {
	bool force;    /* use a binary whose build-id changed */
	bool demangle; /* show C++ and Rust names demangled */
	bool inlines;  /* split functions among the functions inlined */
	bool lines;    /* also resolve each address to its source line */
	const char *const *debug_dirs; /* extra roots for debug files */
	size_t ndebug_dirs;
};

/* Symbolization, cached per (executable path, build-id). */
struct symbolizer;

/* A symbolizer with OPTS (copied; the strings must outlive it), or NULL
 * when out of memory. */
struct symbolizer *symbolizer_new(const struct sym_opts *opts);
void symbolizer_free(struct symbolizer *sz);

/* Resolve SAMPLES (N of them, sorted by address, from the executable and
 * build-id recorded in P) and append one entry per function to FUNCS and,
 * when the symbolizer resolves lines, one per source line to LINES
 * (KEY_LINE_CALLER entries).  Samples in no symbol become
 * "[module 0xSTART-0xEND]" entries; none is ever dropped.  Returns 0, or
 * -1 after printing an error (the binary was rebuilt and force is off,
 * or out of memory). */
int symbolize(struct symbolizer *sz, const struct profile *p,
	      const struct profile_sample *samples, size_t n,
	      struct func_list *funcs, struct func_list *lines);

/* An object other than a profile's main executable: a shared library or
 * the vdso. */
struct sym_object {
	const char *name;     /* file to open, and the entries' module */
	const char *build_id; /* hex recorded at run time, "" when none */
	const char *what;     /* where it was recorded, for messages */
	const uint8_t *image; /* its ELF image in memory (the vdso), or NULL */
	size_t image_size;
	uint64_t granule; /* bytes each sample address stands for */
	bool library;	  /* a build-id mismatch warns and leaves the
			       * samples by address (unless force) instead
			       * of refusing the report */
};

/* symbolize() for the object O. */
int symbolize_object(struct symbolizer *sz, const struct sym_object *o,
		     const struct profile_sample *samples, size_t n,
		     struct func_list *funcs, struct func_list *lines);

/* Plan one more walk of the object O (symbolize_object, symbolize): the
 * symbolizer closes an object after the last walk planned for it, giving
 * back its file, symbols and debug information, so that one object at a
 * time is held instead of all of them.  An object used again after that
 * is opened again (and warned about again).  Objects never planned stay
 * open until symbolizer_free.  Returns 0, or -1 when out of memory. */
int symbolizer_plan(struct symbolizer *sz, const struct sym_object *o);

/* symbolizer_plan() of P's executable, for one more symbolize(). */
int symbolizer_plan_exe(struct symbolizer *sz, const struct profile *p);

/* Source file (allocated; absolute when the compilation directory is
 * known) and line of the code at link-time ADDR in P's executable; *FILE
 * is NULL when unknown.  Returns 0, or -1 when out of memory. */
int symbolize_source(struct symbolizer *sz, const struct profile *p,
		     uint64_t addr, char **file, int *line);

/* The link-time entry of the function NAME (raw, as an entry's symbol) in
 * P's executable, by the table symbolize() names functions with, among
 * the functions whose entry lies in P's histogram: the lowest when several
 * do, 0 when none.  Returns 0, or -1 after printing an error (the
 * executable cannot be read, or out of memory). */
int symbolize_entry(struct symbolizer *sz, const struct profile *p,
		    const char *name, uint64_t *entry);

/* One level of the code at an address of a call stack. */
struct sym_frame {
	const char *name;   /* shown name */
	const char *symbol; /* raw name */
	const char *file;   /* source file, NULL when unknown */
	int line;	    /* 0 when unknown */
	uint64_t entry;	    /* link-time entry of a symbol, 0 for inlined */
	bool inlined;	    /* inlined into the next level */
	bool entry_point;   /* the function holds its object's ELF entry
			     * point (e_entry): a process's first frame */
};

/* The levels at link-time ADDR of object O into OUT (at most MAX),
 * innermost first: the functions inlined there, then the function holding
 * the code ("[module]" when no symbol holds it).  The strings live as long
 * as SZ.  Returns how many (at least 1 when MAX > 0), or -1 when out of
 * memory.  (frames.c) */
int symbolize_frames(struct symbolizer *sz, const struct sym_object *o,
		     uint64_t addr, struct sym_frame *out, int max);

/* Short name of an executable path, for display. */
const char *module_display(const char *exe);

#endif /* PROFRUN_CLI_SYMBOLIZE_H */

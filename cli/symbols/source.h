/* SPDX-License-Identifier: MIT */
/* Source lines and inlined functions of sampled addresses (libdw). */
#ifndef PROFRUN_CLI_SOURCE_H
#define PROFRUN_CLI_SOURCE_H

#include <elfutils/libdwfl.h>
#include <stdbool.h>
#include <stdint.h>

#include "strmap.h"

/* Where the code at one sampled address comes from. */
struct addr_src {
	uint64_t addr;	      /* link-time */
	const char *file;     /* absolute source file, NULL when unknown */
	int line;	      /* 0 when unknown */
	const char *inl;      /* raw name of the innermost inlined function,
			       * NULL when the code is not inlined */
	const char *inl_file; /* where that function is declared */
	int inl_line;
};

/* The addresses of one module resolved so far.  Strings are interned. */
struct src_cache {
	struct addr_src *v; /* sorted by address */
	size_t n, cap;
	struct strmap strings;
	const char *what; /* file named in warnings (the module's) */
	bool warned;	  /* one warning per module is enough */
	bool checked;	  /* the unit headers were found readable */
};

/* Resolve those of ADDRS (N link-time addresses, ascending) that C does
 * not hold yet: each address once, and each compilation unit walked once
 * for all of its addresses.  Broken DWARF is warned about (once) and
 * leaves the addresses it hides unknown.  Returns 0, or -1 when out of
 * memory. */
int src_resolve(struct src_cache *c, Dwfl_Module *mod, Dwarf_Addr bias,
		const uint64_t *addrs, size_t n);

/* The resolved ADDR, or NULL. */
const struct addr_src *src_lookup(const struct src_cache *c, uint64_t addr);

void src_cache_fini(struct src_cache *c);

/* File (a new string, absolute when the compilation directory is known)
 * and line of the code at module address ADDR, from the line table; *FILE
 * is NULL when unknown.  Returns 0, or -1 when out of memory. */
int src_line(Dwfl_Module *mod, Dwarf_Addr addr, char **file, int *line);

/* Source of a function's entry ADDR (a module address): the line table,
 * else the declaration of the subprogram holding it.  *FILE is a new
 * string, or NULL when unknown. */
void src_entry(Dwfl_Module *mod, Dwarf_Addr addr, char **file, int *line);

#endif /* PROFRUN_CLI_SOURCE_H */

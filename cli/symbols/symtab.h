/* SPDX-License-Identifier: MIT */
/* The function symbols of one object, the one table every part of profrun
 * names functions by: symbolization (report, annotate, diff, pprof) and
 * merge --force, which looks entries up by name. */
#ifndef PROFRUN_CLI_SYMTAB_H
#define PROFRUN_CLI_SYMTAB_H

#include <elfutils/libdwfl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "plt.h"

struct sym {
	uint64_t start, end; /* link-time [start, end) */
	const char *name;    /* raw; owned by libdwfl or the PLT table */
	const char *shown;   /* demangled, or name; NULL until the user
			      * sets it (module.c's sym_shown) */
	int rank;	     /* lower is preferred among aliases */
	bool sizeless;
	bool src_done; /* file and line looked up */
	char *file;
	int line;
};

struct symtab {
	struct sym *v; /* by address, one per address */
	size_t n;
	struct plt_entry *plt; /* names of the syms in the PLT */
	size_t nplt;
	size_t *by_name; /* indexes of v by name, then address; built on
			  * the first symtab_entry() */
};

/* The functions of MOD (BIAS: module address - link-time address), from
 * whatever libdwfl finds (.symtab, else the separate debug file, else
 * .dynsym), and its PLT entries as "NAME@plt".  Where several symbols
 * start at one address the preferred one stays: global before weak
 * before local, sized before sizeless, then by name.  A sizeless symbol
 * ends at the next symbol or the end of its section.  FD: MOD's file, for
 * plt_entries(), or -1.  Returns 0, or -1 when out of memory. */
int symtab_load(struct symtab *t, Dwfl_Module *mod, Dwarf_Addr bias, int fd);
void symtab_fini(struct symtab *t);

/* The symbol containing link-time ADDR, or NULL; *GAP identifies the
 * space between two symbols that ADDR falls in. */
struct sym *symtab_lookup(const struct symtab *t, uint64_t addr, long *gap);

/* The entry of the function NAME (raw) whose entry lies in [LO, HI): the
 * lowest when several do; 0 when none.  0, or -1 when out of memory. */
int symtab_entry(struct symtab *t, const char *name, uint64_t lo, uint64_t hi,
		 uint64_t *entry);

#endif /* PROFRUN_CLI_SYMTAB_H */

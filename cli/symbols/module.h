/* SPDX-License-Identifier: MIT */
/* The objects a symbolizer has opened (inside symbols/ only: the rest of
 * profrun uses symbolize.h). */
#ifndef PROFRUN_CLI_MODULE_H
#define PROFRUN_CLI_MODULE_H

#include <elfutils/libdwfl.h>
#include <stdbool.h>

#include "eh-frame.h"
#include "fde-table.h"
#include "source.h"
#include "strmap.h"
#include "symbolize.h"
#include "symtab.h"
#include "syscall-site.h"

/* One object (path + build-id), opened once. */
struct module {
	struct module *next;
	char *exe;
	char *build_id;
	Dwfl *dwfl;
	Dwfl_Module *mod; /* NULL: reported by address only */
	Dwarf_Addr bias;
	struct symtab syms;
	bool refused;		 /* build-id mismatch without --force */
	bool library;		 /* a mismatch costs only its names */
	struct src_cache src;	 /* lines and inlined functions, by address */
	struct code_bytes code;	 /* its code, for system-call sites */
	struct strmap shown;	 /* raw name -> shown name */
	bool demangle;		 /* shown names are demangled */
	char *unknown_name;	 /* "[module]": code in no symbol */
	struct eh_frame_view eh; /* its frame descriptions, when libdw's
				  * would be searched one by one */
	bool eh_tried;		 /* eh looked at */
	struct fde_table fdes;	 /* its functions' extents, from .eh_frame */
	bool fdes_tried;	 /* fdes read */
	bool loaded;		 /* opened (and warned about) */
	unsigned walks;		 /* planned walks to come (symbolizer_plan) */
};

struct symbolizer {
	struct sym_opts opts;
	struct module *modules;
};

/* The module of O, opened (and its symbols read) on first use.  Problems
 * with the file are warned about, and leave it without symbols (or
 * refused); NULL only when out of memory. */
struct module *module_get(struct symbolizer *sz, const struct sym_object *o);

/* One walk of O's samples is done: after the last walk planned
 * (symbolizer_plan) its module is closed. */
void module_walked(struct symbolizer *sz, const struct sym_object *o);

/* The shown name of RAW: demangled (a "@plt" suffix kept) when DEMANGLED
 * and possible, else RAW; NULL when out of memory. */
const char *shown_name(struct module *m, const char *raw, bool demangled);

/* The shown name of Y, a symbol of M, made on first use; NULL when out of
 * memory. */
const char *sym_shown(struct module *m, struct sym *y);

/* The extent [*LO, *HI) (link-time) of the code without a symbol holding
 * link-time ADDR: its function's frame description in .eh_frame (the
 * whole function), or the gap between two descriptions (and symbols)
 * that holds it: a name for code without symbols that stays the same
 * from run to run.  False when M has no descriptions around ADDR. */
bool module_code_extent(struct module *m, uint64_t addr, uint64_t *lo,
			uint64_t *hi);

#endif /* PROFRUN_CLI_MODULE_H */

/* SPDX-License-Identifier: MIT */
/*
 * The frames at one address of a call stack: the function holding the
 * code and the functions inlined into it there, innermost first, each with
 * its source line (libdw's scopes of the address: each inlined subroutine
 * names the function and, through its call site, the line of the level
 * outside it).
 */
#define _GNU_SOURCE
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "module.h"
#include "symbolize.h"

/* The raw name of the function DIE stands for (linkage name first). */
static const char *
die_raw_name(Dwarf_Die *die)
{
	Dwarf_Attribute a;
	const char *s = NULL;

	if (dwarf_attr_integrate(die, DW_AT_linkage_name, &a) ||
	    dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &a))
		s = dwarf_formstring(&a);
	return s ? s : dwarf_diename(die);
}

/* The file of the call site of the inlined subroutine DIE. */
static const char *
call_file(Dwarf_Die *die, Dwarf_Die *cu)
{
	Dwarf_Attribute a;
	Dwarf_Word idx;
	Dwarf_Files *files;
	size_t n;

	if (!dwarf_attr(die, DW_AT_call_file, &a) || dwarf_formudata(&a, &idx))
		return NULL;
	if (dwarf_getsrcfiles(cu, &files, &n) != 0 || idx >= n)
		return NULL;
	return dwarf_filesrc(files, idx, NULL, NULL);
}

static int
call_line(Dwarf_Die *die)
{
	Dwarf_Attribute a;
	Dwarf_Word v;

	if (!dwarf_attr(die, DW_AT_call_line, &a) || dwarf_formudata(&a, &v))
		return 0;
	return v > 1000000000 ? 0 : (int)v;
}

static const char *
intern(struct module *m, const char *s)
{
	return s ? strmap_intern(&m->src.strings, s) : NULL;
}

/* The inlined levels at module address MADDR, innermost first, into OUT
 * (at most MAX - 1, so the holding function still fits); *FILE, *LINE:
 * where the holding function's own code is (the outermost call site).
 * Returns how many. */
static int
inlined_levels(struct module *m, Dwarf_Addr maddr, struct sym_frame *out,
	       int max, const char **file, int *line)
{
	Dwarf_Addr bias;
	Dwarf_Die *cu = dwfl_module_addrdie(m->mod, maddr, &bias), *scopes;
	int n, k = 0;

	if (cu == NULL)
		return 0;
	n = dwarf_getscopes(cu, maddr - bias, &scopes);
	for (int i = 0; i < n && k < max - 1; i++) {
		const char *raw;

		if (dwarf_tag(&scopes[i]) != DW_TAG_inlined_subroutine)
			continue;
		raw = die_raw_name(&scopes[i]);
		out[k].symbol = raw ? intern(m, raw) : "[inlined]";
		out[k].name =
			raw ? shown_name(m, raw, m->demangle) : "[inlined]";
		out[k].inlined = true;
		out[k].entry = 0;
		/* this level's line is where the next one inside called it */
		if (k + 1 < max) {
			out[k + 1].file = intern(m, call_file(&scopes[i], cu));
			out[k + 1].line = call_line(&scopes[i]);
		}
		*file = intern(m, call_file(&scopes[i], cu));
		*line = call_line(&scopes[i]);
		k++;
	}
	if (n > 0)
		free(scopes);
	return k;
}

/* Whether [LO, HI) (link-time) holds the ELF entry point of O, a main
 * executable (module M): the root of every stack of its main thread,
 * named or not.  A library's entry point is no process's start. */
static bool
holds_entry(const struct sym_object *o, struct module *m, uint64_t lo,
	    uint64_t hi)
{
	Dwarf_Addr bias;
	Elf *elf = m->mod && !o->library && !o->image
			   ? dwfl_module_getelf(m->mod, &bias)
			   : NULL;
	GElf_Ehdr eh;

	return elf && gelf_getehdr(elf, &eh) &&
	       (eh.e_type == ET_EXEC || eh.e_type == ET_DYN) &&
	       eh.e_entry != 0 && lo <= eh.e_entry && eh.e_entry < hi;
}

int
symbolize_frames(struct symbolizer *sz, const struct sym_object *o,
		 uint64_t addr, struct sym_frame *out, int max)
{
	struct module *m = module_get(sz, o);
	struct sym *y;
	long gap;
	int k = 0, line = 0;
	const char *file = NULL;
	char *f = NULL;

	if (m == NULL)
		return -1;
	if (max <= 0)
		return 0;
	y = m->mod && !m->refused ? symtab_lookup(&m->syms, addr, &gap) : NULL;
	if (y == NULL) {
		const char *name = m->unknown_name;
		uint64_t lo = 0, hi = 0;
		char *s;

		/* named as the flat profile names it: its extent */
		if (module_code_extent(m, addr, &lo, &hi)) {
			if (asprintf(&s, "[%s 0x%" PRIx64 "-0x%" PRIx64 "]",
				     module_display(m->exe), lo, hi) < 0)
				return -1;
			name = intern(m, s);
			free(s);
			if (name == NULL)
				return -1;
		}
		out[0] = (struct sym_frame){.name = name, .symbol = name};
		if (name != m->unknown_name)
			out[0].entry_point = holds_entry(o, m, lo, hi);
		return 1;
	}
	if (!sym_shown(m, y))
		return -1;
	/* the innermost level's line comes from the line table */
	if (src_line(m->mod, addr + m->bias, &f, &line) == 0 && f) {
		file = intern(m, f);
		free(f);
	}
	out[0].file = file;
	out[0].line = line;
	k = inlined_levels(m, addr + m->bias, out, max, &file, &line);
	if (k == 0) {
		file = out[0].file;
		line = out[0].line;
	}
	out[k] = (struct sym_frame){
		.name = sym_shown(m, y),
		.symbol = y->name,
		.entry = y->start,
		.file = file,
		.line = line,
		.entry_point = holds_entry(o, m, y->start, y->end)};
	return k + 1;
}

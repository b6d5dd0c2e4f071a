/* SPDX-License-Identifier: MIT */
/* Names for the entries of a program's PLT, which no symbol table covers:
 * samples there (a call's indirect jump into a shared library) are shown
 * as "NAME@plt", as objdump and perf name them. */
#ifndef PROFRUN_CLI_PLT_H
#define PROFRUN_CLI_PLT_H

#include <gelf.h>
#include <stddef.h>
#include <stdint.h>

struct plt_entry {
	uint64_t start, end; /* link-time [start, end) */
	const char *name;    /* "NAME@plt", interned (util/intern.h) */
};

/* The named PLT entries of ELF (sections .plt, .plt.sec and .plt.got of an
 * x86-64 file; none for other machines) into a new array *OUT of *N
 * entries, each entry's jump resolved through its GOT slot's relocation.
 * Entries whose slot has no symbol (the PLT's header, IRELATIVE slots) are
 * left out.  Damaged sections give fewer entries, never an error.
 * FD is the file ELF was read from: its relocations are read from it in
 * pieces (-1: through ELF's data).  0, or -1 when out of memory (*OUT
 * NULL). */
int plt_entries(Elf *elf, int fd, struct plt_entry **out, size_t *n);

void plt_entries_free(struct plt_entry *v, size_t n);

#endif /* PROFRUN_CLI_PLT_H */

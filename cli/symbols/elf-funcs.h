/* SPDX-License-Identifier: MIT */
/* Function symbols of an executable by name (profrun merge --force). */
#ifndef PROFRUN_CLI_ELF_FUNCS_H
#define PROFRUN_CLI_ELF_FUNCS_H

#include <stddef.h>
#include <stdint.h>

struct elf_func {
	char *name;
	uint64_t addr; /* link-time entry */
};

struct elf_funcs {
	struct elf_func *v; /* sorted by name */
	size_t n;
};

/* The defined functions of EXE (.symtab, else .dynsym) whose entry lies in
 * [LO, HI).  Returns 0, or -1 after printing an error. */
int elf_funcs_load(struct elf_funcs *f, const char *exe, uint64_t lo,
		   uint64_t hi);
void elf_funcs_fini(struct elf_funcs *f);

/* Entry of the function NAME; 0 when there is none. */
uint64_t elf_funcs_find(const struct elf_funcs *f, const char *name);

#endif /* PROFRUN_CLI_ELF_FUNCS_H */

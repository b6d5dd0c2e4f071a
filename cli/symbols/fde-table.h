/* SPDX-License-Identifier: MIT */
/*
 * The extents of an object's functions from its frame descriptions: each
 * FDE of .eh_frame gives [initial_location, initial_location +
 * address_range), the function it describes, symbols or not (inside
 * symbols/ only).
 */
#ifndef PROFRUN_CLI_FDE_TABLE_H
#define PROFRUN_CLI_FDE_TABLE_H

#include <gelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct fde_range {
	uint64_t start, end; /* link-time */
};

struct fde_table {
	struct fde_range *v; /* sorted by start */
	size_t n;
};

/* Read the frame descriptions of ELF's .eh_frame into T, at the file's
 * (link-time) addresses; T is empty when it has none, or only encodings
 * not read here.  Returns 0, or -1 when out of memory. */
int fde_table_load(struct fde_table *t, Elf *elf);
void fde_table_fini(struct fde_table *t);

/* The description holding ADDR: its index, or -1 when none does; *BELOW
 * is the index of the last one starting at or below ADDR (-1 when none),
 * so that a gap between two descriptions is [v[*BELOW].end,
 * v[*BELOW + 1].start). */
long fde_table_find(const struct fde_table *t, uint64_t addr, long *below);

#endif /* PROFRUN_CLI_FDE_TABLE_H */

/* SPDX-License-Identifier: MIT */
/*
 * The frame descriptions of an object found through its .eh_frame_hdr
 * table when libdw would not use that table (inside symbols/ only).
 */
#ifndef PROFRUN_CLI_EH_FRAME_H
#define PROFRUN_CLI_EH_FRAME_H

#include <elfutils/libdw.h>
#include <gelf.h>
#include <stddef.h>

/* A view of an object's .eh_frame and .eh_frame_hdr as a file of program
 * headers only, and libdw's CFI of it. */
struct eh_frame_view {
	Dwarf_CFI *cfi; /* NULL: none made (libdw's own CFI serves) */
	Elf *elf;
	void *map;
	size_t len;
};

/* Make V for ELF, read from the file FD, when libdw would search its
 * frame descriptions one by one: libdw 0.188 takes the binary search
 * table of .eh_frame_hdr only when the section headers name that
 * section before .eh_frame (gold names it after); without section
 * headers it takes it from the program header.  The view maps the file
 * from .eh_frame to the end of the table behind a page of headers, so
 * the descriptions and their addresses are the file's.  Leaves V empty
 * when not needed or not possible. */
void eh_frame_view_open(struct eh_frame_view *v, Elf *elf, int fd);
void eh_frame_view_close(struct eh_frame_view *v);

#endif /* PROFRUN_CLI_EH_FRAME_H */

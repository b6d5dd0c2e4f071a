/* SPDX-License-Identifier: MIT */
/*
 * The frame descriptions of an object through the binary search table
 * of its .eh_frame_hdr (symbols/eh-frame.h).  libdw 0.188 looks for the
 * table only among the section headers before the first .eh_frame, so
 * for a file linked by gold (libLLVM's: .eh_frame, then .eh_frame_hdr)
 * it finds a description by reading every one before it: 95,000 of
 * them, 8 ms for a single address.  A file without section headers has
 * its table found through the PT_GNU_EH_FRAME program header instead:
 * such a file is made here out of a page of headers and the object's own
 * bytes, mapped, from .eh_frame to the end of the table.
 */
#define _GNU_SOURCE
#include <stdbool.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "eh-frame.h"

/* Whether the first section named .eh_frame comes before any named
 * .eh_frame_hdr (then libdw does not use the table); *FRAMES and *HDR get
 * their headers. */
static bool
table_unseen(Elf *elf, GElf_Shdr *frames, GElf_Shdr *hdr)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	const char *name;
	bool seen_frames = false, seen_hdr = false, unseen = false;

	if (elf_getshdrstrndx(elf, &shstrndx) != 0 || shstrndx == 0)
		return false;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		name = gelf_getshdr(scn, &sh)
			       ? elf_strptr(elf, shstrndx, sh.sh_name)
			       : NULL;
		if (name && !seen_hdr && strcmp(name, ".eh_frame_hdr") == 0) {
			*hdr = sh;
			seen_hdr = true;
			unseen = seen_frames;
		} else if (name && !seen_frames &&
			   strcmp(name, ".eh_frame") == 0) {
			*frames = sh;
			seen_frames = true;
		}
	}
	return seen_hdr && unseen;
}

/* The program header of the table, the same as its section. */
static bool
table_segment(Elf *elf, const GElf_Shdr *hdr, GElf_Phdr *out)
{
	size_t n;

	if (elf_getphdrnum(elf, &n) != 0)
		return false;
	for (size_t i = 0; i < n; i++) {
		if (gelf_getphdr(elf, (int)i, out) &&
		    out->p_type == PT_GNU_EH_FRAME)
			return out->p_offset == hdr->sh_offset &&
			       out->p_vaddr == hdr->sh_addr &&
			       out->p_filesz == hdr->sh_size;
	}
	return false;
}

/* The file's part [OFF, OFF + LEN) mapped behind a page of headers:
 * the file's own ELF header without section headers, then one program
 * header, PH (placed as the table is in the view). */
static bool
view_map(struct eh_frame_view *v, int fd, uint64_t off, uint64_t len,
	 GElf_Phdr *ph)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	uint64_t from = off / page * page;
	Elf64_Ehdr eh;
	Elf64_Phdr p;
	uint8_t *map;

	if (pread(fd, &eh, sizeof(eh), 0) != (ssize_t)sizeof(eh))
		return false;
	v->len = (size_t)(page + (off - from) + len);
	map = mmap(NULL, v->len, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (map == MAP_FAILED)
		return false;
	v->map = map;
	if (mmap(map + page, v->len - page, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_FIXED, fd, (off_t)from) == MAP_FAILED)
		return false;
	eh.e_phoff = sizeof(eh);
	eh.e_phnum = 1;
	eh.e_phentsize = sizeof(p);
	eh.e_shoff = 0;
	eh.e_shnum = 0;
	eh.e_shentsize = 0;
	eh.e_shstrndx = 0;
	p = (Elf64_Phdr){.p_type = PT_GNU_EH_FRAME,
			 .p_flags = ph->p_flags,
			 .p_offset = page + (off - from) + (ph->p_offset - off),
			 .p_vaddr = ph->p_vaddr,
			 .p_paddr = ph->p_paddr,
			 .p_filesz = ph->p_filesz,
			 .p_memsz = ph->p_filesz,
			 .p_align = ph->p_align};
	memcpy(map, &eh, sizeof(eh));
	memcpy(map + sizeof(eh), &p, sizeof(p));
	return true;
}

void
eh_frame_view_open(struct eh_frame_view *v, Elf *elf, int fd)
{
	GElf_Shdr frames = {0}, hdr = {0};
	GElf_Phdr ph;
	GElf_Ehdr eh;
	struct stat st;
	uint64_t end;

	memset(v, 0, sizeof(*v));
	/* the frames, then the table right after them, in the file as in
	 * memory: one stretch of the file holds both */
	if (fd < 0 || !gelf_getehdr(elf, &eh) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_ident[EI_DATA] != ELFDATA2LSB ||
	    !table_unseen(elf, &frames, &hdr) ||
	    !table_segment(elf, &hdr, &ph) || frames.sh_type == SHT_NOBITS ||
	    frames.sh_offset > hdr.sh_offset ||
	    hdr.sh_addr - frames.sh_addr != hdr.sh_offset - frames.sh_offset ||
	    fstat(fd, &st) < 0 || hdr.sh_size > (uint64_t)st.st_size ||
	    hdr.sh_offset > (uint64_t)st.st_size - hdr.sh_size)
		return;
	end = hdr.sh_offset + hdr.sh_size;
	if (!view_map(v, fd, frames.sh_offset, end - frames.sh_offset, &ph)) {
		eh_frame_view_close(v);
		return;
	}
	v->elf = elf_memory(v->map, v->len);
	v->cfi = v->elf ? dwarf_getcfi_elf(v->elf) : NULL;
	if (!v->cfi)
		eh_frame_view_close(v);
}

void
eh_frame_view_close(struct eh_frame_view *v)
{
	if (v->cfi)
		dwarf_cfi_end(v->cfi);
	if (v->elf)
		elf_end(v->elf);
	if (v->map)
		munmap(v->map, v->len);
	memset(v, 0, sizeof(*v));
}

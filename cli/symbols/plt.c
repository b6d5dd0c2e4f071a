/* SPDX-License-Identifier: MIT */
/*
 * PLT entries named through their GOT slots (x86-64).
 *
 * Every PLT entry a call goes through holds an indirect jump through a
 * GOT slot, "jmp *disp32(%rip)" (ff 25, maybe after an endbr64 and a bnd
 * prefix), and the dynamic linker fills that slot as a JUMP_SLOT (lazy
 * .plt, .plt.sec) or GLOB_DAT (.plt.got) relocation names it.  This is
 * the entry's only name: symbol tables have none for it.
 */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "array.h"
#include "intern.h"
#include "plt.h"

#define MAX_SLOTS (1u << 20) /* relocations and entries kept, at most */
#define JMP_LEN	  6	     /* ff 25 disp32 */

/* A GOT slot and the function its relocation names. */
struct slot {
	uint64_t got;
	const char *name;     /* owned by libelf */
	const char *plt_name; /* "NAME@plt", interned when first used */
};

struct entries {
	struct plt_entry *v;
	size_t n, cap;
};

static int
cmp_slot(const void *a, const void *b)
{
	const struct slot *x = a, *y = b;

	return x->got < y->got ? -1 : x->got > y->got;
}

static int
add_slot(struct slot **v, size_t *n, size_t *cap, uint64_t got,
	 const char *name)
{
	if (ARRAY_GROW(*v, *cap, *n, 64))
		return -1;
	(*v)[(*n)++] = (struct slot){.got = got, .name = name};
	return 0;
}

#define RELOCS_READ 2048 /* relocations read at once */

/* The relocations of one section, in order.  Read from the file in
 * pieces when its descriptor is known, not through libelf's map of it:
 * the dynamic relocations of a large library are megabytes (libLLVM's,
 * 8 MB), of which only the few that fill GOT slots matter here, and each
 * page read through the map stays resident. */
struct relocs {
	Elf *elf;
	Elf_Data *data; /* libelf's, when there is no descriptor */
	int fd;
	uint64_t off;	  /* the section's in the file */
	size_t n, esize;  /* relocations, and bytes of one in the file */
	size_t first, nv; /* the ones in v */
	GElf_Rela v[RELOCS_READ];
	unsigned char
		raw[RELOCS_READ * sizeof(Elf64_Rela)]; /* as in the file */
	unsigned char mem[RELOCS_READ * sizeof(Elf32_Rela)]; /* ELFCLASS32's */
};

/* Relocations from I on into R->v.  False when they cannot be read. */
static bool
relocs_fill(struct relocs *r, size_t i)
{
	Elf_Data src = {
		.d_buf = r->raw, .d_type = ELF_T_RELA, .d_version = EV_CURRENT};
	Elf_Data dst = {.d_buf = r->mem,
			.d_size = sizeof(r->mem),
			.d_version = EV_CURRENT};
	size_t k = r->n - i < RELOCS_READ ? r->n - i : RELOCS_READ, j;
	bool elf32 = gelf_getclass(r->elf) == ELFCLASS32;
	ssize_t got;

	got = pread(r->fd, r->raw, k * r->esize,
		    (off_t)(r->off + i * r->esize));
	if (got < 0 || (size_t)got < r->esize)
		return false;
	k = (size_t)got / r->esize;
	src.d_size = k * r->esize;
	if (!elf32) { /* GElf_Rela is Elf64_Rela */
		dst.d_buf = r->v;
		dst.d_size = sizeof(r->v);
	}
	if (!gelf_xlatetom(r->elf, &dst, &src,
			   elf_getident(r->elf, NULL)[EI_DATA]))
		return false;
	for (j = 0; elf32 && j < k; j++) {
		Elf32_Rela *e = (Elf32_Rela *)r->mem + j;

		r->v[j] = (GElf_Rela){
			.r_offset = e->r_offset,
			.r_info = GELF_R_INFO(ELF32_R_SYM(e->r_info),
					      ELF32_R_TYPE(e->r_info)),
			.r_addend = e->r_addend};
	}
	r->first = i;
	r->nv = k;
	return true;
}

/* Relocation I of R into *OUT; false past the last (or unreadable). */
static bool
relocs_get(struct relocs *r, size_t i, GElf_Rela *out)
{
	if (r->fd < 0)
		return gelf_getrela(r->data, (int)i, out) != NULL;
	if (i >= r->n)
		return false;
	if ((i < r->first || i >= r->first + r->nv) && !relocs_fill(r, i))
		return false;
	*out = r->v[i - r->first];
	return true;
}

/* The relocations of SCN (header SH) and their data REL, from FD when it
 * is not -1.  False when there are none to read. */
static bool
relocs_open(struct relocs *r, Elf *elf, const GElf_Shdr *sh, Elf_Data *rel,
	    int fd)
{
	size_t esize = gelf_fsize(elf, ELF_T_RELA, 1, EV_CURRENT);

	if (!rel || rel->d_type != ELF_T_RELA || esize == 0 ||
	    esize > sizeof(Elf64_Rela))
		return false;
	*r = (struct relocs){.elf = elf,
			     .data = rel,
			     .fd = fd,
			     .off = sh->sh_offset,
			     .esize = esize,
			     .n = rel->d_size / esize};
	return true;
}

/* The GOT slots the PLT entries jump through, sorted. */
struct wanted {
	uint64_t *v;
	size_t n, cap;
};

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

static bool
is_wanted(const struct wanted *w, uint64_t got)
{
	return w->n && bsearch(&got, w->v, w->n, sizeof(*w->v), cmp_u64);
}

/* The slots of the JUMP_SLOT and GLOB_DAT relocations of SCN (a SHT_RELA
 * section whose symbols are in the section it links to) that fill a GOT
 * slot of W: the only ones whose names are looked up. */
static int
relocation_slots(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh, int fd,
		 const struct wanted *w, struct slot **v, size_t *n,
		 size_t *cap)
{
	Elf_Scn *symscn = elf_getscn(elf, sh->sh_link);
	Elf_Data *syms;
	GElf_Shdr symsh;
	GElf_Rela r;
	GElf_Sym s;
	const char *name;
	unsigned long type;
	struct relocs *rel;
	size_t i;
	int ret = 0;

	if (!symscn || !gelf_getshdr(symscn, &symsh) ||
	    (symsh.sh_type != SHT_DYNSYM && symsh.sh_type != SHT_SYMTAB))
		return 0;
	rel = malloc(sizeof(*rel));
	if (!rel)
		return -1;
	syms = elf_getdata(symscn, NULL);
	if (!syms || !relocs_open(rel, elf, sh, elf_getdata(scn, NULL), fd)) {
		free(rel);
		return 0;
	}
	for (i = 0; ret == 0 && *n < MAX_SLOTS && relocs_get(rel, i, &r); i++) {
		type = GELF_R_TYPE(r.r_info);
		if (type != R_X86_64_JUMP_SLOT && type != R_X86_64_GLOB_DAT)
			continue;
		if (!is_wanted(w, r.r_offset))
			continue;
		if (!gelf_getsym(syms, (int)GELF_R_SYM(r.r_info), &s))
			continue;
		name = elf_strptr(elf, symsh.sh_link, s.st_name);
		if (name && name[0] && add_slot(v, n, cap, r.r_offset, name))
			ret = -1;
	}
	free(rel);
	return ret;
}

static int
collect_slots(Elf *elf, int fd, const struct wanted *w, struct slot **v,
	      size_t *n)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	size_t cap = 0;

	*v = NULL;
	*n = 0;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA)
			continue;
		if (relocation_slots(elf, scn, &sh, fd, w, v, n, &cap)) {
			free(*v);
			*v = NULL;
			return -1;
		}
	}
	if (*n > 0)
		qsort(*v, *n, sizeof(**v), cmp_slot);
	return 0;
}

static struct slot *
slot_of(struct slot *v, size_t n, uint64_t got)
{
	struct slot key = {.got = got};

	return n ? bsearch(&key, v, n, sizeof(*v), cmp_slot) : NULL;
}

/* An entry named through slot S: one copy of each name, however many
 * entries jump through slots naming it. */
static int
add_entry(struct entries *e, uint64_t start, uint64_t end, struct slot *s)
{
	char *t;

	if (ARRAY_GROW(e->v, e->cap, e->n, 64))
		return -1;
	if (!s->plt_name) {
		if (asprintf(&t, "%s@plt", s->name) < 0)
			return -1;
		s->plt_name = intern_str(t);
		free(t);
		if (!s->plt_name)
			return -1;
	}
	e->v[e->n++] = (struct plt_entry){
		.start = start, .end = end, .name = intern_hold(s->plt_name)};
	return 0;
}

static void
slots_free(struct slot *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		intern_release(v[i].plt_name);
	free(v);
}

/* The GOT slot the first "jmp *disp32(%rip)" of the SIZE bytes at B (an
 * entry at link-time address ADDR) jumps through, or 0. */
static uint64_t
entry_slot(const unsigned char *b, uint64_t size, uint64_t addr)
{
	uint64_t p;
	uint32_t disp;

	for (p = 0; p + JMP_LEN <= size; p++) {
		if (b[p] != 0xff || b[p + 1] != 0x25)
			continue;
		disp = (uint32_t)b[p + 2] | (uint32_t)b[p + 3] << 8 |
		       (uint32_t)b[p + 4] << 16 | (uint32_t)b[p + 5] << 24;
		return addr + p + JMP_LEN + (uint64_t)(int64_t)(int32_t)disp;
	}
	return 0;
}

/* The data of SCN (header SH) if it is a PLT section to decode, and the
 * size of one entry; NULL when not. */
static const unsigned char *
plt_bytes(Elf_Scn *scn, const GElf_Shdr *sh, uint64_t *size, uint64_t *entry)
{
	Elf_Data *d = elf_getdata(scn, NULL);

	*entry = sh->sh_entsize == 8 || sh->sh_entsize == 16 ? sh->sh_entsize
							     : 16;
	if (sh->sh_type != SHT_PROGBITS || !d || !d->d_buf ||
	    sh->sh_addr > UINT64_MAX - d->d_size) /* a section that wraps */
		return NULL;
	*size = d->d_size;
	return d->d_buf;
}

static int
scan_section(Elf_Scn *scn, const GElf_Shdr *sh, struct slot *slots,
	     size_t nslots, struct entries *e)
{
	uint64_t size, entry, off, addr;
	const unsigned char *b = plt_bytes(scn, sh, &size, &entry);
	struct slot *slot;

	for (off = 0; b && off + entry <= size && e->n < MAX_SLOTS;
	     off += entry) {
		addr = sh->sh_addr + off;
		slot = slot_of(slots, nslots, entry_slot(b + off, entry, addr));
		if (slot && slot->name &&
		    add_entry(e, addr, addr + entry, slot))
			return -1;
	}
	return 0;
}

/* The GOT slots the entries of SCN jump through, into W. */
static int
want_section(Elf_Scn *scn, const GElf_Shdr *sh, struct wanted *w)
{
	uint64_t size, entry, off, addr;
	const unsigned char *b = plt_bytes(scn, sh, &size, &entry);

	for (off = 0; b && off + entry <= size && w->n < MAX_SLOTS;
	     off += entry) {
		addr = sh->sh_addr + off;
		if (ARRAY_GROW(w->v, w->cap, w->n, 64))
			return -1;
		w->v[w->n++] = entry_slot(b + off, entry, addr);
	}
	return 0;
}

static bool
is_plt(const char *name)
{
	return name &&
	       (strcmp(name, ".plt") == 0 || strcmp(name, ".plt.sec") == 0 ||
		strcmp(name, ".plt.got") == 0);
}

int
plt_entries(Elf *elf, int fd, struct plt_entry **out, size_t *n)
{
	struct entries e = {0};
	struct wanted w = {0};
	struct slot *slots = NULL;
	size_t nslots = 0, shstrndx;
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;
	GElf_Shdr sh;
	int ret = 0;

	*out = NULL;
	*n = 0;
	if (!gelf_getehdr(elf, &eh) || eh.e_machine != EM_X86_64 ||
	    elf_getshdrstrndx(elf, &shstrndx) < 0)
		return 0;
	/* the slots the entries jump through first: only the relocations
	 * filling those are named (a library has thousands of others) */
	while (ret == 0 && (scn = elf_nextscn(elf, scn)) != NULL) {
		if (gelf_getshdr(scn, &sh) &&
		    is_plt(elf_strptr(elf, shstrndx, sh.sh_name)))
			ret = want_section(scn, &sh, &w);
	}
	if (ret || w.n == 0) {
		free(w.v);
		return ret;
	}
	qsort(w.v, w.n, sizeof(*w.v), cmp_u64);
	ret = collect_slots(elf, fd, &w, &slots, &nslots);
	free(w.v);
	if (ret)
		return -1;
	while (ret == 0 && nslots > 0 &&
	       (scn = elf_nextscn(elf, scn)) != NULL) {
		if (gelf_getshdr(scn, &sh) &&
		    is_plt(elf_strptr(elf, shstrndx, sh.sh_name)))
			ret = scan_section(scn, &sh, slots, nslots, &e);
	}
	slots_free(slots, nslots);
	if (ret) {
		plt_entries_free(e.v, e.n);
		return -1;
	}
	*out = e.v;
	*n = e.n;
	return 0;
}

void
plt_entries_free(struct plt_entry *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		intern_release(v[i].name);
	free(v);
}

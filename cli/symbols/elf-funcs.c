/* SPDX-License-Identifier: MIT */
/* Function symbols of an executable, looked up by name, with libelf. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "elf-funcs.h"

static int
cmp_name(const void *a, const void *b)
{
	const struct elf_func *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : (x->addr > y->addr) - (x->addr < y->addr);
}

/* The symbol table of type TYPE, or NULL. */
static Elf_Scn *
find_symtab(Elf *elf, GElf_Word type, GElf_Shdr *shdr)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn)) != NULL)
		if (gelf_getshdr(scn, shdr) && shdr->sh_type == type)
			return scn;
	return NULL;
}

static int
read_syms(struct elf_funcs *f, Elf *elf, uint64_t lo, uint64_t hi)
{
	GElf_Shdr shdr;
	Elf_Scn *scn = find_symtab(elf, SHT_SYMTAB, &shdr);
	Elf_Data *data;
	GElf_Sym s;
	size_t i, n;
	const char *name;

	if (!scn)
		scn = find_symtab(elf, SHT_DYNSYM, &shdr);
	data = scn ? elf_getdata(scn, NULL) : NULL;
	if (!data || shdr.sh_entsize == 0)
		return 0;
	n = shdr.sh_size / shdr.sh_entsize;
	f->v = calloc(n ? n : 1, sizeof(*f->v));
	if (!f->v)
		return -1;
	for (i = 1; i < n; i++) {
		if (!gelf_getsym(data, (int)i, &s) ||
		    GELF_ST_TYPE(s.st_info) != STT_FUNC ||
		    s.st_shndx == SHN_UNDEF || s.st_value < lo ||
		    s.st_value >= hi)
			continue;
		name = elf_strptr(elf, shdr.sh_link, s.st_name);
		if (!name || !name[0])
			continue;
		f->v[f->n].name = strdup(name);
		if (!f->v[f->n].name)
			return -1;
		f->v[f->n++].addr = s.st_value;
	}
	qsort(f->v, f->n, sizeof(*f->v), cmp_name);
	return 0;
}

int
elf_funcs_load(struct elf_funcs *f, const char *exe, uint64_t lo, uint64_t hi)
{
	int fd = open(exe, O_RDONLY | O_CLOEXEC), ret;
	Elf *elf;

	memset(f, 0, sizeof(*f));
	if (fd < 0) {
		cli_error("%s: %s", exe, strerror(errno));
		return -1;
	}
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	ret = elf ? read_syms(f, elf, lo, hi) : -1;
	if (ret)
		cli_error("%s: cannot read its symbols: %s", exe,
			  elf ? "out of memory" : elf_errmsg(-1));
	elf_end(elf);
	close(fd);
	if (ret)
		elf_funcs_fini(f);
	return ret;
}

void
elf_funcs_fini(struct elf_funcs *f)
{
	size_t i;

	for (i = 0; i < f->n; i++)
		free(f->v[i].name);
	free(f->v);
	memset(f, 0, sizeof(*f));
}

uint64_t
elf_funcs_find(const struct elf_funcs *f, const char *name)
{
	size_t lo = 0, hi = f->n, mid;
	int c;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		c = strcmp(f->v[mid].name, name);
		if (c == 0) {
			/* the lowest address among equal names */
			while (mid > 0 && strcmp(f->v[mid - 1].name, name) == 0)
				mid--;
			return f->v[mid].addr;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

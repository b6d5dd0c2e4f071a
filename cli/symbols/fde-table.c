/* SPDX-License-Identifier: MIT */
/*
 * Function extents from the frame descriptions of .eh_frame
 * (symbols/fde-table.h).  libdw's dwarf_frame_info gives the range of
 * one CFI row (the piece of a function between two changes of its
 * frame), not the description's: the descriptions are read here with
 * dwarf_next_cfi, each initial location and address range decoded with
 * the pointer encoding its CIE's augmentation names ('R').
 */
#define _GNU_SOURCE
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "fde-table.h"

/* The pointer encoding of the FDEs of CIE, or -1 when not known. */
static int
cie_encoding(const Dwarf_CIE *cie)
{
	const char *a = cie->augmentation;
	const uint8_t *d = cie->augmentation_data;
	const uint8_t *end = d ? d + cie->augmentation_data_size : NULL;

	if (a == NULL || a[0] != 'z')
		return a && a[0] == '\0' ? DW_EH_PE_absptr : -1;
	for (a++; *a; a++) {
		if (d == NULL || d >= end)
			return -1;
		switch (*a) {
		case 'R':
			return *d;
		case 'L':
			d++;
			break;
		case 'P':
			/* a personality routine: its encoding, then it; only
			 * fixed sizes are expected here */
			switch (*d & 0x0f) {
			case DW_EH_PE_udata2:
			case DW_EH_PE_sdata2:
				d += 3;
				break;
			case DW_EH_PE_udata4:
			case DW_EH_PE_sdata4:
				d += 5;
				break;
			case DW_EH_PE_udata8:
			case DW_EH_PE_sdata8:
			case DW_EH_PE_absptr:
				d += 9;
				break;
			default:
				return -1;
			}
			break;
		case 'S':
		case 'B':
			break;
		default:
			return -1;
		}
	}
	return DW_EH_PE_absptr;
}

/* Read a value of FORMAT (the low four bits of an encoding) at *P, below
 * END, into *V; false when it does not fit or is not known. */
static bool
read_value(const uint8_t **p, const uint8_t *end, int format, uint64_t *v)
{
	size_t size;
	int64_t s = 0;

	switch (format) {
	case DW_EH_PE_absptr:
	case DW_EH_PE_udata8:
	case DW_EH_PE_sdata8:
		size = 8;
		break;
	case DW_EH_PE_udata4:
	case DW_EH_PE_sdata4:
		size = 4;
		break;
	case DW_EH_PE_udata2:
	case DW_EH_PE_sdata2:
		size = 2;
		break;
	default:
		return false;
	}
	if ((size_t)(end - *p) < size)
		return false;
	*v = 0;
	for (size_t i = 0; i < size; i++)
		*v |= (uint64_t)(*p)[i] << (8 * i); /* little-endian only */
	if (format == DW_EH_PE_sdata4) {
		s = (int32_t)(uint32_t)*v;
		*v = (uint64_t)s;
	} else if (format == DW_EH_PE_sdata2) {
		s = (int16_t)(uint16_t)*v;
		*v = (uint64_t)s;
	}
	*p += size;
	return true;
}

/* The extent of FDE into *R; false when its encoding is not one read
 * here.  DATA is the section's, at address SECADDR. */
static bool
fde_extent(const Dwarf_FDE *fde, int enc, const Elf_Data *data,
	   uint64_t secaddr, struct fde_range *r)
{
	const uint8_t *base = data->d_buf, *p = fde->start, *end = fde->end;
	uint64_t start, range;

	if (enc < 0 || enc == DW_EH_PE_omit || (enc & DW_EH_PE_indirect))
		return false;
	if (!read_value(&p, end, enc & 0x0f, &start) ||
	    !read_value(&p, end, enc & 0x0f, &range))
		return false;
	switch (enc & 0x70) {
	case DW_EH_PE_absptr:
		break;
	case DW_EH_PE_pcrel:
		start += secaddr + (uint64_t)(fde->start - base);
		break;
	default:
		return false; /* datarel, textrel, funcrel: not in .eh_frame */
	}
	r->start = start;
	r->end = start + range;
	return range > 0 && r->end > start;
}

/* The section named NAME of ELF, or NULL. */
static Elf_Scn *
find_section(Elf *elf, const char *name, GElf_Shdr *sh)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;
	const char *s;

	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return NULL;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		s = gelf_getshdr(scn, sh)
			    ? elf_strptr(elf, shstrndx, sh->sh_name)
			    : NULL;
		if (s && strcmp(s, name) == 0 && sh->sh_type != SHT_NOBITS)
			return scn;
	}
	return NULL;
}

/* CIEs seen, by offset: a file has a few. */
#define CIES_KEPT 16

struct cie_cache {
	Dwarf_Off off[CIES_KEPT];
	int enc[CIES_KEPT];
	size_t n;
};

/* The FDE encoding of the CIE at OFF of DATA. */
static int
encoding_at(struct cie_cache *c, const unsigned char *ident, Elf_Data *data,
	    Dwarf_Off off)
{
	Dwarf_CFI_Entry e;
	Dwarf_Off next;
	int enc;

	for (size_t i = 0; i < c->n; i++)
		if (c->off[i] == off)
			return c->enc[i];
	enc = dwarf_next_cfi(ident, data, true, off, &next, &e) == 0 &&
			      dwarf_cfi_cie_p(&e)
		      ? cie_encoding(&e.cie)
		      : -1;
	if (c->n < CIES_KEPT) {
		c->off[c->n] = off;
		c->enc[c->n++] = enc;
	}
	return enc;
}

static int
cmp_range(const void *a, const void *b)
{
	const struct fde_range *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return (x->end > y->end) - (x->end < y->end);
}

int
fde_table_load(struct fde_table *t, Elf *elf)
{
	const unsigned char *ident =
		(const unsigned char *)elf_getident(elf, NULL);
	struct cie_cache cies = {.n = 0};
	Dwarf_Off off = 0, next;
	Dwarf_CFI_Entry e;
	struct fde_range r;
	size_t cap = 0;
	GElf_Shdr sh;
	Elf_Scn *scn;
	Elf_Data *data;

	memset(t, 0, sizeof(*t));
	scn = ident ? find_section(elf, ".eh_frame", &sh) : NULL;
	data = scn ? elf_getdata(scn, NULL) : NULL;
	if (data == NULL || data->d_buf == NULL ||
	    ident[EI_DATA] != ELFDATA2LSB)
		return 0;
	while (dwarf_next_cfi(ident, data, true, off, &next, &e) == 0) {
		off = next;
		if (dwarf_cfi_cie_p(&e))
			continue;
		if (!fde_extent(
			    &e.fde,
			    encoding_at(&cies, ident, data, e.fde.CIE_pointer),
			    data, sh.sh_addr, &r))
			continue;
		if (ARRAY_GROW(t->v, cap, t->n, 256))
			return -1;
		t->v[t->n++] = r;
	}
	if (t->n > 1)
		qsort(t->v, t->n, sizeof(*t->v), cmp_range);
	return 0;
}

void
fde_table_fini(struct fde_table *t)
{
	free(t->v);
	memset(t, 0, sizeof(*t));
}

long
fde_table_find(const struct fde_table *t, uint64_t addr, long *below)
{
	size_t lo = 0, hi = t->n, mid;
	long i;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (t->v[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	i = (long)lo - 1;
	*below = i;
	/* a description nested in the one before (rare) */
	for (long j = i; j >= 0 && j > i - 4; j--)
		if (addr < t->v[j].end)
			return j;
	return -1;
}

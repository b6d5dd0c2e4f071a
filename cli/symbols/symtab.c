/* SPDX-License-Identifier: MIT */
/*
 * Symbol tables (symbols/symtab.h).  The object is reported to libdwfl
 * at its link-time addresses (symbols/module.c), so a symbol's address
 * less the module's bias is its link-time entry.  Symbols are copied into
 * a table sorted by address, so that buckets can be walked in address
 * order and gaps between symbols identified.
 */
#define _GNU_SOURCE
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#include "symtab.h"

/* Rank of a PLT entry's name: below any symbol's (sym_rank()). */
#define SYM_RANK_PLT 6

static int
sym_rank(const GElf_Sym *s)
{
	int rank;

	switch (GELF_ST_BIND(s->st_info)) {
	case STB_GLOBAL:
		rank = 0;
		break;
	case STB_WEAK:
		rank = 1;
		break;
	default:
		rank = 2;
		break;
	}
	return rank * 2 + (s->st_size == 0);
}

/* What the table is sorted by: address, preference among aliases, name,
 * then the order read.  Of aliases, the name users know is kept, as perf
 * keeps it: global before weak before local (and sized before sizeless),
 * then fewer leading underscores, then the shortest (without a symbol
 * version), then by name: malloc, not __libc_malloc; free, not cfree;
 * clone3, not __GI___clone3. */
struct sym_key {
	uint64_t start;
	uint32_t rank;
	uint32_t i;	/* index in the symbols read */
	uint16_t under; /* leading underscores */
	uint16_t len;	/* length without a version ("@GLIBC_2.2.5") */
};

/* The key of symbol I of V. */
static struct sym_key
sym_key_of(const struct sym *v, size_t i)
{
	const char *name = v[i].name;
	size_t under = strspn(name, "_"), len = strcspn(name, "@");

	return (struct sym_key){
		.start = v[i].start,
		.rank = (uint32_t)v[i].rank,
		.i = (uint32_t)i,
		.under = under > UINT16_MAX ? UINT16_MAX : (uint16_t)under,
		.len = len > UINT16_MAX ? UINT16_MAX : (uint16_t)len};
}

static int
cmp_key(const struct sym_key *x, const struct sym_key *y, const struct sym *v)
{
	int c;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	if (x->under != y->under)
		return x->under < y->under ? -1 : 1;
	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	c = strcmp(v[x->i].name, v[y->i].name);
	return c ? c : (x->i > y->i) - (x->i < y->i);
}

/* Sort the N keys K by start, stably (radix, a byte at a time from the
 * lowest, skipping bytes all keys share); TMP has room for N more. */
static void
sort_by_start(struct sym_key *k, struct sym_key *tmp, size_t n)
{
	struct sym_key *from = k, *to = tmp, *t;
	size_t count[256], i, b, at, c;

	for (unsigned shift = 0; shift < 64; shift += 8) {
		memset(count, 0, sizeof(count));
		for (i = 0; i < n; i++)
			count[(from[i].start >> shift) & 0xff]++;
		if (count[(from[0].start >> shift) & 0xff] == n)
			continue;
		for (b = 0, at = 0; b < 256; b++) {
			c = count[b];
			count[b] = at;
			at += c;
		}
		for (i = 0; i < n; i++)
			to[count[(from[i].start >> shift) & 0xff]++] = from[i];
		t = from;
		from = to;
		to = t;
	}
	if (from != k)
		memcpy(k, from, n * sizeof(*k));
}

/* Sort the N keys K as cmp_key orders them: by start, then each run of
 * one start (aliases: a few at most) by insertion. */
static void
sort_keys(struct sym_key *k, struct sym_key *tmp, size_t n, const struct sym *v)
{
	struct sym_key x;
	size_t i, j;

	sort_by_start(k, tmp, n);
	for (i = 1; i < n; i++) {
		if (k[i].start != k[i - 1].start)
			continue;
		x = k[i];
		for (j = i; j > 0 && k[j - 1].start == x.start &&
			    cmp_key(&k[j - 1], &x, v) > 0;
		     j--)
			k[j] = k[j - 1];
		k[j] = x;
	}
}

static bool
is_function(const GElf_Sym *s, GElf_Word shndx, const char *name)
{
	int type = GELF_ST_TYPE(s->st_info);

	return name && name[0] && shndx != SHN_UNDEF &&
	       shndx != (GElf_Word)-1 && shndx < SHN_LORESERVE &&
	       (type == STT_FUNC || type == STT_GNU_IFUNC);
}

/* End of the section holding a symbol: the limit of a sizeless symbol,
 * so that it does not swallow the next section (e.g. _init the PLT). */
static uint64_t
section_end(Elf *elf, GElf_Word shndx, uint64_t start)
{
	GElf_Shdr shdr;
	Elf_Scn *scn = elf ? elf_getscn(elf, shndx) : NULL;

	if (!scn || !gelf_getshdr(scn, &shdr) || start < shdr.sh_addr ||
	    start >= shdr.sh_addr + shdr.sh_size)
		return UINT64_MAX;
	return shdr.sh_addr + shdr.sh_size;
}

/* Sort T, keeping one symbol per address (the preferred alias), in an
 * array of just those: the keys are sorted, not the symbols (a tenth of
 * the bytes moved).  Returns 0, or -1 when out of memory. */
static int
sort_syms(struct symtab *t)
{
	struct sym_key *k;
	struct sym *v;
	size_t i, n = 0;

	if (t->n == 0) /* t->v may be NULL */
		return 0;
	k = malloc(2 * t->n * sizeof(*k));
	if (!k)
		return -1;
	for (i = 0; i < t->n; i++)
		k[i] = sym_key_of(t->v, i);
	sort_keys(k, k + t->n, t->n, t->v);
	for (i = 0; i < t->n; i++)
		n += i == 0 || k[i].start != k[i - 1].start;
	v = malloc(n * sizeof(*v));
	if (!v) {
		free(k);
		return -1;
	}
	for (i = 0, n = 0; i < t->n; i++)
		if (i == 0 || k[i].start != k[i - 1].start)
			v[n++] = t->v[k[i].i];
	free(k);
	free(t->v);
	t->v = v;
	t->n = n;
	return 0;
}

/* Sizeless symbols extend to the next symbol or the end of their
 * section. */
static void
end_sizeless(struct symtab *t)
{
	uint64_t next;

	for (size_t i = 0; i < t->n; i++) {
		if (!t->v[i].sizeless)
			continue;
		next = i + 1 < t->n ? t->v[i + 1].start : UINT64_MAX;
		if (t->v[i].end > next)
			t->v[i].end = next;
		if (t->v[i].end == UINT64_MAX)
			t->v[i].end = t->v[i].start + 1;
	}
}

/* "NAME@plt" for the PLT entries of the module's file: less preferred than
 * any symbol at the same address. */
static void
add_plt_syms(struct symtab *t)
{
	struct sym *y;
	size_t i;

	for (i = 0; i < t->nplt; i++) {
		y = &t->v[t->n++];
		y->start = t->plt[i].start;
		y->end = t->plt[i].end;
		y->name = t->plt[i].name;
		y->rank = SYM_RANK_PLT;
	}
}

/* The function symbol I of MOD into *Y; false when it is not one. */
static bool
read_sym(Dwfl_Module *mod, Dwarf_Addr bias, int i, struct sym *y)
{
	GElf_Sym s;
	GElf_Addr addr;
	GElf_Word shndx;
	Elf *elf = NULL;
	const char *name =
		dwfl_module_getsym_info(mod, i, &s, &addr, &shndx, &elf, NULL);
	uint64_t lim;

	if (!is_function(&s, shndx, name) || addr < bias)
		return false;
	*y = (struct sym){.start = addr - bias, .name = name};
	y->sizeless = s.st_size == 0;
	y->end = y->start + s.st_size;
	if (y->sizeless) {
		lim = section_end(elf, shndx, s.st_value);
		y->end =
			lim == UINT64_MAX ? lim : y->start + (lim - s.st_value);
	}
	y->rank = sym_rank(&s);
	return true;
}

int
symtab_load(struct symtab *t, Dwfl_Module *mod, Dwarf_Addr bias, int fd)
{
	int i, n = dwfl_module_getsymtab(mod);
	Dwarf_Addr ebias;
	Elf *elf = dwfl_module_getelf(mod, &ebias);

	memset(t, 0, sizeof(*t));
	if (elf && plt_entries(elf, fd, &t->plt, &t->nplt))
		return -1;
	if (n < 0)
		n = 0;
	if (n == 0 && t->nplt == 0)
		return 0;
	t->v = calloc((size_t)n + t->nplt, sizeof(*t->v));
	if (!t->v)
		return -1;
	add_plt_syms(t);
	for (i = 1; i < n; i++)
		if (read_sym(mod, bias, i, &t->v[t->n]))
			t->n++;
	if (sort_syms(t))
		return -1;
	end_sizeless(t);
	return 0;
}

void
symtab_fini(struct symtab *t)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		free(t->v[i].file);
	free(t->v);
	free(t->by_name);
	plt_entries_free(t->plt, t->nplt);
	memset(t, 0, sizeof(*t));
}

/* Index of the last symbol starting at or below ADDR, or -1. */
static long
sym_floor(const struct symtab *t, uint64_t addr)
{
	size_t lo = 0, hi = t->n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (t->v[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (long)lo - 1;
}

struct sym *
symtab_lookup(const struct symtab *t, uint64_t addr, long *gap)
{
	long i = sym_floor(t, addr), j;

	*gap = i;
	/* a few predecessors, for symbols nested inside larger ones */
	for (j = i; j >= 0 && j > i - 8; j--) {
		if (addr < t->v[j].end)
			return &t->v[j];
	}
	return NULL;
}

/* ------------------------------------------------------------ by name */

static int
cmp_by_name(const void *a, const void *b, void *arg)
{
	const struct sym *v = arg, *x = &v[*(const size_t *)a],
			 *y = &v[*(const size_t *)b];
	int c = strcmp(x->name, y->name);

	return c ? c : (x->start > y->start) - (x->start < y->start);
}

/* The first index of BY_NAME whose symbol's name is not below NAME. */
static size_t
name_floor(const struct symtab *t, const char *name)
{
	size_t lo = 0, hi = t->n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (strcmp(t->v[t->by_name[mid]].name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int
symtab_entry(struct symtab *t, const char *name, uint64_t lo, uint64_t hi,
	     uint64_t *entry)
{
	const struct sym *y;
	size_t i;

	*entry = 0;
	if (t->n == 0)
		return 0;
	if (!t->by_name) {
		t->by_name = malloc(t->n * sizeof(*t->by_name));
		if (!t->by_name)
			return -1;
		for (i = 0; i < t->n; i++)
			t->by_name[i] = i;
		qsort_r(t->by_name, t->n, sizeof(*t->by_name), cmp_by_name,
			t->v);
	}
	for (i = name_floor(t, name); i < t->n; i++) {
		y = &t->v[t->by_name[i]];
		if (strcmp(y->name, name) != 0)
			break;
		if (y->start >= lo && y->start < hi) {
			*entry = y->start;
			break;
		}
	}
	return 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * Source lines and inlined functions of sampled addresses.
 *
 * Lines come from the line table (dwfl_module_getsrc), which names the
 * innermost code: a line of an inlined helper is the helper's line.  The
 * inlined function holding an address is the innermost
 * DW_TAG_inlined_subroutine whose ranges contain it, as dwarf_getscopes
 * finds it (elfutils addr2line.c).  dwarf_getscopes walks the unit from
 * its start for every address; with thousands of sampled addresses in
 * units of megabytes that is too slow, so the scope tree of each unit is
 * walked once for all of its addresses, descending only into scopes that
 * hold some of them.
 */
#define _GNU_SOURCE
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "source.h"

/* An address being resolved. */
struct pending {
	uint64_t addr; /* link-time */
	Dwarf_Addr da; /* in its unit's DWARF */
	Dwarf_Die *cu; /* NULL when no unit covers it */
	Dwarf_Off cu_off;
	Dwarf_Die inl; /* innermost inlined subroutine */
	bool has_inl;
	const char *file; /* interned */
	int line;
};

/* ---------------------------------------------------------------- paths */

/* Remove "." and "dir/.." components of absolute PATH, in place. */
static void
normalize_path(char *path)
{
	char *out = path, *in = path, *seg;
	size_t len;

	while (*in) {
		while (*in == '/')
			in++;
		seg = in;
		while (*in && *in != '/')
			in++;
		len = (size_t)(in - seg);
		if (len == 0 || (len == 1 && seg[0] == '.'))
			continue;
		if (len == 2 && seg[0] == '.' && seg[1] == '.') {
			while (out > path && *--out != '/')
				;
			continue;
		}
		*out++ = '/';
		memmove(out, seg, len);
		out += len;
	}
	if (out == path)
		*out++ = '/';
	*out = '\0';
}

/* FILE made absolute with the compilation directory of LINE. */
static char *
absolute_source(Dwfl_Line *line, const char *file)
{
	const char *dir = file[0] == '/' ? NULL : dwfl_line_comp_dir(line);
	char *s;

	if (!dir || dir[0] != '/')
		return strdup(file);
	if (asprintf(&s, "%s/%s", dir, file) < 0)
		return NULL;
	normalize_path(s);
	return s;
}

/* The declaration of the subprogram whose code holds ADDR. */
static void
decl_source(Dwfl_Module *mod, Dwarf_Addr addr, char **file, int *line)
{
	Dwarf_Addr bias;
	Dwarf_Die *cu = dwfl_module_addrdie(mod, addr, &bias);
	Dwarf_Die *scopes = NULL;
	const char *f;
	int i, n;

	if (!cu)
		return;
	n = dwarf_getscopes(cu, addr - bias, &scopes);
	for (i = 0; i < n; i++) {
		if (dwarf_tag(&scopes[i]) != DW_TAG_subprogram)
			continue;
		f = dwarf_decl_file(&scopes[i]);
		if (f && dwarf_decl_line(&scopes[i], line) == 0)
			*file = strdup(f);
		break;
	}
	free(scopes);
}

int
src_line(Dwfl_Module *mod, Dwarf_Addr addr, char **file, int *line)
{
	Dwfl_Line *l = dwfl_module_getsrc(mod, addr);
	const char *f =
		l ? dwfl_lineinfo(l, NULL, line, NULL, NULL, NULL) : NULL;

	*file = NULL;
	if (!f) {
		*line = 0;
		return 0;
	}
	*file = absolute_source(l, f);
	return *file ? 0 : -1;
}

void
src_entry(Dwfl_Module *mod, Dwarf_Addr addr, char **file, int *line)
{
	src_line(mod, addr, file, line);
	if (!*file)
		decl_source(mod, addr, file, line);
	if (!*file)
		*line = 0;
}

/* ---------------------------------------------------------------- warnings */

static void
src_warn(struct src_cache *c, const char *what, const char *why)
{
	if (c->warned)
		return;
	c->warned = true;
	cli_warn(
		"%s: %s (%s); source lines and inlined functions may be missing",
		c->what, what, why);
}

/* Whether libdw accepts every unit of DW (cheap: a header and one DIE
 * each). */
static bool
units_readable(Dwarf *dw)
{
	Dwarf_CU *cu = NULL;
	Dwarf_Die cudie;
	Dwarf_Half version;
	uint8_t type;
	int r;

	while ((r = dwarf_get_units(dw, cu, &cu, &version, &type, &cudie,
				    NULL)) == 0)
		if (dwarf_tag(&cudie) < 0)
			return false;
	return r > 0;
}

/* Check that the module's DWARF, if it has some, can be read. */
static bool
dwarf_usable(struct src_cache *c, Dwfl_Module *mod)
{
	Dwarf_Addr bias;
	Dwarf *dw = dwfl_module_getdwarf(mod, &bias);
	const char *debug = NULL;

	if (dw && (c->checked || units_readable(dw))) {
		c->checked = true;
		return true;
	}
	if (dw) {
		src_warn(c, "DWARF rejected by libdw", dwarf_errmsg(-1));
		return false;
	}
	dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL, NULL, &debug);
	if (debug)
		src_warn(c, "DWARF rejected by libdw", dwfl_errmsg(-1));
	return false;
}

/* ---------------------------------------------------------------- scopes */

static int
cmp_index(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return (x > y) - (x < y);
}

/* Sort the M indices at V and drop repeats; returns how many remain. */
static size_t
sort_unique(size_t *v, size_t m)
{
	size_t k = 0;

	qsort(v, m, sizeof(*v), cmp_index);
	for (size_t i = 0; i < m; i++)
		if (k == 0 || v[k - 1] != v[i])
			v[k++] = v[i];
	return k;
}

/* Those of IDX[0..N) (ascending addresses) inside DIE's ranges, into OUT;
 * returns how many. */
static size_t
in_ranges(const struct pending *p, Dwarf_Die *die, const size_t *idx, size_t n,
	  size_t *out)
{
	Dwarf_Addr base, start, end;
	ptrdiff_t off = 0;
	size_t m = 0, lo, hi, mid, pieces = 0;

	while ((off = dwarf_ranges(die, off, &base, &start, &end)) > 0) {
		lo = 0;
		hi = n;
		while (lo < hi) {
			mid = lo + (hi - lo) / 2;
			if (p[idx[mid]].da < start)
				lo = mid + 1;
			else
				hi = mid;
		}
		pieces += lo < n && p[idx[lo]].da < end;
		for (; lo < n && p[idx[lo]].da < end; lo++) {
			/* ranges that overlap or repeat (damaged or hostile
			 * DWARF) name an index again: OUT holds each once */
			if (m == n)
				m = sort_unique(out, m);
			if (m < n)
				out[m++] = idx[lo];
		}
	}
	if (pieces > 1)
		m = sort_unique(out, m);
	return m;
}

static bool
has_ranges(int tag)
{
	switch (tag) {
	case DW_TAG_subprogram:
	case DW_TAG_inlined_subroutine:
	case DW_TAG_lexical_block:
	case DW_TAG_try_block:
	case DW_TAG_catch_block:
	case DW_TAG_entry_point:
		return true;
	default:
		return false;
	}
}

static int walk_children(struct src_cache *c, struct pending *p,
			 Dwarf_Die *parent, const size_t *idx, size_t n,
			 int depth);

/* One child scope: those of IDX that it holds go deeper. */
static int
walk_scope(struct src_cache *c, struct pending *p, Dwarf_Die *die,
	   const size_t *idx, size_t n, size_t *sub, int depth)
{
	int tag = dwarf_tag(die);
	size_t m, i;

	if (tag == DW_TAG_namespace || tag == DW_TAG_module)
		return walk_children(c, p, die, idx, n, depth + 1);
	if (!has_ranges(tag))
		return 0;
	m = in_ranges(p, die, idx, n, sub);
	if (m == 0)
		return 0;
	for (i = 0; tag == DW_TAG_inlined_subroutine && i < m; i++) {
		p[sub[i]].inl = *die; /* deeper scopes overwrite */
		p[sub[i]].has_inl = true;
	}
	return walk_children(c, p, die, sub, m, depth + 1);
}

static int
walk_children(struct src_cache *c, struct pending *p, Dwarf_Die *parent,
	      const size_t *idx, size_t n, int depth)
{
	Dwarf_Die child;
	size_t *sub;
	int ret = 0, r;

	if (depth > 64)
		return 0; /* nesting no compiler emits: damaged DWARF */
	r = dwarf_child(parent, &child);
	if (r != 0) {
		if (r < 0)
			src_warn(c, "damaged DWARF", dwarf_errmsg(-1));
		return 0;
	}
	sub = malloc(n * sizeof(*sub));
	if (!sub)
		return -1;
	do {
		ret = walk_scope(c, p, &child, idx, n, sub, depth);
	} while (ret == 0 && dwarf_siblingof(&child, &child) == 0);
	free(sub);
	return ret;
}

/* ---------------------------------------------------------------- units */

static int
cmp_pending(const void *a, const void *b)
{
	const struct pending *x = a, *y = b;

	if (x->cu_off != y->cu_off)
		return x->cu_off < y->cu_off ? -1 : 1;
	return (x->addr > y->addr) - (x->addr < y->addr);
}

/* Line and unit of P->addr. */
static int
locate(struct src_cache *c, Dwfl_Module *mod, Dwarf_Addr bias,
       struct pending *p)
{
	Dwarf_Addr a = p->addr + bias, cubias = 0;
	Dwfl_Line *line = dwfl_module_getsrc(mod, a);
	const char *file;
	char *abs;

	p->cu = dwfl_module_addrdie(mod, a, &cubias);
	p->da = a - cubias;
	p->cu_off = p->cu ? dwarf_dieoffset(p->cu) : (Dwarf_Off)-1;
	file = line ? dwfl_lineinfo(line, NULL, &p->line, NULL, NULL, NULL)
		    : NULL;
	if (!file) {
		p->line = 0;
		return 0;
	}
	abs = absolute_source(line, file);
	p->file = abs ? strmap_intern(&c->strings, abs) : NULL;
	free(abs);
	return p->file ? 0 : -1;
}

/* A unit whose line table libdw rejects is worth a warning. */
static void
check_lines(struct src_cache *c, Dwarf_Die *cu)
{
	Dwarf_Lines *lines;
	size_t n;

	if (dwarf_getsrclines(cu, &lines, &n) != 0)
		src_warn(c, "line table rejected by libdw", dwarf_errmsg(-1));
}

/* Walk the unit of P[0..N) once. */
static int
walk_unit(struct src_cache *c, struct pending *p, size_t n)
{
	size_t *idx = malloc(n * sizeof(*idx)), i;
	int ret;

	if (!idx)
		return -1;
	for (i = 0; i < n; i++)
		idx[i] = i;
	check_lines(c, p[0].cu);
	ret = walk_children(c, p, p[0].cu, idx, n, 0);
	free(idx);
	return ret;
}

/* ---------------------------------------------------------------- cache */

static const char *
intern_attr(struct src_cache *c, Dwarf_Die *die, int name)
{
	Dwarf_Attribute a;
	const char *s = dwarf_formstring(dwarf_attr_integrate(die, name, &a));

	return s ? strmap_intern(&c->strings, s) : NULL;
}

/* The inlined function's name (its linkage name, to be demangled, when
 * it has one) and declaration. */
static void
name_inline(struct src_cache *c, struct pending *p, struct addr_src *s)
{
	const char *file;

	s->inl = intern_attr(c, &p->inl, DW_AT_linkage_name);
	if (!s->inl)
		s->inl = intern_attr(c, &p->inl, DW_AT_MIPS_linkage_name);
	if (!s->inl)
		s->inl = intern_attr(c, &p->inl, DW_AT_name);
	if (!s->inl)
		return;
	file = dwarf_decl_file(&p->inl);
	if (file && dwarf_decl_line(&p->inl, &s->inl_line) == 0)
		s->inl_file = strmap_intern(&c->strings, file);
}

static int
cmp_src(const void *a, const void *b)
{
	const struct addr_src *x = a, *y = b;

	return (x->addr > y->addr) - (x->addr < y->addr);
}

/* qsort, unless BASE is sorted already (the usual case here: units and
 * addresses both ascend). */
static void
sort_unless_sorted(void *base, size_t n, size_t size,
		   int (*cmp)(const void *, const void *))
{
	char *b = base;
	size_t i;

	for (i = 1; i < n; i++)
		if (cmp(b + (i - 1) * size, b + i * size) > 0)
			break;
	if (i < n)
		qsort(base, n, size, cmp);
}

/* Merge the NEW entries at the end of C (sorted among themselves) into the
 * sorted ones before them, from the back: the cache is never sorted again
 * whole, so a report by process costs each process its own addresses. */
static void
merge_new(struct src_cache *c, size_t new)
{
	struct addr_src *v = c->v;
	size_t old = c->n - new, i, j, k;

	sort_unless_sorted(v + old, new, sizeof(*v), cmp_src);
	if (old == 0 || new == 0 || v[old - 1].addr <= v[old].addr)
		return;
	/* move the new ones to the spare room at the end, then merge down */
	if (c->cap >= c->n + new) {
		memmove(v + c->n, v + old, new * sizeof(*v));
		i = old;  /* old ones: [0, i) */
		j = new;  /* new ones: v[c->n + (0..j)] */
		k = c->n; /* filled from the back: [k, c->n) */
		while (j > 0) {
			if (i > 0 && v[i - 1].addr > v[c->n + j - 1].addr)
				v[--k] = v[--i];
			else
				v[--k] = v[c->n + --j];
		}
		return;
	}
	qsort(v, c->n, sizeof(*v), cmp_src); /* no spare room: store()
					      * always leaves it */
}

static int
store(struct src_cache *c, struct pending *p, size_t n)
{
	struct addr_src *v, *prev = NULL;
	size_t i;

	if (n == 0)
		return 0;
	/* room for the new entries twice: merge_new's spare */
	if (c->n + 2 * n > c->cap) {
		c->cap = c->n + 2 * n + c->cap;
		v = realloc(c->v, c->cap * sizeof(*v));
		if (!v)
			return -1;
		c->v = v;
	}
	for (i = 0; i < n; i++) {
		v = &c->v[c->n++];
		memset(v, 0, sizeof(*v));
		v->addr = p[i].addr;
		v->file = p[i].file;
		v->line = p[i].line;
		if (p[i].has_inl && prev &&
		    dwarf_dieoffset(&p[i].inl) ==
			    dwarf_dieoffset(&p[i - 1].inl)) {
			v->inl = prev->inl; /* the same inlined instance */
			v->inl_file = prev->inl_file;
			v->inl_line = prev->inl_line;
		} else if (p[i].has_inl) {
			name_inline(c, &p[i], v);
		}
		prev = p[i].has_inl ? v : NULL;
	}
	merge_new(c, n);
	return 0;
}

const struct addr_src *
src_lookup(const struct src_cache *c, uint64_t addr)
{
	size_t lo = 0, hi = c->n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (c->v[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < c->n && c->v[lo].addr == addr ? &c->v[lo] : NULL;
}

/* The addresses C lacks, each located. */
static struct pending *
collect(struct src_cache *c, Dwfl_Module *mod, Dwarf_Addr bias,
	const uint64_t *addrs, size_t n, size_t *np)
{
	struct pending *p = calloc(n ? n : 1, sizeof(*p));
	size_t i, k = 0;

	if (!p)
		return NULL;
	for (i = 0; i < n; i++) {
		if (src_lookup(c, addrs[i]))
			continue;
		p[k].addr = addrs[i];
		p[k].cu_off = (Dwarf_Off)-1;
		if (mod && locate(c, mod, bias, &p[k])) {
			free(p);
			return NULL;
		}
		k++;
	}
	*np = k;
	return p;
}

int
src_resolve(struct src_cache *c, Dwfl_Module *mod, Dwarf_Addr bias,
	    const uint64_t *addrs, size_t n)
{
	struct pending *p;
	size_t np = 0, i, j;
	int ret = 0;

	if (!dwarf_usable(c, mod))
		mod = NULL; /* every address is known to be unknown */
	p = collect(c, mod, bias, addrs, n, &np);
	if (!p)
		return -1;
	sort_unless_sorted(p, np, sizeof(*p), cmp_pending);
	for (i = 0; i < np && ret == 0; i = j) {
		for (j = i + 1; j < np && p[j].cu_off == p[i].cu_off; j++)
			;
		if (p[i].cu)
			ret = walk_unit(c, p + i, j - i);
	}
	if (ret == 0)
		ret = store(c, p, np);
	free(p);
	return ret;
}

void
src_cache_fini(struct src_cache *c)
{
	free(c->v);
	strmap_fini(&c->strings, NULL);
	memset(c, 0, sizeof(*c));
}

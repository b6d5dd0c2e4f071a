/* SPDX-License-Identifier: MIT */
/*
 * Symbolization of sampled link-time addresses with libdwfl.
 *
 * The executable is reported with dwfl_report_elf(base 0, add_p_vaddr
 * true), which places both ET_EXEC and ET_DYN files at their link-time
 * addresses (bias 0); any remaining bias is subtracted anyway.  Symbols
 * come from whatever libdwfl finds: .symtab, else the separate debug
 * file (.gnu_debuglink or the build-id tree), else .dynsym.  They are
 * copied into a sorted table so that buckets can be walked in address
 * order and gaps between symbols identified.
 */
#define _GNU_SOURCE
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cli.h"
#include "debuginfo.h"
#include "demangle.h"
#include "hex.h"
#include "plt.h"
#include "source.h"
#include "symbolize.h"
#include "syscall-site.h"

/* Unknown buckets further apart than this start a new range. */
#define RANGE_GAP 256

/* Rank of a PLT entry's name: below any symbol's (sym_rank()). */
#define SYM_RANK_PLT 6

struct sym {
	uint64_t start, end; /* link-time [start, end) */
	const char *name;    /* owned by libdwfl */
	const char *shown;   /* demangled, or name */
	int rank;	     /* lower is preferred among aliases */
	bool sizeless;
	bool src_done;
	char *file;
	int line;
};

/* One executable (path + build-id), symbolized once. */
struct module {
	struct module *next;
	char *exe;
	char *build_id;
	Dwfl *dwfl;
	Dwfl_Module *mod;
	Dwarf_Addr bias;
	struct sym *syms;
	size_t nsyms;
	struct plt_entry *plt; /* names of the syms in the PLT */
	size_t nplt;
	bool refused;	      /* build-id mismatch without --force */
	bool library;	      /* a mismatch costs only its names */
	struct src_cache src; /* lines and inlined functions, by address */
	struct code_bytes code; /* its code, for system-call sites */
	struct strmap shown;  /* raw name -> shown name */
};

struct symbolizer {
	struct sym_opts opts;
	struct module *modules;
};

const char *
module_display(const char *exe)
{
	const char *slash = strrchr(exe, '/');

	if (exe[0] == '\0')
		return "?";
	return slash && slash[1] ? slash + 1 : exe;
}

/* ---------------------------------------------------------------- symbols */

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

static int
cmp_sym(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank - y->rank;
	return strcmp(x->name, y->name);
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

/* Keep one symbol per address (the preferred alias); sizeless symbols
 * extend to the next symbol or the end of their section. */
static void
sort_syms(struct module *m)
{
	size_t i, n = 0;
	uint64_t next;

	if (m->nsyms == 0) /* m->syms may be NULL */
		return;
	qsort(m->syms, m->nsyms, sizeof(*m->syms), cmp_sym);
	for (i = 0; i < m->nsyms; i++) {
		if (n > 0 && m->syms[n - 1].start == m->syms[i].start)
			continue;
		m->syms[n++] = m->syms[i];
	}
	m->nsyms = n;
	for (i = 0; i < n; i++) {
		if (!m->syms[i].sizeless)
			continue;
		next = i + 1 < n ? m->syms[i + 1].start : UINT64_MAX;
		if (m->syms[i].end > next)
			m->syms[i].end = next;
		if (m->syms[i].end == UINT64_MAX)
			m->syms[i].end = m->syms[i].start + 1;
	}
}

/* "NAME@plt" for the PLT entries of the module's file: less preferred than
 * any symbol at the same address. */
static void
add_plt_syms(struct module *m)
{
	struct sym *y;
	size_t i;

	for (i = 0; i < m->nplt; i++) {
		y = &m->syms[m->nsyms++];
		y->start = m->plt[i].start;
		y->end = m->plt[i].end;
		y->name = m->plt[i].name;
		y->rank = SYM_RANK_PLT;
	}
}

static int
load_syms(struct module *m)
{
	int i, n = dwfl_module_getsymtab(m->mod);
	GElf_Sym s;
	GElf_Addr addr;
	GElf_Word shndx;
	Dwarf_Addr bias;
	Elf *elf = dwfl_module_getelf(m->mod, &bias);
	const char *name;
	struct sym *y;
	uint64_t lim;

	if (elf && plt_entries(elf, &m->plt, &m->nplt))
		return -1;
	if (n < 0)
		n = 0;
	if (n == 0 && m->nplt == 0)
		return 0;
	m->syms = calloc((size_t)n + m->nplt, sizeof(*m->syms));
	if (!m->syms)
		return -1;
	add_plt_syms(m);
	for (i = 1; i < n; i++) {
		elf = NULL;
		name = dwfl_module_getsym_info(m->mod, i, &s, &addr, &shndx,
					       &elf, NULL);
		if (!is_function(&s, shndx, name) || addr < m->bias)
			continue;
		y = &m->syms[m->nsyms++];
		y->start = addr - m->bias;
		y->sizeless = s.st_size == 0;
		y->end = y->start + s.st_size;
		if (y->sizeless) {
			lim = section_end(elf, shndx, s.st_value);
			y->end = lim == UINT64_MAX
					 ? lim
					 : y->start + (lim - s.st_value);
		}
		y->name = name;
		y->rank = sym_rank(&s);
	}
	sort_syms(m);
	return 0;
}

/* Index of the last symbol starting at or below ADDR, or -1. */
static long
sym_floor(const struct module *m, uint64_t addr)
{
	size_t lo = 0, hi = m->nsyms, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (m->syms[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (long)lo - 1;
}

/* The symbol containing ADDR, or NULL; *GAP identifies the space between
 * two symbols that ADDR falls in. */
static struct sym *
sym_lookup(const struct module *m, uint64_t addr, long *gap)
{
	long i = sym_floor(m, addr), j;

	*gap = i;
	/* a few predecessors, for symbols nested inside larger ones */
	for (j = i; j >= 0 && j > i - 8; j--) {
		if (addr < m->syms[j].end)
			return &m->syms[j];
	}
	return NULL;
}

/* File and line of the function's entry. */
static void
sym_source(struct module *m, struct sym *y)
{
	if (y->src_done || !m->mod)
		return;
	y->src_done = true;
	src_entry(m->mod, y->start + m->bias, &y->file, &y->line);
}

/* ---------------------------------------------------------------- modules */

static void
module_free(struct module *m)
{
	size_t i;

	for (i = 0; i < m->nsyms; i++)
		free(m->syms[i].file);
	free(m->syms);
	plt_entries_free(m->plt, m->nplt);
	src_cache_fini(&m->src);
	code_bytes_fini(&m->code);
	strmap_fini(&m->shown, free);
	if (m->dwfl)
		dwfl_end(m->dwfl);
	free(m->exe);
	free(m->build_id);
	free(m);
}

static char *
hex_build_id(Dwfl_Module *mod)
{
	const unsigned char *bits;
	GElf_Addr vaddr;
	int len = dwfl_module_build_id(mod, &bits, &vaddr);

	return len > 0 ? hex_dup(bits, (size_t)len) : strdup("none");
}

/* Compare the binary's build-id with the recorded one.  Returns -1 when
 * the module must not be used. */
static int
check_build_id(struct module *m, bool force)
{
	char *have;
	int ret = 0;

	if (m->build_id[0] == '\0')
		return 0; /* nothing recorded, nothing to compare */
	have = hex_build_id(m->mod);
	if (!have)
		return -1;
	if (strcmp(have, m->build_id) != 0) {
		if (m->library && !force) {
			cli_warn(
				"%s: build-id mismatch: profile recorded %s, file has %s (updated since the run?); reporting its addresses only (--force uses the file anyway)",
				m->exe, m->build_id, have);
			ret = -1;
		} else if (force) {
			cli_warn(
				"%s: build-id mismatch (profile %s, binary %s); --force: names may be wrong",
				m->exe, m->build_id, have);
		} else {
			cli_error(
				"%s: build-id mismatch: profile recorded %s, binary has %s (rebuilt since the run? --force reports anyway)",
				m->exe, m->build_id, have);
			m->refused = true;
			ret = -1;
		}
	}
	free(have);
	return ret;
}

/* Open the executable; a path the kernel marked " (deleted)" is tried
 * without the mark (the build-id check tells whether it is the same). */
static int
open_exe(const char *exe)
{
	static const char mark[] = " (deleted)";
	size_t len = strlen(exe), mlen = sizeof(mark) - 1;
	int fd = open(exe, O_RDONLY | O_CLOEXEC), err = errno;
	char *plain;

	if (fd >= 0 || len <= mlen || strcmp(exe + len - mlen, mark) != 0)
		return fd;
	plain = strndup(exe, len - mlen);
	fd = plain ? open(plain, O_RDONLY | O_CLOEXEC) : -1;
	free(plain);
	if (fd < 0)
		errno = err;
	return fd;
}

/* A descriptor of an in-memory ELF IMAGE (the vdso's), or -1. */
static int
open_image(const uint8_t *image, size_t size)
{
	int fd = memfd_create("profrun-image", MFD_CLOEXEC);

	if (fd < 0)
		return -1;
	if (write(fd, image, size) != (ssize_t)size) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Open the object (its file, or the image O carries) with libdwfl.
 * Failing that, the module keeps no dwfl and its samples are reported by
 * address. */
static void
module_open(struct module *m, const struct sym_object *o)
{
	int fd = o->image ? open_image(o->image, o->image_size)
			  : open_exe(m->exe);

	if (fd < 0) {
		cli_warn("%s: %s; reporting addresses only", m->exe,
			 strerror(errno));
		return;
	}
	m->dwfl = dwfl_begin(&debuginfo_callbacks);
	if (m->dwfl) {
		dwfl_report_begin(m->dwfl);
		m->mod = dwfl_report_elf(m->dwfl, module_display(m->exe),
					 m->exe, fd, 0, true);
		dwfl_report_end(m->dwfl, NULL, NULL);
	}
	if (!m->mod) {
		cli_warn("%s: %s; reporting addresses only", m->exe,
			 dwfl_errmsg(-1));
		close(fd);
		return;
	}
	dwfl_module_getelf(m->mod, &m->bias);
}

/* demangle() of RAW, keeping a "@plt" suffix (a PLT entry's name). */
static char *
demangle_suffixed(const char *raw)
{
	static const char suffix[] = "@plt";
	size_t len = strlen(raw), k = sizeof(suffix) - 1;
	char *base, *d, *s = NULL;

	if (len <= k || strcmp(raw + len - k, suffix) != 0)
		return demangle(raw);
	base = strndup(raw, len - k);
	d = base ? demangle(base) : NULL;
	if (d && asprintf(&s, "%s%s", d, suffix) < 0)
		s = NULL;
	free(d);
	free(base);
	return s;
}

/* The shown name of RAW: demangled when asked and possible. */
static const char *
shown_name(struct module *m, const char *raw, bool demangled)
{
	struct strmap_slot *slot;
	char *s;

	if (!demangled)
		return raw;
	slot = strmap_get(&m->shown, raw);
	if (!slot)
		return NULL;
	if (!slot->value) {
		s = demangle_suffixed(raw);
		slot->value = s ? s : strdup(raw);
	}
	return slot->value;
}

static int
name_syms(struct module *m, bool demangled)
{
	size_t i;

	for (i = 0; i < m->nsyms; i++) {
		m->syms[i].shown = shown_name(m, m->syms[i].name, demangled);
		if (!m->syms[i].shown)
			return -1;
	}
	return 0;
}

/* The name warnings give the module's debug information: the debug file
 * when there is one, else the executable. */
static const char *
module_debug_file(struct module *m)
{
	const char *main = NULL, *debug = NULL;

	dwfl_module_info(m->mod, NULL, NULL, NULL, NULL, NULL, &main, &debug);
	return debug ? debug : m->exe;
}

static struct module *
module_new(const struct sym_object *obj, const struct sym_opts *o)
{
	struct module *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->exe = strdup(obj->name);
	m->build_id = strdup(obj->build_id);
	m->library = obj->library;
	if (!m->exe || !m->build_id) {
		module_free(m);
		return NULL;
	}
	if (m->exe[0] == '\0') {
		cli_warn(
			"%s: executable path not recorded; reporting addresses only",
			obj->what);
		return m;
	}
	module_open(m, obj);
	if (!m->mod || check_build_id(m, o->force))
		return m;
	if (code_bytes_load(&m->code, m->mod)) {
		module_free(m);
		return NULL;
	}
	if (load_syms(m) || name_syms(m, o->demangle)) {
		module_free(m);
		return NULL;
	}
	if (m->nsyms == 0)
		cli_warn(
			"%s: no function symbols (stripped, no debug info found); reporting addresses only",
			m->exe);
	m->src.what = module_debug_file(m);
	return m;
}

static struct module *
module_get(struct symbolizer *sz, const struct sym_object *o)
{
	struct module *m;

	for (m = sz->modules; m; m = m->next) {
		if (strcmp(m->exe, o->name) == 0 &&
		    strcmp(m->build_id, o->build_id) == 0)
			return m;
	}
	m = module_new(o, &sz->opts);
	if (!m)
		return NULL;
	m->next = sz->modules;
	sz->modules = m;
	return m;
}

struct symbolizer *
symbolizer_new(const struct sym_opts *opts)
{
	struct symbolizer *sz = calloc(1, sizeof(*sz));

	if (!sz)
		return NULL;
	sz->opts = *opts;
	if (debuginfo_set_dirs(opts->debug_dirs, opts->ndebug_dirs)) {
		free(sz);
		return NULL;
	}
	return sz;
}

void
symbolizer_free(struct symbolizer *sz)
{
	struct module *m, *next;

	if (!sz)
		return;
	for (m = sz->modules; m; m = next) {
		next = m->next;
		module_free(m);
	}
	free(sz);
}

/* ---------------------------------------------------------------- walking */

/* An open run of samples in no symbol. */
struct range {
	bool open;
	long gap;
	uint64_t start, end, samples, kernel;
};

struct walk {
	const struct sym_opts *o;
	struct module *m;
	struct func_list *out;
	struct func_list *lines; /* NULL unless lines are resolved */
	struct sym *cur;	 /* symbol of the entry being filled */
	struct range range;
	const char *display;
	char *unknown; /* "[module]": the function of lines in no symbol */
	uint64_t kernel; /* of the sample being added, taken in the kernel */
};

static int
flush_range(struct walk *w)
{
	struct func f = {0};
	char *name;
	int ret;

	if (!w->range.open)
		return 0;
	w->range.open = false;
	if (asprintf(&name, "[%s 0x%" PRIx64 "-0x%" PRIx64 "]", w->display,
		     w->range.start, w->range.end) < 0)
		return -1;
	f.module = w->m->exe;
	f.name = f.symbol = name;
	f.addr = w->range.start;
	f.samples = w->range.samples;
	f.kernel = w->range.kernel;
	ret = func_list_add(w->out, &f);
	free(name);
	return ret;
}

static int
add_unknown(struct walk *w, uint64_t addr, uint64_t end, long gap,
	    uint64_t count)
{
	struct range *r = &w->range;

	w->cur = NULL;
	if (r->open && (r->gap != gap || addr - r->end > RANGE_GAP))
		if (flush_range(w))
			return -1;
	if (!r->open) {
		r->open = true;
		r->gap = gap;
		r->start = addr;
		r->samples = 0;
		r->kernel = 0;
	}
	r->end = end;
	r->samples += count;
	r->kernel += w->kernel;
	return 0;
}

static int
add_known(struct walk *w, struct sym *y, uint64_t count)
{
	struct func f = {0};

	if (flush_range(w))
		return -1;
	if (w->cur == y) {
		w->out->v[w->out->n - 1].samples += count;
		w->out->v[w->out->n - 1].kernel += w->kernel;
		return 0;
	}
	sym_source(w->m, y);
	f.module = w->m->exe;
	f.name = (char *)y->shown;
	f.symbol = (char *)y->name;
	f.file = y->file;
	f.line = y->line;
	f.addr = y->start;
	f.samples = count;
	f.kernel = w->kernel;
	w->cur = y;
	return func_list_add(w->out, &f);
}

static bool
same_str(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

/* Whether the last entry of L is F's (consecutive samples of one line
 * become one entry before any sorting). */
static bool
same_as_last(const struct func_list *l, const struct func *f)
{
	const struct func *g = l->n ? &l->v[l->n - 1] : NULL;

	return g && g->line == f->line && same_str(g->file, f->file) &&
	       same_str(g->caller, f->caller) && strcmp(g->name, f->name) == 0;
}

/* With --inline: the samples of code inlined into Y go to an entry
 * "helper [inlined into Y]". */
static int
add_inlined(struct walk *w, struct sym *y, const struct addr_src *a,
	    uint64_t count)
{
	struct func f = {0};
	const char *inl = shown_name(w->m, a->inl, w->o->demangle);
	char *name;
	int ret;

	if (!inl || asprintf(&name, "%s [inlined into %s]", inl, y->shown) < 0)
		return -1;
	w->cur = NULL;
	f.caller = (char *)y->shown;
	f.name = name;
	f.file = (char *)a->inl_file;
	f.line = a->inl_line;
	if (same_as_last(w->out, &f)) {
		w->out->v[w->out->n - 1].samples += count;
		w->out->v[w->out->n - 1].kernel += w->kernel;
		free(name);
		return 0;
	}
	f.module = w->m->exe;
	f.name = name;
	f.symbol = (char *)a->inl;
	f.caller = (char *)y->shown;
	f.file = (char *)a->inl_file;
	f.line = a->inl_line;
	f.addr = a->addr;
	f.samples = count;
	f.kernel = w->kernel;
	ret = func_list_add(w->out, &f);
	free(name);
	return ret;
}

/* The line of one sample, with the innermost function it belongs to. */
static int
add_line(struct walk *w, struct sym *y, const struct addr_src *a, uint64_t addr,
	 uint64_t count)
{
	struct func f = {0};

	f.module = w->m->exe;
	f.caller = y ? (char *)y->shown : w->unknown;
	f.name = f.caller;
	f.symbol = y ? (char *)y->name : w->unknown;
	if (a && a->inl) {
		f.name = (char *)shown_name(w->m, a->inl, w->o->demangle);
		f.symbol = (char *)a->inl;
		if (!f.name)
			return -1;
	}
	f.file = a ? (char *)a->file : NULL;
	f.line = a && a->file ? a->line : 0;
	f.addr = addr;
	f.samples = count;
	f.kernel = w->kernel;
	if (same_as_last(w->lines, &f)) {
		w->lines->v[w->lines->n - 1].samples += count;
		w->lines->v[w->lines->n - 1].kernel += w->kernel;
		return 0;
	}
	return func_list_add(w->lines, &f);
}

static int
add_sample(struct walk *w, struct sym *y, const struct profile_sample *s,
	   uint64_t end, long gap)
{
	const struct addr_src *a = NULL;

	if (w->o->inlines || w->lines)
		a = src_lookup(&w->m->src, s->addr);
	if (w->lines && add_line(w, y, a, s->addr, s->count))
		return -1;
	if (!y)
		return add_unknown(w, s->addr, end, gap, s->count);
	if (w->o->inlines && a && a->inl) {
		if (flush_range(w))
			return -1;
		return add_inlined(w, y, a, s->count);
	}
	return add_known(w, y, s->count);
}

/* Lines and inlined functions of every sampled address, when asked. */
static int
resolve_sources(struct walk *w, const struct profile_sample *s, size_t n)
{
	uint64_t *addrs;
	size_t i;
	int ret;

	if (!(w->o->inlines || w->lines) || !w->m->mod)
		return 0;
	addrs = malloc(n * sizeof(*addrs));
	if (!addrs)
		return -1;
	for (i = 0; i < n; i++)
		addrs[i] = s[i].addr;
	ret = src_resolve(&w->m->src, w->m->mod, w->m->bias, addrs, n);
	free(addrs);
	return ret;
}

static int
walk_samples(struct walk *w, uint64_t bs, const struct profile_sample *s,
	     size_t n)
{
	struct sym *y = NULL;
	long gap = -1;
	size_t i;

	if (resolve_sources(w, s, n))
		return -1;
	if (asprintf(&w->unknown, "[%s]", w->display) < 0) {
		w->unknown = NULL;
		return -1;
	}
	for (i = 0; i < n; i++) {
		/* reuse the previous symbol while the address stays in it */
		if (!(y && s[i].addr >= y->start && s[i].addr < y->end))
			y = sym_lookup(w->m, s[i].addr, &gap);
		w->kernel = code_after_syscall(&w->m->code, s[i].addr, bs)
				    ? s[i].count
				    : 0;
		if (add_sample(w, y, &s[i], s[i].addr + bs, gap))
			return -1;
	}
	return flush_range(w);
}

/* The main executable of P, as an object to symbolize. */
static struct sym_object
main_object(const struct profile *p)
{
	return (struct sym_object){.name = p->exe,
				   .build_id = p->build_id,
				   .what = p->path,
				   .granule = p->hdr.bucket_size};
}

int
symbolize_object(struct symbolizer *sz, const struct sym_object *o,
		 const struct profile_sample *s, size_t n,
		 struct func_list *funcs, struct func_list *lines)
{
	struct walk w = {.o = &sz->opts, .out = funcs};
	int ret;

	if (n == 0)
		return 0; /* no binary needed, and no warnings about it */
	w.m = module_get(sz, o);
	if (!w.m) {
		cli_error("%s: out of memory", o->name);
		return -1;
	}
	if (w.m->refused)
		return -1;
	w.lines = sz->opts.lines ? lines : NULL;
	w.display = module_display(w.m->exe);
	ret = walk_samples(&w, o->granule, s, n);
	free(w.unknown);
	if (ret)
		cli_error("%s: out of memory", o->name);
	return ret;
}

int
symbolize(struct symbolizer *sz, const struct profile *p,
	  const struct profile_sample *s, size_t n, struct func_list *funcs,
	  struct func_list *lines)
{
	struct sym_object o = main_object(p);

	return symbolize_object(sz, &o, s, n, funcs, lines);
}

int
symbolize_source(struct symbolizer *sz, const struct profile *p, uint64_t addr,
		 char **file, int *line)
{
	struct sym_object o = main_object(p);
	struct module *m = module_get(sz, &o);

	*file = NULL;
	*line = 0;
	if (!m)
		return -1;
	if (m->refused || !m->mod)
		return 0;
	return src_line(m->mod, addr + m->bias, file, line);
}

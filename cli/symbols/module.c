/* SPDX-License-Identifier: MIT */
/*
 * The objects a symbolizer has opened, each once per (path, build-id):
 * the file (or the in-memory image, for the vdso) reported to libdwfl at
 * its link-time addresses with dwfl_report_elf(base 0, add_p_vaddr true),
 * which places both ET_EXEC and ET_DYN files there (bias 0; any remaining
 * bias is subtracted anyway); the build-id recorded at run time checked;
 * its symbol table; the shown (demangled) name of a symbol is made when
 * the symbol is first used.
 */
#define _GNU_SOURCE
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cli.h"
#include "file.h"
#include "debuginfo.h"
#include "demangle.h"
#include "hex.h"
#include "module.h"

const char *
module_display(const char *exe)
{
	const char *slash = strrchr(exe, '/');

	if (exe[0] == '\0')
		return "?";
	return slash && slash[1] ? slash + 1 : exe;
}

/* Give back what opening M took: its file, symbols and names.  The
 * module stays known (and refused, when it was). */
static void
module_close(struct module *m)
{
	bool warned = m->src.warned;

	symtab_fini(&m->syms);
	src_cache_fini(&m->src);
	m->src.warned = warned; /* its DWARF is warned about once */
	eh_frame_view_close(&m->eh);
	m->eh_tried = false;
	fde_table_fini(&m->fdes);
	m->fdes_tried = false;
	code_bytes_fini(&m->code);
	strmap_fini(&m->shown, free);
	if (m->dwfl)
		dwfl_end(m->dwfl);
	m->dwfl = NULL;
	m->mod = NULL;
	m->bias = 0;
	m->loaded = false;
}

static void
module_free(struct module *m)
{
	module_close(m);
	free(m->unknown_name);
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
	int fd = cli_open_target(exe), err = errno;
	char *plain;

	if (fd >= 0 || len <= mlen || strcmp(exe + len - mlen, mark) != 0)
		return fd;
	plain = strndup(exe, len - mlen);
	fd = plain ? cli_open_target(plain) : -1;
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
 * address.  Returns another descriptor of the file, for reading its code,
 * or -1. */
static int
module_open(struct module *m, const struct sym_object *o)
{
	int fd = o->image ? open_image(o->image, o->image_size)
			  : open_exe(m->exe);
	int code_fd;

	if (fd < 0) {
		cli_warn("%s: %s; reporting addresses only", m->exe,
			 strerror(errno));
		return -1;
	}
	code_fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
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
		if (code_fd >= 0)
			close(code_fd);
		return -1;
	}
	dwfl_module_getelf(m->mod, &m->bias);
	return code_fd;
}

/* RAW without a symbol version ("pthread_sigmask@@GLIBC_2.32" ->
 * "pthread_sigmask"; "@plt", ours, stays), allocated; NULL when it has
 * none or out of memory. */
static char *
unversioned(const char *raw)
{
	const char *at = strchr(raw, '@');

	if (at == NULL || at == raw || strcmp(at, "@plt") == 0)
		return NULL;
	return strndup(raw, (size_t)(at - raw));
}

/* demangle() of RAW, keeping a "@plt" suffix (a PLT entry's name) and
 * dropping a symbol version. */
static char *
demangle_suffixed(const char *raw)
{
	static const char suffix[] = "@plt";
	size_t len = strlen(raw), k = sizeof(suffix) - 1;
	char *base, *d, *s = NULL, *plain = unversioned(raw);

	if (plain) {
		d = demangle(plain);
		if (d == NULL)
			return plain;
		free(plain);
		return d;
	}
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
const char *
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

const char *
sym_shown(struct module *m, struct sym *y)
{
	if (!y->shown)
		y->shown = shown_name(m, y->name, m->demangle);
	return y->shown;
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
	m->code.fd = -1;
	m->exe = strdup(obj->name);
	m->build_id = strdup(obj->build_id);
	m->library = obj->library;
	m->demangle = o->demangle;
	if (m->exe &&
	    asprintf(&m->unknown_name, "[%s]", module_display(m->exe)) < 0)
		m->unknown_name = NULL;
	if (!m->exe || !m->build_id || !m->unknown_name) {
		module_free(m);
		return NULL;
	}
	return m;
}

/* Open M's file, check it and read its symbols.  Returns 0, or -1 when
 * out of memory. */
static int
module_load(struct module *m, const struct sym_object *obj,
	    const struct sym_opts *o)
{
	int code_fd;

	m->loaded = true;
	if (m->exe[0] == '\0') {
		cli_warn(
			"%s: executable path not recorded; reporting addresses only",
			obj->what);
		return 0;
	}
	code_fd = module_open(m, obj);
	if (!m->mod || check_build_id(m, o->force)) {
		if (code_fd >= 0)
			close(code_fd);
		return 0;
	}
	if (code_bytes_load(&m->code, m->mod, code_fd) ||
	    symtab_load(&m->syms, m->mod, m->bias, m->code.fd)) {
		module_close(m);
		return -1;
	}
	/* no symbols: the text report says how much that costs, once
	 * (formats/text-names.c), rather than a warning per object */
	m->src.what = module_debug_file(m);
	return 0;
}

/* The module of O, or NULL when there is none yet. */
static struct module *
module_lookup(struct symbolizer *sz, const struct sym_object *o)
{
	struct module *m;

	for (m = sz->modules; m; m = m->next)
		if (strcmp(m->exe, o->name) == 0 &&
		    strcmp(m->build_id, o->build_id) == 0)
			return m;
	return NULL;
}

/* The module of O, added (not opened) when new; NULL when out of
 * memory. */
static struct module *
module_find(struct symbolizer *sz, const struct sym_object *o)
{
	struct module *m = module_lookup(sz, o);

	if (m)
		return m;
	m = module_new(o, &sz->opts);
	if (!m)
		return NULL;
	m->next = sz->modules;
	sz->modules = m;
	return m;
}

struct module *
module_get(struct symbolizer *sz, const struct sym_object *o)
{
	struct module *m = module_find(sz, o);

	if (m && !m->loaded && module_load(m, o, &sz->opts))
		return NULL;
	return m;
}

int
symbolizer_plan(struct symbolizer *sz, const struct sym_object *o)
{
	struct module *m = module_find(sz, o);

	if (!m)
		return -1;
	m->walks++;
	return 0;
}

void
module_walked(struct symbolizer *sz, const struct sym_object *o)
{
	struct module *m = module_lookup(sz, o);

	if (m && m->walks > 0 && --m->walks == 0 && !m->refused) {
		module_close(m);
#ifdef __GLIBC__
		/* the heap's free pages back too: the next module's peak
		 * does not stand on this one's */
		malloc_trim(0);
#endif
	}
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

/* M's frame descriptions: libdwfl's, or a view of them libdw searches
 * by their table when it would not (symbols/eh-frame.c). */
static Dwarf_CFI *
module_cfi(struct module *m, Dwarf_Addr *bias)
{
	Dwarf_Addr ebias;
	Elf *elf;

	if (!m->eh_tried) {
		m->eh_tried = true;
		elf = dwfl_module_getelf(m->mod, &ebias);
		if (elf)
			eh_frame_view_open(&m->eh, elf, m->code.fd);
	}
	if (m->eh.cfi) {
		*bias = m->bias; /* the view is at link-time addresses */
		return m->eh.cfi;
	}
	return dwfl_module_eh_cfi(m->mod, bias);
}

/* The extent of ADDR's CFI row (the piece of a function between two
 * changes of its frame), for an object whose .eh_frame the table could
 * not read. */
static bool
row_extent(struct module *m, uint64_t addr, uint64_t *lo, uint64_t *hi)
{
	Dwarf_Addr cbias, start, end;
	Dwarf_CFI *cfi;
	Dwarf_Frame *frame;
	bool ok;

	cfi = module_cfi(m, &cbias);
	if (cfi == NULL || addr + m->bias < cbias)
		return false;
	if (dwarf_cfi_addrframe(cfi, addr + m->bias - cbias, &frame) != 0)
		return false;
	ok = dwarf_frame_info(frame, &start, &end, NULL) >= 0 && end > start;
	free(frame);
	if (!ok || start + cbias < m->bias)
		return false;
	*lo = start + cbias - m->bias;
	*hi = end + cbias - m->bias;
	return *lo <= addr && addr < *hi;
}

/* M's frame descriptions, read on first use; NULL when it has none. */
static const struct fde_table *
module_fdes(struct module *m)
{
	Dwarf_Addr ebias;
	Elf *elf;

	if (!m->fdes_tried) {
		m->fdes_tried = true;
		elf = dwfl_module_getelf(m->mod, &ebias);
		if (elf && fde_table_load(&m->fdes, elf))
			fde_table_fini(&m->fdes); /* out of memory: rows */
	}
	return m->fdes.n > 0 ? &m->fdes : NULL;
}

bool
module_code_extent(struct module *m, uint64_t addr, uint64_t *lo, uint64_t *hi)
{
	const struct fde_table *t;
	const struct sym *v;
	long i, below, gap;

	if (m->mod == NULL)
		return false;
	t = module_fdes(m);
	if (t == NULL)
		return row_extent(m, addr, lo, hi);
	i = fde_table_find(t, addr, &below);
	if (i >= 0) {
		*lo = t->v[i].start;
		*hi = t->v[i].end;
		return true;
	}
	if (below < 0 || (size_t)below + 1 >= t->n)
		return false; /* before the first or after the last */
	/* a gap between two descriptions, less the symbols around it */
	*lo = t->v[below].end;
	*hi = t->v[below + 1].start;
	symtab_lookup(&m->syms, addr, &gap);
	v = m->syms.v;
	if (gap >= 0 && v[gap].end <= addr && v[gap].end > *lo)
		*lo = v[gap].end;
	if (gap + 1 < (long)m->syms.n && v[gap + 1].start < *hi)
		*hi = v[gap + 1].start;
	return *lo <= addr && addr < *hi;
}

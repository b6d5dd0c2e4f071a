/* SPDX-License-Identifier: MIT */
/*
 * The objects loaded in the process (include/profrun/format.h, struct
 * profrun_module): each one's path, build-id, load bias and executable
 * range, recorded in the member file so that the PCs the handler puts in
 * the PC table can be mapped to their object later.
 *
 * A scan walks the link maps (dl_iterate_phdr) and compares them with
 * the live records: a new object gets a record of the next generation,
 * an object gone gets that generation as its end.  The handler only
 * reads header.mod_generation, which a scan stores after its records.
 * After the link maps, a scan reads /proc/self/maps (maps.c): an
 * executable mapping of a file outside every object's span (node maps its
 * embedded builtins a second time, from its own file at another offset)
 * gets a record of its own, flagged PROFRUN_MODULE_F_MAPPING, with the
 * load bias that maps it to the file's link-time addresses; executable
 * memory no ELF file backs is code a runtime compiled (jit.c).
 * Scans run outside the handler (at start, around dlopen and dlclose,
 * before fork, at exit) and never at the same time: a scan asked for
 * while another runs is left to that one, which goes round once more.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#include "shim.h"
#include "sample/sample.h"
#include "member/member.h"
#include "sys.h"

#define VDSO_NAME "linux-vdso.so.1"

static struct {
	struct profrun_header *hdr; /* the member file, NULL when none */
	uint32_t str_used;	    /* bytes of the module strings in use */
	int busy;		    /* a scan is running */
	int pending;		    /* a scan was asked for */
	bool seen
		[PROFRUN_MODULE_SLOTS]; /* during a scan: record still loaded */
} ms;

/* One object found by a scan. */
struct object {
	struct profrun_module rec; /* path_off and generations not yet set */
	const char *path;
};

struct scan {
	const char *main_exe;
	pid_t pid;    /* getpid(), asked once */
	uint32_t gen; /* generation the scan's changes get */
	bool changed;
	char buf[PATH_MAX];
};

static struct profrun_module *
records(struct profrun_header *h)
{
	return (struct profrun_module *)((char *)h + h->modules_off);
}

/* ---------------------------------------------------------------- vdso */
/* The vdso's ELF header, or NULL.  Async-signal-safe. */
static const ElfW(Ehdr) * vdso_ehdr(void)
{
	const ElfW(Ehdr) *e = (const ElfW(Ehdr) *)getauxval(AT_SYSINFO_EHDR);

	if (e == NULL || memcmp(e->e_ident, ELFMAG, SELFMAG) != 0)
		return NULL;
	return e;
}

/* Async-signal-safe. */
uint32_t
modules_vdso_size(void)
{
	const ElfW(Ehdr) *e = vdso_ehdr();
	const ElfW(Phdr) * ph;
	uint64_t end;

	if (e == NULL || e->e_phentsize != sizeof(ElfW(Phdr)))
		return 0;
	end = e->e_shoff + (uint64_t)e->e_shnum * e->e_shentsize;
	ph = (const ElfW(Phdr) *)((const char *)e + e->e_phoff);
	for (int i = 0; i < e->e_phnum; i++)
		if (ph[i].p_type == PT_LOAD &&
		    ph[i].p_offset + ph[i].p_filesz > end)
			end = ph[i].p_offset + ph[i].p_filesz;
	return end <= PROFRUN_VDSO_MAX ? (uint32_t)end : 0;
}

static uint32_t vdso_claimed; /* the image is copied into this member */

/* Copy the vdso's image into the room H keeps for it, once: called by the
 * handler of the first sample in the vdso (no library call: the copy is
 * by hand), the size published last, so a reader sees no image or all of
 * it.  Async-signal-safe, safe against concurrent callers. */
void
modules_copy_vdso(struct profrun_header *h, const void *e, uint32_t room)
{
	volatile char *dst;
	const volatile char *src;
	uint32_t expect = 0;

	if (e == NULL || room == 0 ||
	    !reserve_room((char *)h + h->vdso_off, room, false) ||
	    !__atomic_compare_exchange_n(&vdso_claimed, &expect, 1, 0,
					 __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
		return;
	dst = (volatile char *)h + h->vdso_off;
	src = (const volatile char *)e;
	for (uint32_t i = 0; i < room; i++)
		dst[i] = src[i];
	__atomic_store_n(&h->vdso_size, room, __ATOMIC_RELEASE);
}

/* Async-signal-safe. */
void
modules_attach(struct profrun_header *h)
{
	ms.hdr = h;
	ms.str_used = 0;
	vdso_claimed = 0;
}

/* Bytes at the end of the path area of FROM that its N first records'
 * paths use.  Pure, async-signal-safe. */
static uint32_t
paths_used(const struct profrun_header *from, uint32_t n)
{
	const struct profrun_module *r =
		(const void *)((const char *)from + from->modules_off);
	uint64_t end = from->modstr_off + from->modstr_size, used = 0;

	for (uint32_t i = 0; i < n; i++)
		if (r[i].path_off <= end && end - r[i].path_off > used)
			used = end - r[i].path_off;
	return used < from->modstr_size ? (uint32_t)used : from->modstr_size;
}

/* Async-signal-safe. */
void
modules_attach_copy(struct profrun_header *h, const struct profrun_header *from)
{
	uint32_t n = __atomic_load_n(&from->module_count, __ATOMIC_ACQUIRE);
	uint32_t used = 0;

	modules_attach(h);
	if (from->module_slots != h->module_slots ||
	    from->modstr_size != h->modstr_size)
		return;
	/* no room for the parent's records: the scans add them again */
	if (!reserve_room(records(h), n * sizeof(struct profrun_module),
			  true) ||
	    !reserve_room((char *)h + h->modstr_off + h->modstr_size -
				  paths_used(from, n),
			  paths_used(from, n), true))
		return;
	memcpy(records(h), records((struct profrun_header *)from),
	       n * sizeof(struct profrun_module));
	/* the paths fill their area from its end: copy the used tail */
	for (uint32_t i = 0; i < n; i++) {
		struct profrun_module *m = &records(h)[i];
		uint32_t back = (uint32_t)from->modstr_off + from->modstr_size -
				m->path_off;

		if (back > used)
			used = back;
		m->path_off = (uint32_t)h->modstr_off + h->modstr_size - back;
	}
	memcpy((char *)h + h->modstr_off + h->modstr_size - used,
	       (const char *)from + from->modstr_off + from->modstr_size - used,
	       used);
	ms.str_used = used;
	h->modules_lost = from->modules_lost;
	h->module_count = n;
	/* a scan the parent had running belongs to a thread gone here */
	ms.busy = 0;
	ms.pending = 0;
	__atomic_store_n(&h->mod_generation, from->mod_generation,
			 __ATOMIC_RELEASE);
}

/* ---------------------------------------------------------------- objects */
/* Fill O from the link map INFO: executable span, bias, build-id, kind.
 * Returns false for an object without executable code. */
static bool
describe(struct object *o, struct dl_phdr_info *info, struct scan *s)
{
	const ElfW(Ehdr) *vdso = vdso_ehdr();
	uint64_t lo, hi;

	memset(&o->rec, 0, sizeof(o->rec));
	if (!target_describe_object(info, &lo, &hi, o->rec.build_id,
				    &o->rec.build_id_len))
		return false;
	o->rec.start = info->dlpi_addr + lo;
	o->rec.end = info->dlpi_addr + hi;
	o->rec.load_bias = info->dlpi_addr;
	o->path = info->dlpi_name;
	if (vdso && (const char *)info->dlpi_phdr ==
			    (const char *)vdso + vdso->e_phoff) {
		o->rec.kind = PROFRUN_MODULE_VDSO;
		o->path = VDSO_NAME;
	} else if (o->path == NULL || o->path[0] == '\0') {
		/* the main executable (or a map without a name) */
		o->rec.kind = PROFRUN_MODULE_MAIN;
		o->path = s->main_exe;
	} else if (o->path[0] != '/' && realpath(o->path, s->buf) != NULL) {
		o->path = s->buf;
	}
	return true;
}

/* The live record of O, or NULL. */
static struct profrun_module *
find_live(struct profrun_header *h, const struct object *o, uint32_t *index)
{
	struct profrun_module *r = records(h);

	for (uint32_t i = 0; i < h->module_count; i++) {
		if (r[i].gen_unloaded != 0 || r[i].start != o->rec.start ||
		    r[i].end != o->rec.end ||
		    r[i].load_bias != o->rec.load_bias ||
		    r[i].kind != o->rec.kind ||
		    strcmp((char *)h + r[i].path_off, o->path) != 0)
			continue;
		*index = i;
		return &r[i];
	}
	return NULL;
}

/* Append a record for O; counted in modules_lost when there is no room. */
static void
append(struct profrun_header *h, const struct object *o, uint32_t gen)
{
	size_t len = strlen(o->path) + 1;
	uint32_t n = h->module_count;
	struct profrun_module *r = &records(h)[n];

	if (n >= h->module_slots || len > h->modstr_size - ms.str_used ||
	    !reserve_room(r, sizeof(*r), true) ||
	    !reserve_room((char *)h + h->modstr_off + h->modstr_size -
				  ms.str_used - len,
			  len, true)) {
		h->modules_lost++;
		return;
	}
	*r = o->rec;
	/* paths fill their area from its end, toward the first thread
	 * records in the same page */
	ms.str_used += (uint32_t)len;
	r->path_off = (uint32_t)h->modstr_off + h->modstr_size - ms.str_used;
	memcpy((char *)h + r->path_off, o->path, len);
	r->gen_loaded = gen;
	ms.seen[n] = true;
	__atomic_store_n(&h->module_count, n + 1, __ATOMIC_RELEASE);
}

/* O found by scan S: its live record marked seen, or a record appended. */
static void
keep(const struct object *o, struct scan *s)
{
	uint32_t i;

	if (find_live(ms.hdr, o, &i) != NULL) {
		ms.seen[i] = true;
		return;
	}
	append(ms.hdr, o, s->gen);
	s->changed = true;
}

/* dl_iterate_phdr callback: mark or append each object.
 * Not async-signal-safe. */
static int
on_object(struct dl_phdr_info *info, size_t size, void *data)
{
	struct scan *s = data;
	struct object o;

	(void)size;
	if (describe(&o, info, s))
		keep(&o, s);
	return 0;
}

/* The live record whose span holds E: an object the link maps showed in
 * this scan (its span is its segments' own bounds, which the kernel maps
 * in whole pages), or a record of that very mapping (marked seen). */
static bool
mapping_known(struct profrun_header *h, const struct maps_entry *e,
	      const char *path)
{
	struct profrun_module *r = records(h);
	uint64_t page = (uint64_t)getpagesize();

	for (uint32_t i = 0; i < h->module_count; i++) {
		if (r[i].gen_unloaded != 0 ||
		    e->start < (r[i].start & ~(page - 1)) ||
		    e->end > ALIGN_UP(r[i].end, page))
			continue;
		if (!(r[i].flags & PROFRUN_MODULE_F_MAPPING) && ms.seen[i])
			return true;
		if ((r[i].flags & PROFRUN_MODULE_F_MAPPING) &&
		    r[i].start == e->start && r[i].end == e->end &&
		    strcmp((char *)h + r[i].path_off, path) == 0) {
			ms.seen[i] = true;
			return true;
		}
	}
	return false;
}

/* The build-id of a record of PATH (another mapping of the same file). */
static void
same_file_build_id(struct profrun_header *h, struct object *o)
{
	struct profrun_module *r = records(h);

	for (uint32_t i = 0; i < h->module_count; i++) {
		if (r[i].gen_unloaded != 0 || r[i].build_id_len == 0 ||
		    r[i].build_id_len > PROFRUN_BUILD_ID_MAX ||
		    strcmp((char *)h + r[i].path_off, o->path) != 0)
			continue;
		o->rec.build_id_len = r[i].build_id_len;
		memcpy(o->rec.build_id, r[i].build_id, r[i].build_id_len);
		return;
	}
}

/* maps_each callback: an executable mapping outside every object.
 * Async-signal-safe (open and read of the file's ELF header). */
static int
on_mapping(const struct maps_entry *e, void *data)
{
	struct scan *s = data;
	struct object o;

	if (!e->exec || jit_note_marker(e->path, s->pid))
		return 0;
	if (maps_compiled_code(e->path)) {
		jit_note_range(e->start, e->end);
		return 0;
	}
	if (e->path[0] != '/' || mapping_known(ms.hdr, e, e->path))
		return 0;
	memset(&o, 0, sizeof(o));
	o.rec.start = e->start;
	o.rec.end = e->end;
	o.path = e->path;
	if (!maps_file_bias(e->path, e->start, e->offset, &o.rec.load_bias))
		return 0; /* not ELF: no code we can name */
	o.rec.kind = strcmp(e->path, s->main_exe) == 0 ? PROFRUN_MODULE_MAIN
						       : PROFRUN_MODULE_LIBRARY;
	o.rec.flags = PROFRUN_MODULE_F_MAPPING;
	same_file_build_id(ms.hdr, &o);
	keep(&o, s);
	return 0;
}

/* One scan: records brought up to date, generation published.
 * Not async-signal-safe. */
static void
scan_once(const char *main_exe, bool maps)
{
	struct profrun_header *h = ms.hdr;
	struct profrun_module *r = records(h);
	uint32_t gen = h->mod_generation;
	struct scan s = {.main_exe = main_exe,
			 .pid = maps ? sys_getpid() : 0,
			 .gen = gen < PROFRUN_GEN_MAX ? gen + 1 : gen};
	uint32_t i;

	memset(ms.seen, 0, sizeof(ms.seen));
	dl_iterate_phdr(on_object, &s);
	if (maps)
		maps_each(on_mapping, &s);
	for (i = 0; i < h->module_count; i++) {
		if (r[i].gen_unloaded != 0 || ms.seen[i])
			continue;
		r[i].gen_unloaded = s.gen;
		s.changed = true;
	}
	if (s.changed || gen == 0)
		__atomic_store_n(&h->mod_generation, s.gen, __ATOMIC_RELEASE);
}

/* maps_each callback before an exec or in the handler: code no ELF file
 * holds, the marker; records of mappings are left to the scans.
 * Async-signal-safe. */
static int
on_mapping_exec(const struct maps_entry *e, void *data)
{
	const pid_t *pid = data;

	if (e->exec && !jit_note_marker(e->path, *pid) &&
	    maps_compiled_code(e->path))
		jit_note_range(e->start, e->end);
	return 0;
}

/* Async-signal-safe. */
void
modules_scan_maps(void)
{
	pid_t pid;

	if (ms.hdr == NULL ||
	    __atomic_exchange_n(&ms.busy, 1, __ATOMIC_SEQ_CST))
		return;
	pid = sys_getpid();
	maps_each(on_mapping_exec, &pid);
	__atomic_store_n(&ms.busy, 0, __ATOMIC_SEQ_CST);
}

/* Not async-signal-safe.
 *
 * The hand-off: a caller raises pending, then tries to become the scanner
 * (busy); the scanner, after each scan, drops busy and looks at pending
 * again.  The two are Dekker's pattern (a store, then a load of the other
 * variable, on each side): with release and acquire only, the scanner's
 * load of pending could be ordered before its store to busy (a store
 * buffer), so it would see no request while the caller still saw busy
 * set, and that request was lost.  Every access is sequentially
 * consistent: in their single order, either the caller's exchange comes
 * after the scanner's release of busy (the caller scans itself) or its
 * store of pending comes before the scanner's load (the scanner goes
 * round again). */
void
modules_scan(const char *main_exe, bool maps)
{
	__atomic_store_n(&ms.pending, 1, __ATOMIC_SEQ_CST);
	while (__atomic_load_n(&ms.pending, __ATOMIC_SEQ_CST)) {
		if (__atomic_exchange_n(&ms.busy, 1, __ATOMIC_SEQ_CST))
			return; /* the running scan goes round again */
		__atomic_store_n(&ms.pending, 0, __ATOMIC_SEQ_CST);
		if (ms.hdr != NULL && ms.hdr->modules_off != 0)
			scan_once(main_exe, maps);
		__atomic_store_n(&ms.busy, 0, __ATOMIC_SEQ_CST);
	}
}

/* SPDX-License-Identifier: MIT */
/*
 * Attributing the samples outside the main executables.  Each PC of a
 * member's PC table goes to the object recorded at that address in the
 * generation it was sampled in, at its link-time address (PC - load
 * bias); objects are keyed by path and build-id, so libc's samples of
 * every process of a run are symbolized once.  What no object holds is
 * kept in "[unknown]" entries: every sample stays accounted for.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "cli.h"
#include "image.h"
#include "jit-names.h"
#include "outside.h"
#include "profrun/member-name.h"

static bool
loaded_at(const struct profile_module *m, uint32_t gen)
{
	return m->gen_loaded <= gen &&
	       (m->gen_unloaded == 0 || gen < m->gen_unloaded);
}

/* Of the records covering a PC, in the file's order: the best so far by
 * outside_module's rules.  FIRST is the first loaded at GEN. */
struct pick {
	const struct profile_module *first, *later, *last;
	size_t first_i, last_i;
};

static void
consider(struct pick *k, const struct profile_module *m, size_t i, uint32_t gen)
{
	if (loaded_at(m, gen)) {
		if (!k->first || i < k->first_i) {
			k->first = m;
			k->first_i = i;
		}
		return;
	}
	if (m->gen_loaded > gen &&
	    (!k->later || m->gen_loaded < k->later->gen_loaded ||
	     (m->gen_loaded == k->later->gen_loaded && m < k->later)))
		k->later = m;
	if (!k->last || i > k->last_i) {
		k->last = m;
		k->last_i = i;
	}
}

static const struct profile_module *
picked(const struct pick *k)
{
	if (k->first)
		return k->first;
	return k->later ? k->later : k->last;
}

/* Without the reader's index (profiles made up elsewhere): every record. */
static const struct profile_module *
scan_modules(const struct profile *p, uint64_t pc, uint32_t gen)
{
	struct pick k = {0};
	size_t i;

	for (i = 0; i < p->nmodules; i++)
		if (pc >= p->modules[i].start && pc < p->modules[i].end)
			consider(&k, &p->modules[i], i, gen);
	return picked(&k);
}

/* With it: binary search for the last record starting at or below PC,
 * then back while an earlier record may still reach PC. */
const struct profile_module *
outside_module(const struct profile *p, uint64_t pc, uint32_t gen)
{
	const struct profile_module *m;
	struct pick k = {0};
	size_t lo = 0, hi = p->nmodules, mid;

	if (!p->mod_by_start)
		return scan_modules(p, pc, gen);
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (p->modules[p->mod_by_start[mid]].start <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	while (lo > 0 && p->mod_max_end[lo - 1] > pc) {
		lo--;
		m = &p->modules[p->mod_by_start[lo]];
		if (pc < m->end)
			consider(&k, m, p->mod_by_start[lo], gen);
	}
	return picked(&k);
}

bool
outside_is_shim(const char *path)
{
	const char *slash = path ? strrchr(path, '/') : NULL;

	return path && strcmp(slash ? slash + 1 : path, OUTSIDE_SHIM) == 0;
}

uint64_t
outside_overhead(const struct profile *p)
{
	const struct profile_module *m;
	uint64_t n = 0;

	for (size_t i = 0; i < p->npcs; i++) {
		m = outside_module(p, p->pcs[i].pc, p->pcs[i].gen);
		if (m && outside_is_shim(m->path))
			n += p->pcs[i].count;
	}
	return n;
}

struct sym_object
outside_object(const struct profile *p, const struct profile_module *m)
{
	struct sym_object o = {.name = m->path,
			       .build_id = m->build_id,
			       .what = p->path,
			       .granule = 1,
			       .library = true};

	if (m->kind == PROFRUN_MODULE_VDSO) {
		o.name = OUTSIDE_VDSO;
		o.image = p->vdso;
		o.image_size = p->vdso ? p->vdso_size : 0;
	} else if (m->kind == PROFRUN_MODULE_MAIN) {
		o.name = p->exe;
		o.build_id = p->build_id;
		o.library = false;
	}
	return o;
}

static struct lib *
lib_find(struct lib_set *set, const struct sym_object *o,
	 const struct profile_module *m)
{
	struct lib *l;
	size_t i;

	for (i = 0; i < set->n; i++)
		if (strcmp(set->v[i].obj.name, o->name) == 0 &&
		    strcmp(set->v[i].obj.build_id, o->build_id) == 0)
			return &set->v[i];
	if (ARRAY_GROW(set->v, set->cap, set->n, 16))
		return NULL;
	l = &set->v[set->n++];
	memset(l, 0, sizeof(*l));
	l->obj = *o;
	l->kind = m->kind;
	l->start = m->start;
	l->end = m->end;
	l->bias = m->bias;
	return l;
}

static int
lib_add(struct lib *l, uint64_t addr, uint64_t count)
{
	struct profile_sample s = {addr, count};

	if (samples_append(&l->samples, &l->n, &l->cap, &l->summed, &s, 1))
		return -1;
	l->total += count;
	return 0;
}

/* A sample of PC in code a runtime compiled, named S in J. */
static int
add_jit(struct lib_set *set, const struct jit_names *j, const struct jit_sym *s,
	const struct profile_pc *pc)
{
	const char *file = NULL, *start_file = NULL;
	struct func f = {.module = (char *)OUTSIDE_JIT,
			 .name = s->name,
			 .addr = s->start,
			 .samples = pc->count};
	int line = (int)jit_names_line(j, s, pc->pc, &file);
	int start_line = (int)jit_names_line(j, s, s->start, &start_file);

	set->jit += pc->count;
	f.file = (char *)start_file;
	f.line = start_line;
	if (func_list_add(&set->jit_funcs, &f))
		return -1;
	f.file = (char *)file;
	f.line = line;
	f.caller = s->name;
	return func_list_add(&set->jit_lines, &f);
}

/* A sample of PC in no recorded object: named code a runtime compiled,
 * such code without a name, or unknown. */
static int
add_unmapped(struct lib_set *set, const struct profile *p,
	     const struct jit_names *j, const struct profile_pc *pc)
{
	const struct jit_sym *s = jit_names_find(j, pc->pc);

	if (s)
		return add_jit(set, j, s, pc);
	if (profile_in_jit(p, pc->pc))
		set->jit_no_map += pc->count;
	else
		set->unknown += pc->count;
	return 0;
}

static int
add_pc(struct lib_set *set, const struct profile *p, const struct jit_names *j,
       const struct profile_pc *pc)
{
	const struct profile_module *m = outside_module(p, pc->pc, pc->gen);
	struct sym_object o;
	struct lib *l;

	if (!m)
		return add_unmapped(set, p, j, pc);
	if (outside_is_shim(m->path)) {
		set->overhead += pc->count;
		return 0;
	}
	o = outside_object(p, m);
	l = lib_find(set, &o, m);
	if (!l || lib_add(l, pc->pc - m->bias, pc->count))
		return -1;
	if (m->kind == PROFRUN_MODULE_VDSO)
		set->vdso += pc->count;
	else
		set->libs += pc->count;
	return 0;
}

/* Keep the first reason a copy of names could not be read. */
static void
jit_problem(char **problem, const char *err)
{
	if (problem && !*problem)
		*problem = strdup(err);
}

int
outside_jit_names(const struct profile *p, struct jit_names *j, char **problem)
{
	char err[512];
	uint8_t *buf;
	int ret = 0;

	if (profile_jit_copy(p, PROFRUN_COMPANION_MAP, p->jit_map_size, &buf,
			     err, sizeof(err)))
		jit_problem(problem, err);
	else if (buf)
		ret = jit_names_parse_map(
			j, (const char *)buf, p->jit_map_size,
			!(p->jit_flags & PROFRUN_JIT_MAP_CUT));
	free(buf);
	if (ret == 0 &&
	    profile_jit_copy(p, PROFRUN_COMPANION_JITDUMP, p->jit_dump_size,
			     &buf, err, sizeof(err)))
		jit_problem(problem, err);
	else if (ret == 0 && buf &&
		 jit_names_parse_dump(j, buf, p->jit_dump_size) == 1)
		jit_problem(problem, "a jitdump copy is no jitdump");
	free(buf);
	return ret || jit_names_finish(j) ? -1 : 0;
}

int
lib_set_add(struct lib_set *set, const struct profile *p)
{
	struct jit_names j = {0};
	size_t i;
	int ret;

	set->jit_funcs.key = KEY_FUNCTION;
	set->jit_lines.key = KEY_LINE;
	ret = outside_jit_names(p, &j, &set->jit_problem);
	for (i = 0; i < p->npcs && ret == 0; i++)
		ret = add_pc(set, p, &j, &p->pcs[i]);
	jit_names_fini(&j);
	if (ret)
		return -1;
	set->unknown += p->pcs_unmapped;
	set->lost += p->pcs_lost;
	set->unrecorded += p->pcs_unrecorded;
	return 0;
}

/* One entry of module "[unknown]", in FUNCS and (when not NULL) LINES. */
static int
add_unknown(struct func_list *funcs, struct func_list *lines, const char *name,
	    uint64_t samples)
{
	struct func f = {.module = (char *)OUTSIDE_UNKNOWN,
			 .name = (char *)name,
			 .caller = (char *)name,
			 .samples = samples};

	if (samples == 0)
		return 0;
	if (lines && func_list_add(lines, &f))
		return -1;
	f.caller = NULL;
	return func_list_add(funcs, &f);
}

/* The named JIT code, and "[JIT code without a map]", into FUNCS and
 * (when not NULL) LINES. */
static int
add_jit_entries(struct func_list *funcs, struct func_list *lines,
		const struct lib_set *set)
{
	struct func f = {.module = (char *)OUTSIDE_JIT,
			 .name = (char *)OUTSIDE_JIT_NO_MAP,
			 .caller = (char *)OUTSIDE_JIT_NO_MAP,
			 .samples = set->jit_no_map};
	size_t i;

	for (i = 0; i < set->jit_funcs.n; i++)
		if (func_list_add(funcs, &set->jit_funcs.v[i]))
			return -1;
	for (i = 0; lines && i < set->jit_lines.n; i++)
		if (func_list_add(lines, &set->jit_lines.v[i]))
			return -1;
	if (set->jit_no_map == 0)
		return 0;
	if (lines && func_list_add(lines, &f))
		return -1;
	f.caller = NULL;
	return func_list_add(funcs, &f);
}

int
lib_set_symbolize(struct lib_set *set, struct symbolizer *sz,
		  struct func_list *funcs, struct func_list *lines)
{
	struct lib *l;
	size_t i;

	for (i = 0; i < set->n; i++) {
		l = &set->v[i];
		l->n = samples_sum_sorted(l->samples, l->n);
		if (symbolize_object(sz, &l->obj, l->samples, l->n, funcs,
				     lines))
			return -1;
	}
	if (add_jit_entries(funcs, lines, set) ||
	    add_unknown(funcs, lines, "[unknown]", set->unknown) ||
	    add_unknown(funcs, lines, "[PC table full]", set->lost) ||
	    add_unknown(funcs, lines, "[not recorded]", set->unrecorded)) {
		cli_error("out of memory");
		return -1;
	}
	return 0;
}

void
lib_set_fini(struct lib_set *set)
{
	size_t i;

	for (i = 0; i < set->n; i++)
		free(set->v[i].samples);
	free(set->v);
	func_list_fini(&set->jit_funcs);
	func_list_fini(&set->jit_lines);
	free(set->jit_problem);
	memset(set, 0, sizeof(*set));
}

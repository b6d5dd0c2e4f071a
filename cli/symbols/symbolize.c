/* SPDX-License-Identifier: MIT */
/*
 * Symbolization: the walk from sampled link-time addresses (sorted) to
 * entries of a function list, one per function (or inlined function, or
 * unnamed range) and, when asked, one per source line.  The objects and
 * their symbol tables come from symbols/module.c and symbols/symtab.c.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "module.h"
#include "symbolize.h"
#include "syscall-site.h"

/* Unknown buckets further apart than this start a new range. */
#define RANGE_GAP 256

/* File and line of the function's entry. */
static void
sym_source(struct module *m, struct sym *y)
{
	if (y->src_done || !m->mod)
		return;
	y->src_done = true;
	src_entry(m->mod, y->start + m->bias, &y->file, &y->line);
}

/* ---------------------------------------------------------------- walking */

/* An open run of samples in no symbol. */
struct range {
	bool open;
	bool fde; /* exactly one frame description's extent */
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
	char *unknown;	 /* "[module]": the function of lines in no symbol */
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
	uint64_t lo, hi;

	w->cur = NULL;
	if (module_code_extent(w->m, addr, &lo, &hi)) {
		/* the function's extent from its frame description: the same
		 * name in every run */
		if (r->open && !(r->fde && r->start == lo) && flush_range(w))
			return -1;
		if (!r->open)
			*r = (struct range){.open = true,
					    .fde = true,
					    .start = lo,
					    .end = hi};
		r->samples += count;
		r->kernel += w->kernel;
		return 0;
	}
	if (r->open && (r->fde || r->gap != gap || addr - r->end > RANGE_GAP))
		if (flush_range(w))
			return -1;
	if (!r->open) {
		r->open = true;
		r->fde = false;
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
	f.name = (char *)sym_shown(w->m, y);
	if (!f.name)
		return -1;
	sym_source(w->m, y);
	f.module = w->m->exe;
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
	const char *caller = sym_shown(w->m, y);
	char *name;
	int ret;

	if (!inl || !caller ||
	    asprintf(&name, "%s [inlined into %s]", inl, caller) < 0)
		return -1;
	w->cur = NULL;
	f.caller = (char *)caller;
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
	f.caller = (char *)caller;
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
	f.caller = y ? (char *)sym_shown(w->m, y) : w->unknown;
	if (!f.caller)
		return -1;
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
			y = symtab_lookup(&w->m->syms, s[i].addr, &gap);
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

	if (n == 0) {
		module_walked(sz, o);
		return 0; /* no binary needed, and no warnings about it */
	}
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
	module_walked(sz, o);
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
symbolizer_plan_exe(struct symbolizer *sz, const struct profile *p)
{
	struct sym_object o = main_object(p);

	return symbolizer_plan(sz, &o);
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

int
symbolize_entry(struct symbolizer *sz, const struct profile *p,
		const char *name, uint64_t *entry)
{
	struct sym_object o = main_object(p);
	struct module *m = module_get(sz, &o);

	*entry = 0;
	if (m && !m->mod) {
		cli_error("%s: cannot read its symbols", p->exe);
		return -1;
	}
	if (!m || symtab_entry(&m->syms, name, p->hdr.text_start,
			       p->hdr.text_end, entry)) {
		cli_error("%s: out of memory", p->exe);
		return -1;
	}
	return 0;
}

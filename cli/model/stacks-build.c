/* SPDX-License-Identifier: MIT */
/*
 * Building a report's call stacks (stacks.h): each selected process's
 * copied stacks unwound (symbols/unwind.c), each address's frames named
 * once (inlined levels expanded), equal stacks merged, and each function
 * of the flat profile given its inclusive count.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "jit-names.h"
#include "outside.h"
#include "u64map.h"
#include "report.h"
#include "stacks-builder.h"
#include "unwind.h"

#define MAX_PCS	   4096 /* frames unwound per stack */
#define MAX_LEVELS 64	/* inlined levels named per address */
#define MAX_FRAMES 8192 /* frames of one trace, inlined ones included */

/* The frames at one address, named once. */
struct addr_frames {
	uint32_t id;
	uint32_t n;
	struct stack_frame f[];
};

struct builder {
	struct report *r;
	struct report_stacks *s;
	struct symbolizer *sz;
	const struct profile *p;
	struct unwinder *u;
	struct jit_names jit;	/* this process's JIT code, named */
	char jit_key[24];	/* its pid: JIT addresses are its own */
	struct strmap addrs;	/* "object\1addr" -> struct addr_frames */
	struct u64map pcs_seen; /* this process's PC | gen << 48 -> the same */
	struct strmap fns;	/* "module\1name" -> index + 1 */
	struct u64map traces;	/* hash of a trace's addresses -> index + 1 */
	size_t fns_cap, frames_cap, traces_cap;
	uint32_t next_id;
	uint64_t pcs[MAX_PCS];
	struct stack_frame buf[MAX_FRAMES];
	int failed; /* out of memory */
};

/* The index of function (MODULE, name of L), interned. */
static long
fn_index(struct builder *b, const char *module, const struct sym_frame *l,
	 bool main)
{
	struct report_stacks *s = b->s;
	struct strmap_slot *slot;
	struct stack_fn *f;
	char *key;

	if (asprintf(&key, "%s\1%s", module, l->name) < 0)
		return -1;
	slot = strmap_get(&b->fns, key);
	free(key);
	if (slot == NULL)
		return -1;
	if (slot->value != NULL)
		return (long)(uintptr_t)slot->value - 1;
	if (ARRAY_GROW(s->fns, b->fns_cap, s->nfns, 64))
		return -1;
	f = &s->fns[s->nfns];
	memset(f, 0, sizeof(*f));
	f->module = strdup(module);
	f->name = strdup(l->name);
	f->symbol = strdup(l->symbol ? l->symbol : l->name);
	f->addr = l->entry;
	f->main = main;
	f->shim = outside_is_shim(module);
	f->entry = l->entry_point;
	f->func = SIZE_MAX;
	if (!f->module || !f->name || !f->symbol) {
		free(f->module);
		free(f->name);
		free(f->symbol);
		return -1;
	}
	slot->value = (void *)(uintptr_t)(++s->nfns);
	return (long)s->nfns - 1;
}

/* The object holding run-time PC in generation GEN of B's process, and
 * the link-time address there; false when no recorded object holds it. */
static bool
locate(struct builder *b, uint64_t pc, uint32_t gen, struct sym_object *o,
       uint64_t *addr)
{
	const struct profile *p = b->p;
	const struct profile_module *m = outside_module(p, pc, gen);
	const struct profrun_header *h = &p->hdr;

	if (m != NULL) {
		*o = outside_object(p, m);
		*addr = pc - m->bias;
		return true;
	}
	if (pc >= h->text_start + h->load_bias &&
	    pc < h->text_end + h->load_bias) {
		*o = (struct sym_object){.name = p->exe,
					 .build_id = p->build_id,
					 .what = p->path,
					 .granule = 1};
		*addr = pc - h->load_bias;
		return true;
	}
	return false;
}

/* The frame at run-time PC in no recorded object: JIT code named by
 * B's process's copies of its runtime's names, JIT code without a map, or
 * unknown.  Its module into *MODULE, and the key of its process into
 * *KEY for JIT code (another process has other code there). */
static void
unlocated(struct builder *b, uint64_t pc, struct sym_frame *lv,
	  const char **module, const char **key)
{
	const struct jit_sym *s = jit_names_find(&b->jit, pc);
	const char *file = NULL;

	*lv = (struct sym_frame){.name = OUTSIDE_UNKNOWN,
				 .symbol = OUTSIDE_UNKNOWN};
	*module = OUTSIDE_UNKNOWN;
	*key = "";
	if (!s && !profile_in_jit(b->p, pc))
		return;
	*module = OUTSIDE_JIT;
	*key = b->jit_key;
	lv->name = lv->symbol = s ? s->name : OUTSIDE_JIT_NO_MAP;
	if (s) {
		lv->line = (int)jit_names_line(&b->jit, s, pc, &file);
		lv->file = file;
	}
}
static void free_addr_frames(void *v);

/* The named frames at run-time PC (a leaf when LEAF). */
static const struct addr_frames *name_frames(struct builder *b, uint64_t pc,
					     uint32_t gen);

/* The named frames at run-time PC of B's process in generation GEN: by
 * the PC first (most stacks repeat most of their frames), else by object
 * and address (a binary shared by several processes is named once). */
static const struct addr_frames *
frames_at(struct builder *b, uint64_t pc, uint32_t gen)
{
	uint64_t key = (pc & PROFRUN_PC_MASK) |
		       (uint64_t)(gen < PROFRUN_GEN_MAX ? gen : PROFRUN_GEN_MAX)
			       << PROFRUN_PC_BITS;
	size_t *v = u64map_get(&b->pcs_seen, key);
	const struct addr_frames *af;

	if (v == NULL)
		return NULL;
	if (*v != 0 && pc <= PROFRUN_PC_MASK)
		return (const struct addr_frames *)*v;
	af = name_frames(b, pc, gen);
	if (af != NULL && pc <= PROFRUN_PC_MASK) {
		/* name_frames did not touch b->pcs_seen: V is still its slot */
		*v = (size_t)(uintptr_t)af;
	}
	return af;
}

static const struct addr_frames *
name_frames(struct builder *b, uint64_t pc, uint32_t gen)
{
	struct sym_frame lv[MAX_LEVELS];
	struct sym_object o;
	struct strmap_slot *slot;
	struct addr_frames *af;
	uint64_t addr = pc;
	const char *module = OUTSIDE_UNKNOWN, *proc = "";
	bool known = locate(b, pc, gen, &o, &addr), main;
	char *key;
	int n;

	if (!known)
		unlocated(b, pc, &lv[0], &module, &proc);
	if (asprintf(&key, "%s\1%s\1%" PRIx64, known ? o.name : module,
		     known ? o.build_id : proc, addr) < 0)
		return NULL;
	slot = strmap_get(&b->addrs, key);
	free(key);
	if (slot == NULL)
		return NULL;
	if (slot->value != NULL)
		return slot->value;
	if (known) {
		n = symbolize_frames(b->sz, &o, addr, lv, MAX_LEVELS);
		if (n < 0)
			return NULL;
		module = o.name;
	} else {
		n = 1;
	}
	main = known && !o.library && o.image == NULL;
	af = malloc(sizeof(*af) + (size_t)n * sizeof(af->f[0]));
	if (af == NULL)
		return NULL;
	af->id = b->next_id++;
	af->n = (uint32_t)n;
	for (int i = 0; i < n; i++) {
		long fn = fn_index(b, module, &lv[i], main);

		if (fn < 0) {
			free(af);
			return NULL;
		}
		af->f[i].fn = (uint32_t)fn;
		af->f[i].inlined = lv[i].inlined;
		af->f[i].addr = addr;
		af->f[i].file = lv[i].file
					? strmap_intern(&b->s->strs, lv[i].file)
					: NULL;
		af->f[i].line = lv[i].line > 0 ? (uint32_t)lv[i].line : 0;
	}
	slot->value = af; /* no other lookup in b->addrs moved it */
	return af;
}

/* Start-of-thread functions: a stack whose root is one reached the
 * thread's start. */
static bool
is_thread_start(const char *sym)
{
	static const char *const names[] = {
		"start",	"clone",	   "clone3",
		"start_thread", "libc_start_main", "libc_start_call_main",
	};

	/* glibc's internal aliases: __GI___clone3 */
	if (strncmp(sym, "__GI_", 5) == 0)
		sym += 5;
	while (*sym == '_')
		sym++;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(sym, names[i]) == 0)
			return true;
	return false;
}

/* Whether trace T holds the N frames at BUF. */
static bool
same_trace(const struct report_stacks *s, const struct stack_trace *t,
	   const struct stack_frame *buf, size_t n, uint32_t flags)
{
	if (t->n != n || t->flags != flags)
		return false;
	for (size_t i = 0; i < n; i++) {
		const struct stack_frame *f = &s->frames[t->first + i];

		if (f->fn != buf[i].fn || f->addr != buf[i].addr ||
		    f->inlined != buf[i].inlined)
			return false;
	}
	return true;
}

/* FNV-1a of the addresses' ids and the flags of a trace. */
static uint64_t
trace_hash(const uint32_t *ids, size_t n, uint32_t flags)
{
	uint64_t h = 0xcbf29ce484222325ull ^ flags;

	for (size_t i = 0; i < n; i++) {
		h ^= ids[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

/* Add the trace of the N frames in B->buf with COUNT samples; its
 * index into *AT. */
static int
add_trace(struct builder *b, size_t n, uint32_t flags, uint64_t count,
	  const uint32_t *ids, size_t nids, size_t *at)
{
	struct report_stacks *s = b->s;
	struct stack_trace *t;
	size_t *v;

	/* equal hashes of different traces take the next keys */
	for (uint64_t key = trace_hash(ids, nids, flags);; key++) {
		v = u64map_get(&b->traces, key);
		if (v == NULL)
			return -1;
		if (*v == 0)
			break;
		if (same_trace(s, &s->traces[*v - 1], b->buf, n, flags)) {
			s->traces[*v - 1].count += count;
			*at = *v - 1;
			return 0;
		}
	}
	*v = s->ntraces + 1; /* set before the arrays grow: no map call */
	if (ARRAY_GROW(s->traces, b->traces_cap, s->ntraces, 256)) {
		*v = 0;
		return -1;
	}
	while (s->nframes + n > b->frames_cap) {
		size_t cap = b->frames_cap ? b->frames_cap * 2 : 4096;
		struct stack_frame *f =
			realloc(s->frames, cap * sizeof(*s->frames));

		if (f == NULL)
			return -1;
		s->frames = f;
		b->frames_cap = cap;
	}
	memcpy(s->frames + s->nframes, b->buf, n * sizeof(*b->buf));
	*at = s->ntraces;
	t = &s->traces[s->ntraces++];
	t->first = (uint32_t)s->nframes;
	t->n = (uint32_t)n;
	t->flags = flags;
	t->count = count;
	s->nframes += n;
	return 0;
}

/* The stack of N run-time PCS (leaf first) of B's process in module
 * generation GEN, standing for COUNT samples: named and merged, its trace's
 * index into *AT (SIZE_MAX when it has no frame).  With LEAF, only the
 * function of the first PC (the outermost of the levels there: the one
 * the flat profile names) is kept. */
static int
add_pcs(struct builder *b, const uint64_t *pcs, size_t npcs, uint32_t gen,
	uint64_t count, bool complete, bool leaf, size_t *at)
{
	uint32_t ids[MAX_PCS], flags = 0;
	size_t nids = 0, n = 0;
	const struct stack_fn *root;

	*at = SIZE_MAX;
	if (npcs > MAX_PCS)
		npcs = MAX_PCS;
	for (size_t i = 0; i < npcs; i++) {
		const struct addr_frames *af = frames_at(b, pcs[i], gen);

		if (af == NULL) {
			b->failed = 1;
			return 1;
		}
		if (af->n > 0 && b->s->fns[af->f[0].fn].shim) {
			/* the shim's own code: as the flat profile counts it,
			 * overhead at the leaf; its wrappers above the
			 * program's frames passed over */
			if (i == 0) {
				b->s->overhead += count;
				return 0;
			}
			continue;
		}
		ids[nids++] = af->id;
		for (uint32_t j = 0; j < af->n && n < MAX_FRAMES; j++)
			b->buf[n++] = af->f[j];
		if (leaf && n > 0) {
			b->buf[0] = b->buf[n - 1];
			n = 1;
			break;
		}
	}
	root = n ? &b->s->fns[b->buf[n - 1].fn] : NULL;
	if (leaf)
		flags = STACK_LEAF;
	else if (root == NULL ||
		 !(complete || root->entry || is_thread_start(root->symbol))) {
		flags |= STACK_TRUNCATED;
		b->s->truncated += count;
		if (strcmp(root ? root->module : "", OUTSIDE_JIT) == 0)
			b->s->jit_stopped += count;
	}
	b->s->stacks += count;
	if (n == 0) {
		b->s->unwound_none += count;
		return 0;
	}
	if (add_trace(b, n, flags, count, ids, nids, at)) {
		b->failed = 1;
		return 1;
	}
	return 0;
}

/* One copied stack: unwound, then named and merged.
 * profile_stacks_each's callback. */
static int
add_stack(void *ctx, const struct profile_stack *st)
{
	struct builder *b = ctx;
	size_t at;

	return stacks_builder_stack(b, st, &at);
}

/* One stack unwound already (a merged member's).
 * profile_frames_each's callback. */
static int
add_unwound(void *ctx, uint32_t count, const uint64_t *pcs, size_t n)
{
	size_t at;

	return add_pcs(ctx, pcs, n, 1, count, false, false, &at);
}

int
stacks_builder_stack(struct builder *b, const struct profile_stack *st,
		     size_t *at)
{
	size_t npcs;

	/* a sample whose stack could not be copied (counted in copy_failed
	 * by the shim) keeps its registers: its leaf alone, not a stack
	 * that failed to unwind as well */
	if (st->size == 0 && !(st->flags & PROFRUN_STACK_BLOCKED)) {
		uint64_t pc = unwinder_pc(b->u, st);

		b->s->uncopied += st->count;
		return add_pcs(b, &pc, 1, st->gen, st->count, false, true, at);
	}
	npcs = unwinder_run(b->u, st, b->pcs, MAX_PCS);

	return add_pcs(b, b->pcs, npcs, st->gen, st->count,
		       unwinder_complete(b->u), false, at);
}

int
stacks_builder_leaf(struct builder *b, uint64_t key, size_t *at)
{
	uint64_t pc = key & PROFRUN_PC_MASK;

	return add_pcs(b, &pc, 1, (uint32_t)(key >> PROFRUN_PC_BITS), 1, false,
		       true, at);
}

struct builder *
stacks_builder_new(struct report *r, struct report_stacks *s,
		   struct symbolizer *sz)
{
	struct builder *b = calloc(1, sizeof(*b));

	if (b == NULL)
		return NULL;
	b->r = r;
	b->s = s;
	b->sz = sz;
	return b;
}

int
stacks_builder_use(struct builder *b, const struct profile *p, bool unwind)
{
	unwinder_free(b->u);
	jit_names_fini(&b->jit);
	b->u = NULL;
	b->p = p;
	u64map_fini(&b->pcs_seen); /* PCs are this process's */
	snprintf(b->jit_key, sizeof(b->jit_key), "%" PRIi32, p->hdr.pid);
	if (outside_jit_names(p, &b->jit, NULL))
		return -1;
	if (unwind && (b->u = unwinder_new(p)) == NULL)
		return -1;
	return 0;
}

bool
stacks_builder_failed(const struct builder *b)
{
	return b->failed != 0;
}

void
stacks_builder_free(struct builder *b)
{
	if (b == NULL)
		return;
	unwinder_free(b->u);
	jit_names_fini(&b->jit);
	strmap_fini(&b->addrs, free_addr_frames);
	strmap_fini(&b->fns, NULL);
	u64map_fini(&b->traces);
	u64map_fini(&b->pcs_seen);
	free(b);
}

static void
free_addr_frames(void *v)
{
	free(v);
}

static int
cmp_trace(const void *a, const void *b)
{
	const struct stack_trace *x = a, *y = b;

	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return (x->first > y->first) - (x->first < y->first);
}

static int
cmp_by_inclusive(const void *a, const void *b)
{
	const struct func *x = a, *y = b;
	int c;

	if (x->inclusive != y->inclusive)
		return x->inclusive < y->inclusive ? 1 : -1;
	if (x->samples != y->samples)
		return x->samples < y->samples ? 1 : -1;
	c = strcmp(x->name, y->name);
	return c ? c : strcmp(x->module, y->module);
}

void
report_sort_by_inclusive(struct func_list *l, size_t first)
{
	if (l->n > first)
		qsort(l->v + first, l->n - first, sizeof(*l->v),
		      cmp_by_inclusive);
}

/* The functions on stacks without a sample of their own (main, a caller
 * whose time is all its callees'), appended to R's functions with 0
 * samples and their inclusive count (INCL, scaled by SCALE), by that
 * count: the flat views know every function of the stacks. */
static int
add_callers_only(struct report *r, const uint64_t *incl, double scale)
{
	struct report_stacks *s = &r->stacks;
	size_t first = r->funcs.n;

	for (size_t i = 0; i < s->nfns; i++) {
		const struct stack_fn *fn = &s->fns[i];
		struct func f = {0};

		if (fn->func != SIZE_MAX || fn->shim || incl[i] == 0 ||
		    (r->opts->module &&
		     !func_module_is(fn->module, r->opts->module)))
			continue;
		f.module = fn->module;
		f.name = fn->name;
		f.symbol = fn->symbol;
		f.addr = fn->addr;
		f.inclusive = (uint64_t)((double)incl[i] * scale + 0.5);
		if (func_list_add(&r->funcs, &f))
			return -1;
		s->fns[i].func = r->funcs.n - 1;
		s->fns[i].caller_only = true;
	}
	report_sort_by_inclusive(&r->funcs, first);
	return 0;
}

/* Each function of the flat profile: the samples with it on the stack,
 * scaled from the stacks to all samples of the processes with stacks. */
static int
set_inclusive(struct report *r)
{
	struct report_stacks *s = &r->stacks;
	struct strmap by_name = {0};
	uint64_t *incl;
	double scale;
	int ret = 0;

	if (s->stacks == 0)
		return 0;
	incl = calloc(s->nfns ? s->nfns : 1, sizeof(*incl));
	if (incl == NULL)
		return -1;
	for (size_t t = 0; t < s->ntraces; t++) {
		const struct stack_trace *tr = &s->traces[t];

		/* a function counts once per stack however often it recurs */
		for (uint32_t i = 0; i < tr->n; i++) {
			uint32_t fn = s->frames[tr->first + i].fn;
			bool seen = false;

			for (uint32_t j = 0; j < i && !seen; j++)
				seen = s->frames[tr->first + j].fn == fn;
			if (!seen)
				incl[fn] += tr->count;
		}
	}
	scale = (double)s->samples / (double)s->stacks;
	for (size_t i = 0; i < s->nfns && ret == 0; i++) {
		char *key;
		struct strmap_slot *slot;

		s->fns[i].inclusive = (uint64_t)(incl[i] * scale + 0.5);

		if (asprintf(&key, "%s%s", s->fns[i].module, s->fns[i].name) <
		    0) {
			ret = -1;
			break;
		}
		slot = strmap_get(&by_name, key);
		free(key);
		if (slot == NULL)
			ret = -1;
		else if (slot->value == NULL)
			slot->value = (void *)(uintptr_t)(i + 1);
	}
	for (size_t i = 0; i < r->funcs.n && ret == 0; i++) {
		struct func *f = &r->funcs.v[i];
		struct strmap_slot *slot;
		char *key;
		size_t fn;

		if (asprintf(&key, "%s%s", f->module, f->name) < 0) {
			ret = -1;
			break;
		}
		slot = strmap_get(&by_name, key);
		free(key);
		if (slot == NULL) {
			ret = -1;
			break;
		}
		if (slot->value == NULL) {
			/* on no stack: not even as a leaf (a sample without a
			 * stack, or one of a process without) */
			f->inclusive = f->samples;
			continue;
		}
		fn = (uintptr_t)slot->value - 1;
		s->fns[fn].func = i;
		if (s->fns[fn].inclusive < f->samples)
			s->fns[fn].inclusive = f->samples;
		f->inclusive = s->fns[fn].inclusive;
	}
	strmap_fini(&by_name, NULL);
	if (ret == 0)
		ret = add_callers_only(r, incl, scale);
	free(incl);
	return ret;
}

/* Of the ALL samples of P, the program's: less those in profrun's shim
 * (overhead, as the flat profile counts it). */
static uint64_t
program_samples(const struct profile *p, uint64_t all)
{
	uint64_t shim = outside_overhead(p);

	return all > shim ? all - shim : 0;
}

int
report_stacks_build(struct report *r, struct symbolizer *sz)
{
	struct builder *b = stacks_builder_new(r, &r->stacks, sz);
	char err[256];
	int ret = 0;

	if (b == NULL) {
		cli_error("%s: out of memory", r->run->path);
		return -1;
	}
	for (size_t i = 0; i < r->nprocs && ret == 0; i++) {
		const struct profile *p = r->procs[i].p;

		if (p->has_frames) {
			r->stacks.present = true;
			r->stacks.samples +=
				program_samples(p, p->frames.samples);
			if (p->frames.stack_max > r->stacks.stack_size)
				r->stacks.stack_size = p->frames.stack_max;
			stacks_builder_use(b, p, false);
			ret = profile_frames_each(p, add_unwound, b);
			continue;
		}
		if (!p->has_stacks)
			continue;
		r->stacks.present = true;
		r->stacks.samples += program_samples(p, p->main + p->outside);
		r->stacks.copy_failed += p->stacks.failed;
		if (p->stacks.stack_max > r->stacks.stack_size)
			r->stacks.stack_size = p->stacks.stack_max;
		if (stacks_builder_use(b, p, true)) {
			ret = -1;
			break;
		}
		ret = profile_stacks_each(p, add_stack, b, err, sizeof(err));
		if (ret && !b->failed) {
			cli_warn("%s: %s; its stacks are left out", p->path,
				 err);
			ret = 0;
		}
	}
	stacks_builder_free(b);
	/* the rest were left out by the reservoir: not drawn, or replaced */
	if (r->stacks.samples + r->stacks.uncopied >
	    r->stacks.stacks + r->stacks.copy_failed)
		r->stacks.not_kept = r->stacks.samples + r->stacks.uncopied -
				     r->stacks.stacks - r->stacks.copy_failed;
	if (ret == 0 && r->stacks.ntraces > 0)
		qsort(r->stacks.traces, r->stacks.ntraces,
		      sizeof(*r->stacks.traces), cmp_trace);
	if (ret == 0 && set_inclusive(r))
		ret = -1;
	if (ret)
		cli_error("%s: out of memory", r->run->path);
	return ret;
}

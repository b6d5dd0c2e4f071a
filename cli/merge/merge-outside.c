/* SPDX-License-Identifier: MIT */
/*
 * The samples outside the main executable, merged.  Each PC of each
 * input goes to the object the report would give it (outside_module) at
 * its link-time address (PC - load bias).  Objects are told apart by
 * kind, path, build-id and link-time range, so two builds of a library
 * stay two records (the report adds up records of the same path and
 * build-id, as it does across the processes of a run).
 * The merged member lays the objects out in an address space of its own,
 * one after the other from MERGE_BASE, each with the load bias that maps
 * its range back to its link-time addresses; all records and PCs are of
 * generation 1.  What no object holds stays counted as unknown (the
 * header's pcs_unmapped), so every sample is accounted for.
 *
 * The vdso: the merged file holds one image, that of the first input
 * whose vdso got samples; vdso samples of an input with another image
 * (another kernel) are counted as unknown rather than symbolized with
 * the wrong one.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "cli.h"
#include "image.h"
#include "merge-outside.h"
#include "outside.h"
#include "unwind.h"

#define MERGE_BASE  0x100000000000ull /* first object's runtime start */
#define MERGE_ALIGN 0x10000ull	      /* and the gap between objects */
/* What a reader accepts (profile/member-outside.c) */
#define MERGE_MAX_MODULES (1u << 16)
#define MERGE_MAX_MODSTR  (16u << 20)

struct merge_obj {
	struct member_module rec; /* start, end: link-time until laid out */
	bool placed;		  /* got a range in the merged layout */
	struct profile_sample *samples;
	size_t n, cap;
};

static struct merge_obj *
obj_find(struct merge_outside *mo, const struct member_module *key)
{
	struct merge_obj *o;
	size_t i;

	for (i = 0; i < mo->n; i++) {
		o = &mo->v[i];
		if (o->rec.kind == key->kind && o->rec.start == key->start &&
		    o->rec.end == key->end &&
		    strcmp(o->rec.path, key->path) == 0 &&
		    strcmp(o->rec.build_id, key->build_id) == 0)
			return o;
	}
	if (ARRAY_GROW(mo->v, mo->cap, mo->n, 16))
		return NULL;
	o = &mo->v[mo->n++];
	memset(o, 0, sizeof(*o));
	o->rec = *key;
	return o;
}

static int
obj_add(struct merge_obj *o, uint64_t addr, uint64_t count)
{
	if (ARRAY_GROW(o->samples, o->cap, o->n, 64))
		return -1;
	o->samples[o->n].addr = addr;
	o->samples[o->n++].count = count;
	return 0;
}

/* The vdso of P is the one kept (the first seen becomes it). */
static bool
vdso_kept(struct merge_outside *mo, const struct profile *p)
{
	if (!mo->vdso_seen) {
		mo->vdso_seen = true;
		mo->vdso = p->vdso;
		mo->vdso_size = p->vdso ? p->vdso_size : 0;
		return true;
	}
	if (!mo->vdso || !p->vdso)
		return mo->vdso == p->vdso;
	return mo->vdso_size == p->vdso_size &&
	       memcmp(mo->vdso, p->vdso, p->vdso_size) == 0;
}

/* The record key of M, or false when its samples count as unknown. */
static bool
key_of(struct merge_outside *mo, const struct profile *p,
       const struct profile_module *m, bool foreign, struct member_module *k)
{
	*k = (struct member_module){.path = m->path,
				    .build_id = m->build_id,
				    .kind = m->kind,
				    .start = m->start - m->bias,
				    .end = m->end - m->bias};
	if (m->kind == PROFRUN_MODULE_MAIN) {
		k->path = p->exe;
		k->build_id = p->build_id;
		return !foreign;
	}
	if (m->kind == PROFRUN_MODULE_VDSO)
		return vdso_kept(mo, p);
	return true;
}

static int
add_pc(struct merge_outside *mo, const struct profile *p,
       const struct profile_pc *pc, bool foreign)
{
	const struct profile_module *m = outside_module(p, pc->pc, pc->gen);
	struct member_module key;
	struct merge_obj *o;

	if (!m || !key_of(mo, p, m, foreign, &key)) {
		mo->unmapped += pc->count;
		return 0;
	}
	o = obj_find(mo, &key);
	return o ? obj_add(o, pc->pc - m->bias, pc->count) : -1;
}

int
merge_outside_add(struct merge_outside *mo, const struct profile *p,
		  bool foreign)
{
	size_t i;

	mo->any |= p->has_pcs;
	for (i = 0; i < p->npcs; i++)
		if (add_pc(mo, p, &p->pcs[i], foreign))
			return -1;
	mo->unmapped += p->pcs_unmapped;
	mo->lost += p->pcs_lost;
	if (p->hdr.modules_lost > UINT32_MAX - mo->modules_lost)
		mo->modules_lost = UINT32_MAX;
	else
		mo->modules_lost += p->hdr.modules_lost;
	return 0;
}

/* Place O at *AT: its runtime range and bias.  False (and its samples
 * counted as unknown) when the address space, the records or the room
 * for their paths (*STR bytes used) are exhausted. */
static bool
place(struct merge_outside *mo, struct merge_obj *o, uint64_t *at, size_t *str)
{
	uint64_t len = o->rec.end - o->rec.start, i;
	size_t plen = strlen(o->rec.path) + 1;

	if (len > PROFRUN_PC_MASK - *at || mo->nmods >= MERGE_MAX_MODULES ||
	    plen > MERGE_MAX_MODSTR - 8 - *str) {
		for (i = 0; i < o->n; i++)
			mo->unmapped += o->samples[i].count;
		return false;
	}
	*str += plen;
	o->placed = true;
	o->rec.bias = *at - o->rec.start;
	o->rec.start = *at;
	o->rec.end = *at + len;
	*at = (o->rec.end + 2 * MERGE_ALIGN - 1) & ~(MERGE_ALIGN - 1);
	if (*at > PROFRUN_PC_MASK)
		*at = PROFRUN_PC_MASK;
	return true;
}

/* The records and PCs of the objects that got a place. */
static int
build(struct merge_outside *mo)
{
	size_t i, k, npcs = 0, str = 0;
	uint64_t at = MERGE_BASE;
	struct merge_obj *o;

	for (i = 0; i < mo->n; i++)
		npcs += mo->v[i].n;
	mo->mods = calloc(mo->n ? mo->n : 1, sizeof(*mo->mods));
	mo->pcs = calloc(npcs ? npcs : 1, sizeof(*mo->pcs));
	if (!mo->mods || !mo->pcs)
		return -1;
	for (i = 0; i < mo->n; i++) {
		o = &mo->v[i];
		if (!place(mo, o, &at, &str))
			continue;
		mo->mods[mo->nmods++] = o->rec;
		o->n = samples_sum_sorted(o->samples, o->n);
		for (k = 0; k < o->n; k++) {
			mo->pcs[mo->npcs].addr =
				o->samples[k].addr + o->rec.bias;
			mo->pcs[mo->npcs++].count = o->samples[k].count;
		}
	}
	return 0;
}

int
merge_outside_finish(struct merge_outside *mo,
		     const struct member_outside **out,
		     struct member_outside *buf)
{
	*out = NULL;
	if (!mo->any)
		return 0;
	if (build(mo))
		return -1;
	*buf = (struct member_outside){.pcs = mo->pcs,
				       .npcs = mo->npcs,
				       .mods = mo->mods,
				       .nmods = mo->nmods,
				       .vdso = mo->vdso,
				       .vdso_size = mo->vdso_size,
				       .lost = mo->lost,
				       .unmapped = mo->unmapped,
				       .modules_lost = mo->modules_lost};
	*out = buf;
	return 0;
}

/* ---------------------------------------------------------------- stacks */

#define FRAME_MAIN    (-1) /* in the main executable's text */
#define FRAME_UNKNOWN (-2) /* in no object kept */
#define MAX_PCS	      4096

struct merge_frame {
	int64_t obj;   /* index into mo->v, or FRAME_* */
	uint64_t addr; /* link-time */
};

struct merge_stack {
	uint32_t count;
	size_t first, n; /* frames[first .. first + n) */
};

struct stack_walk {
	struct merge_outside *mo;
	const struct profile *p;
	bool foreign;
	struct unwinder *u;
	uint64_t pcs[MAX_PCS];
	int failed;
};

/* Frame PC of W's process, sampled in generation GEN. */
static int
add_frame(struct stack_walk *w, uint64_t pc, uint32_t gen)
{
	struct merge_outside *mo = w->mo;
	const struct profile *p = w->p;
	const struct profile_module *m = outside_module(p, pc, gen);
	const struct profrun_header *h = &p->hdr;
	struct merge_frame f = {FRAME_UNKNOWN, 0};
	struct member_module key;

	if (m && key_of(mo, p, m, w->foreign, &key)) {
		struct merge_obj *o = obj_find(mo, &key);

		if (o == NULL)
			return -1;
		f.obj = o - mo->v;
		f.addr = pc - m->bias;
	} else if (!w->foreign && pc >= h->text_start + h->load_bias &&
		   pc < h->text_end + h->load_bias) {
		f.obj = FRAME_MAIN;
		f.addr = pc - h->load_bias;
	}
	if (ARRAY_GROW(mo->frames, mo->frames_cap, mo->nframes, 1024))
		return -1;
	mo->frames[mo->nframes++] = f;
	return 0;
}

/* One stack of N PCS standing for COUNT samples. */
static int
add_pcs(struct stack_walk *w, const uint64_t *pcs, size_t n, uint32_t gen,
	uint32_t count)
{
	struct merge_outside *mo = w->mo;
	size_t first = mo->nframes;

	if (n == 0)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (add_frame(w, pcs[i], gen))
			return -1;
	if (ARRAY_GROW(mo->stacks, mo->stacks_cap, mo->nstacks, 256))
		return -1;
	mo->stacks[mo->nstacks++] = (struct merge_stack){count, first, n};
	mo->stacks_total += count;
	return 0;
}

static int
walk_copied(void *ctx, const struct profile_stack *s)
{
	struct stack_walk *w = ctx;
	size_t n = unwinder_run(w->u, s, w->pcs, MAX_PCS);

	w->failed = add_pcs(w, w->pcs, n, s->gen, s->count);
	return w->failed;
}

static int
walk_unwound(void *ctx, uint32_t count, const uint64_t *pcs, size_t n)
{
	struct stack_walk *w = ctx;

	w->failed = add_pcs(w, pcs, n, 1, count);
	return w->failed;
}

int
merge_outside_add_stacks(struct merge_outside *mo, const struct profile *p,
			 bool foreign)
{
	struct stack_walk *w;
	char err[256];
	int ret;

	if (!p->has_stacks && !p->has_frames)
		return 0;
	w = calloc(1, sizeof(*w));
	if (w == NULL) {
		cli_error("%s: out of memory", p->path);
		return -1;
	}
	*w = (struct stack_walk){.mo = mo, .p = p, .foreign = foreign};
	mo->any_stacks = true;
	if (p->has_frames) {
		mo->stack_samples += p->frames.samples;
		if (p->frames.stack_max > mo->stack_max)
			mo->stack_max = p->frames.stack_max;
		ret = profile_frames_each(p, walk_unwound, w);
	} else {
		mo->stack_samples += p->main + p->outside;
		if (p->stacks.stack_max > mo->stack_max)
			mo->stack_max = p->stacks.stack_max;
		w->u = unwinder_new(p);
		ret = w->u ? profile_stacks_each(p, walk_copied, w, err,
						 sizeof(err))
			   : -1;
		unwinder_free(w->u);
		if (ret && !w->failed && w->u) {
			/* the file could not be read: its stacks are left out */
			cli_warn("%s: %s; its stacks are left out", p->path,
				 err);
			ret = 0;
		}
	}
	free(w);
	if (ret)
		cli_error("%s: out of memory", p->path);
	return ret ? -1 : 0;
}

/* The run-time PC of frame F in the merged layout; 1 (in no object) for
 * frames nowhere in it. */
static uint64_t
merged_pc(const struct merge_outside *mo, const struct merge_frame *f,
	  uint64_t load_bias)
{
	if (f->obj == FRAME_MAIN)
		return f->addr + load_bias;
	if (f->obj >= 0 && mo->v[f->obj].placed)
		return f->addr + mo->v[f->obj].rec.bias;
	return 1;
}

int
merge_outside_frames(const struct merge_outside *mo, uint64_t load_bias,
		     uint8_t **buf, size_t *size)
{
	struct profrun_frames h = {0};
	size_t n = sizeof(h), off;
	uint8_t *b;

	*buf = NULL;
	*size = 0;
	if (!mo->any_stacks)
		return 0;
	for (size_t i = 0; i < mo->nstacks; i++) {
		size_t k = mo->stacks[i].n < UINT16_MAX ? mo->stacks[i].n
							: UINT16_MAX;

		n += sizeof(struct profrun_frame_record) + 8 * k;
	}
	b = calloc(1, n);
	if (b == NULL)
		return -1;
	h.record_count = (uint32_t)mo->nstacks;
	h.stack_max = mo->stack_max;
	h.stacks = mo->stacks_total;
	h.samples = mo->stack_samples > mo->stacks_total ? mo->stack_samples
							 : mo->stacks_total;
	memcpy(b, &h, sizeof(h));
	off = sizeof(h);
	for (size_t i = 0; i < mo->nstacks; i++) {
		const struct merge_stack *st = &mo->stacks[i];
		struct profrun_frame_record r = {
			st->count,
			st->n < UINT16_MAX ? (uint16_t)st->n : UINT16_MAX, 0};

		memcpy(b + off, &r, sizeof(r));
		off += sizeof(r);
		for (size_t j = 0; j < r.n; j++, off += 8) {
			uint64_t pc = merged_pc(mo, &mo->frames[st->first + j],
						load_bias);

			memcpy(b + off, &pc, 8);
		}
	}
	*buf = b;
	*size = n;
	return 0;
}

void
merge_outside_fini(struct merge_outside *mo)
{
	size_t i;

	free(mo->frames);
	free(mo->stacks);

	for (i = 0; i < mo->n; i++)
		free(mo->v[i].samples);
	free(mo->v);
	free(mo->mods);
	free(mo->pcs);
	memset(mo, 0, sizeof(*mo));
}

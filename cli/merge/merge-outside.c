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
#include "image.h"
#include "merge-outside.h"
#include "outside.h"

#define MERGE_BASE  0x100000000000ull /* first object's runtime start */
#define MERGE_ALIGN 0x10000ull	      /* and the gap between objects */
/* What a reader accepts (profile/member-outside.c) */
#define MERGE_MAX_MODULES (1u << 16)
#define MERGE_MAX_MODSTR  (16u << 20)

struct merge_obj {
	struct member_module rec; /* start, end: link-time until laid out */
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

void
merge_outside_fini(struct merge_outside *mo)
{
	size_t i;

	for (i = 0; i < mo->n; i++)
		free(mo->v[i].samples);
	free(mo->v);
	free(mo->mods);
	free(mo->pcs);
	memset(mo, 0, sizeof(*mo));
}

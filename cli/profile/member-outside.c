/* SPDX-License-Identifier: MIT */
/*
 * Reader of the parts of a member file that say where the samples outside
 * the main executable fell: the PC table, the module records and their
 * paths, and the vdso image (docs/format.md).  Files without them (zero
 * offsets and sizes) read as "no table".  As everywhere in the reader,
 * every count, offset, size and key is checked before use.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hex.h"
#include "intern.h"
#include "profile.h"

#define MAX_PC_SLOTS	 (1u << 20)
#define MAX_MODULE_SLOTS (1u << 16)
#define MAX_MODSTR	 (16u << 20)

size_t
profile_outside_regions(const struct profrun_header *h, struct region *r)
{
	size_t n = 0;

	if (h->pc_slots > 0 && h->pc_slots <= MAX_PC_SLOTS)
		r[n++] = (struct region){"PC table", h->pcs_off,
					 (uint64_t)h->pc_slots *
						 sizeof(struct profrun_pc)};
	if (h->module_slots > 0 && h->module_slots <= MAX_MODULE_SLOTS)
		r[n++] = (struct region){"module records", h->modules_off,
					 (uint64_t)h->module_slots *
						 sizeof(struct profrun_module)};
	if (h->modstr_size > 0)
		r[n++] = (struct region){"module strings", h->modstr_off,
					 h->modstr_size};
	if (h->vdso_size > 0)
		r[n++] = (struct region){"vdso image", h->vdso_off,
					 h->vdso_size};
	return n;
}

/* Sizes the regions cannot vouch for (a region of 0 bytes is absent). */
static int
check_sizes(const struct profrun_header *h, char *err, size_t errlen)
{
	if (h->pc_slots > MAX_PC_SLOTS || (h->pc_slots & (h->pc_slots - 1)))
		return profile_fail(err, errlen, "bad PC table size (%u slots)",
				    h->pc_slots);
	if (h->module_slots > MAX_MODULE_SLOTS ||
	    h->module_count > h->module_slots)
		return profile_fail(err, errlen,
				    "bad module records (%u of %u)",
				    h->module_count, h->module_slots);
	if (h->modstr_size > MAX_MODSTR ||
	    (h->module_count > 0 && h->modstr_size == 0))
		return profile_fail(err, errlen,
				    "bad module string area (%u bytes)",
				    h->modstr_size);
	if (h->vdso_size > PROFRUN_VDSO_MAX)
		return profile_fail(err, errlen,
				    "vdso image of %u bytes exceeds %u",
				    h->vdso_size, PROFRUN_VDSO_MAX);
	if (h->pcs_lost >= PLAUSIBLE_SAMPLES ||
	    h->pcs_unmapped >= PLAUSIBLE_SAMPLES)
		return profile_fail(err, errlen, "implausible sample counts");
	return 0;
}

static int
cmp_pc(const void *a, const void *b)
{
	const struct profile_pc *x = a, *y = b;

	if (x->pc != y->pc)
		return x->pc < y->pc ? -1 : 1;
	return (x->gen > y->gen) - (x->gen < y->gen);
}

static struct profrun_pc
pc_slot(const uint8_t *buf, const struct profrun_header *h, uint32_t i)
{
	struct profrun_pc slot;

	memcpy(&slot, buf + h->pcs_off + (uint64_t)i * sizeof(slot),
	       sizeof(slot));
	return slot;
}

/* The used slots of the PC table, sorted by PC; *SUM gets their total.
 * Only the used slots are kept: a table of 16384 slots with three PCs
 * costs three. */
static int
read_pcs(const uint8_t *buf, struct profile *p, uint64_t *sum, char *err,
	 size_t errlen)
{
	const struct profrun_header *h = &p->hdr;
	struct profrun_pc slot;
	uint32_t i, used = 0;

	*sum = 0;
	for (i = 0; i < h->pc_slots; i++)
		used += pc_slot(buf, h, i).key != 0;
	if (used == 0)
		return 0;
	p->pcs = calloc(used, sizeof(*p->pcs));
	if (!p->pcs)
		return profile_fail(err, errlen, "out of memory");
	for (i = 0; i < h->pc_slots; i++) {
		slot = pc_slot(buf, h, i);
		if (slot.key == 0)
			continue;
		if ((slot.key & PROFRUN_PC_MASK) == 0 ||
		    slot.count >= PLAUSIBLE_SAMPLES - *sum)
			return profile_fail(
				err, errlen,
				"PC slot %u is bad (key 0x%llx, %llu samples)",
				i, (unsigned long long)slot.key,
				(unsigned long long)slot.count);
		*sum += slot.count;
		p->pcs[p->npcs].pc = slot.key & PROFRUN_PC_MASK;
		p->pcs[p->npcs].gen = (uint32_t)(slot.key >> PROFRUN_PC_BITS);
		p->pcs[p->npcs++].count = slot.count;
	}
	qsort(p->pcs, p->npcs, sizeof(*p->pcs), cmp_pc);
	return 0;
}

static struct profrun_module
module_rec(const uint8_t *buf, const struct profrun_header *h, uint32_t i)
{
	struct profrun_module rec;

	memcpy(&rec, buf + h->modules_off + (uint64_t)i * sizeof(rec),
	       sizeof(rec));
	return rec;
}

static int
read_module(const uint8_t *buf, struct profile *p, uint32_t i, char *err,
	    size_t errlen)
{
	struct profile_module *m = &p->modules[i];
	struct profrun_module rec = module_rec(buf, &p->hdr, i);

	if (rec.start >= rec.end || rec.kind > PROFRUN_MODULE_VDSO ||
	    rec.build_id_len > PROFRUN_BUILD_ID_MAX ||
	    (rec.gen_unloaded != 0 && rec.gen_unloaded < rec.gen_loaded))
		return profile_fail(err, errlen, "module record %u is bad", i);
	hex_format(m->build_id, rec.build_id, rec.build_id_len);
	m->start = rec.start;
	m->end = rec.end;
	m->bias = rec.load_bias;
	m->kind = rec.kind;
	m->gen_loaded = rec.gen_loaded;
	m->gen_unloaded = rec.gen_unloaded;
	return 0;
}

/* Record index and path offset, to visit the paths in file order. */
struct path_ref {
	uint32_t off, index;
};

static int
cmp_path_ref(const void *a, const void *b)
{
	const struct path_ref *x = a, *y = b;

	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	return (x->index > y->index) - (x->index < y->index);
}

/* The path of record R->index at file offset R->off: inside the module
 * strings, NUL-terminated there, and not inside the path before it (at
 * *END, which gets this one's end): records may share a path, never
 * overlap one, so reading the paths costs at most the string area.
 * Interned: one copy however many records and members name it. */
static int
module_path(const uint8_t *buf, const struct profrun_header *h,
	    const struct path_ref *r, uint64_t *end, const char **out,
	    char *err, size_t errlen)
{
	uint64_t area_end = h->modstr_off + h->modstr_size;
	const uint8_t *nul;

	if (r->off < h->modstr_off || r->off >= area_end)
		return profile_fail(
			err, errlen,
			"module %u: path at %u outside the module strings",
			r->index, r->off);
	if (r->off < *end)
		return profile_fail(err, errlen,
				    "module %u: path at %u inside another's",
				    r->index, r->off);
	nul = memchr(buf + r->off, '\0', area_end - r->off);
	if (!nul)
		return profile_fail(err, errlen,
				    "module %u: path not terminated", r->index);
	*end = (uint64_t)(nul - buf) + 1;
	*out = intern(buf + r->off, (size_t)(nul - (buf + r->off)));
	return *out ? 0 : profile_fail(err, errlen, "out of memory");
}

static int
read_paths(const uint8_t *buf, struct profile *p, struct path_ref *refs,
	   char *err, size_t errlen)
{
	const struct profrun_header *h = &p->hdr;
	uint32_t i, n = h->module_count;
	uint64_t end = 0;

	for (i = 0; i < n; i++) {
		refs[i].off = module_rec(buf, h, i).path_off;
		refs[i].index = i;
	}
	qsort(refs, n, sizeof(*refs), cmp_path_ref);
	for (i = 0; i < n; i++) {
		const char **path = &p->modules[refs[i].index].path;

		if (i > 0 && refs[i].off == refs[i - 1].off)
			*path = intern_hold(p->modules[refs[i - 1].index].path);
		else if (module_path(buf, h, &refs[i], &end, path, err, errlen))
			return -1;
	}
	p->nmodules = n;
	return 0;
}

static int
read_modules(const uint8_t *buf, struct profile *p, char *err, size_t errlen)
{
	uint32_t i, n = p->hdr.module_count;
	struct path_ref *refs;
	int ret;

	if (n == 0)
		return 0;
	p->modules = calloc(n, sizeof(*p->modules));
	refs = calloc(n, sizeof(*refs));
	if (!p->modules || !refs) {
		free(refs);
		return profile_fail(err, errlen, "out of memory");
	}
	for (i = 0; i < n; i++)
		if (read_module(buf, p, i, err, errlen)) {
			free(refs);
			return -1;
		}
	ret = read_paths(buf, p, refs, err, errlen);
	if (ret) /* the paths read so far, in no order: profile_fini
		  * frees only nmodules of them */
		for (i = 0; i < n; i++)
			intern_release(p->modules[i].path);
	free(refs);
	return ret;
}

static const struct profile_module *sort_modules;

static int
cmp_mod_start(const void *a, const void *b)
{
	const uint32_t *x = a, *y = b;
	uint64_t s = sort_modules[*x].start, t = sort_modules[*y].start;

	if (s != t)
		return s < t ? -1 : 1;
	return (*x > *y) - (*x < *y);
}

int
profile_index_modules(struct profile *p, char *err, size_t errlen)
{
	size_t i, n = p->nmodules;
	uint64_t end = 0;

	if (n == 0)
		return 0;
	p->mod_by_start = calloc(n, sizeof(*p->mod_by_start));
	p->mod_max_end = calloc(n, sizeof(*p->mod_max_end));
	if (!p->mod_by_start || !p->mod_max_end)
		return profile_fail(err, errlen, "out of memory");
	for (i = 0; i < n; i++)
		p->mod_by_start[i] = (uint32_t)i;
	sort_modules = p->modules;
	qsort(p->mod_by_start, n, sizeof(*p->mod_by_start), cmp_mod_start);
	for (i = 0; i < n; i++) {
		if (p->modules[p->mod_by_start[i]].end > end)
			end = p->modules[p->mod_by_start[i]].end;
		p->mod_max_end[i] = end;
	}
	return 0;
}

/* The vdso image, interned: every process of a boot has the same. */
static int
read_vdso(const uint8_t *buf, struct profile *p, char *err, size_t errlen)
{
	if (p->hdr.vdso_size == 0)
		return 0;
	p->vdso = intern(buf + p->hdr.vdso_off, p->hdr.vdso_size);
	if (!p->vdso)
		return profile_fail(err, errlen, "out of memory");
	p->vdso_size = p->hdr.vdso_size;
	return 0;
}

/* The outside samples P's counts account for, against the header's
 * count of them (samples_outside counts before the table or the log
 * does: a live file may show a few more there, or, read in the other
 * order, a few less). */
static int
settle_outside(struct profile *p, char *err, size_t errlen)
{
	uint64_t known = p->pcs_lost + p->pcs_unmapped;

	if (known >= PLAUSIBLE_SAMPLES)
		return profile_fail(err, errlen, "implausible sample counts");
	for (size_t i = 0; i < p->npcs; i++) {
		if (p->pcs[i].count >= PLAUSIBLE_SAMPLES - known)
			return profile_fail(err, errlen,
					    "implausible sample counts");
		known += p->pcs[i].count;
	}
	if (p->main >= PLAUSIBLE_SAMPLES - known)
		return profile_fail(err, errlen, "implausible sample counts");
	p->pcs_unrecorded = 0;
	p->outside = p->hdr.samples_outside;
	if (p->outside > known)
		p->pcs_unrecorded = p->outside - known;
	else
		p->outside = known;
	return 0;
}

int
profile_parse_outside(const uint8_t *buf, struct profile *p, char *err,
		      size_t errlen)
{
	const struct profrun_header *h = &p->hdr;
	uint64_t sum = 0;

	if (check_sizes(h, err, errlen) ||
	    read_pcs(buf, p, &sum, err, errlen) ||
	    read_modules(buf, p, err, errlen) ||
	    profile_index_modules(p, err, errlen) ||
	    read_vdso(buf, p, err, errlen))
		return -1;
	p->has_pcs = h->pc_slots > 0;
	p->pcs_lost = h->pcs_lost;
	p->pcs_unmapped = h->pcs_unmapped;
	return settle_outside(p, err, errlen);
}

int
profile_add_outside(struct profile *p, const uint64_t *keys, size_t n,
		    char *err, size_t errlen)
{
	struct profile_pc *t;
	size_t out = 0;

	if (n == 0)
		return 0;
	t = realloc(p->pcs, (p->npcs + n) * sizeof(*t));
	if (!t)
		return profile_fail(err, errlen, "out of memory");
	p->pcs = t;
	for (size_t i = 0; i < n; i++) {
		t[p->npcs + i].pc = keys[i] & PROFRUN_PC_MASK;
		t[p->npcs + i].gen = (uint32_t)(keys[i] >> PROFRUN_PC_BITS);
		t[p->npcs + i].count = 1;
	}
	p->npcs += n;
	qsort(t, p->npcs, sizeof(*t), cmp_pc);
	for (size_t i = 0; i < p->npcs; i++) {
		if (out > 0 && t[out - 1].pc == t[i].pc &&
		    t[out - 1].gen == t[i].gen)
			t[out - 1].count += t[i].count;
		else
			t[out++] = t[i];
	}
	p->npcs = out;
	return settle_outside(p, err, errlen);
}

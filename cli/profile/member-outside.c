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

/* The used slots of the PC table, sorted by PC; *SUM gets their total. */
static int
read_pcs(const uint8_t *buf, struct profile *p, uint64_t *sum, char *err,
	 size_t errlen)
{
	const struct profrun_header *h = &p->hdr;
	struct profrun_pc slot;
	uint32_t i;

	*sum = 0;
	p->pcs = calloc(h->pc_slots ? h->pc_slots : 1, sizeof(*p->pcs));
	if (!p->pcs)
		return profile_fail(err, errlen, "out of memory");
	for (i = 0; i < h->pc_slots; i++) {
		memcpy(&slot, buf + h->pcs_off + (uint64_t)i * sizeof(slot),
		       sizeof(slot));
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

/* The path of record I at file offset OFF: inside the module strings and
 * NUL-terminated there. */
static int
module_path(const uint8_t *buf, const struct profrun_header *h, uint32_t i,
	    uint32_t off, char **out, char *err, size_t errlen)
{
	uint64_t end = h->modstr_off + h->modstr_size;

	if (off < h->modstr_off || off >= end)
		return profile_fail(
			err, errlen,
			"module %u: path at %u outside the module strings", i,
			off);
	if (!memchr(buf + off, '\0', end - off))
		return profile_fail(err, errlen,
				    "module %u: path not terminated", i);
	*out = strdup((const char *)buf + off);
	return *out ? 0 : profile_fail(err, errlen, "out of memory");
}

static int
read_module(const uint8_t *buf, struct profile *p, uint32_t i, char *err,
	    size_t errlen)
{
	const struct profrun_header *h = &p->hdr;
	struct profile_module *m = &p->modules[p->nmodules];
	struct profrun_module rec;

	memcpy(&rec, buf + h->modules_off + (uint64_t)i * sizeof(rec),
	       sizeof(rec));
	if (rec.start >= rec.end || rec.kind > PROFRUN_MODULE_VDSO ||
	    rec.build_id_len > PROFRUN_BUILD_ID_MAX ||
	    (rec.gen_unloaded != 0 && rec.gen_unloaded < rec.gen_loaded))
		return profile_fail(err, errlen, "module record %u is bad", i);
	if (module_path(buf, h, i, rec.path_off, &m->path, err, errlen))
		return -1;
	hex_format(m->build_id, rec.build_id, rec.build_id_len);
	m->start = rec.start;
	m->end = rec.end;
	m->bias = rec.load_bias;
	m->kind = rec.kind;
	m->gen_loaded = rec.gen_loaded;
	m->gen_unloaded = rec.gen_unloaded;
	p->nmodules++;
	return 0;
}

static int
read_modules(const uint8_t *buf, struct profile *p, char *err, size_t errlen)
{
	uint32_t i, n = p->hdr.module_count;

	p->modules = calloc(n ? n : 1, sizeof(*p->modules));
	if (!p->modules)
		return profile_fail(err, errlen, "out of memory");
	for (i = 0; i < n; i++)
		if (read_module(buf, p, i, err, errlen))
			return -1;
	return 0;
}

static int
read_vdso(const uint8_t *buf, struct profile *p, char *err, size_t errlen)
{
	if (p->hdr.vdso_size == 0)
		return 0;
	p->vdso = malloc(p->hdr.vdso_size);
	if (!p->vdso)
		return profile_fail(err, errlen, "out of memory");
	memcpy(p->vdso, buf + p->hdr.vdso_off, p->hdr.vdso_size);
	p->vdso_size = p->hdr.vdso_size;
	return 0;
}

int
profile_parse_outside(const uint8_t *buf, struct profile *p, char *err,
		      size_t errlen)
{
	const struct profrun_header *h = &p->hdr;
	uint64_t sum = 0, known;

	if (check_sizes(h, err, errlen) ||
	    read_pcs(buf, p, &sum, err, errlen) ||
	    read_modules(buf, p, err, errlen) || read_vdso(buf, p, err, errlen))
		return -1;
	p->has_pcs = h->pc_slots > 0;
	p->pcs_lost = h->pcs_lost;
	p->pcs_unmapped = h->pcs_unmapped;
	known = sum + p->pcs_lost + p->pcs_unmapped;
	if (known >= PLAUSIBLE_SAMPLES || p->main >= PLAUSIBLE_SAMPLES - known)
		return profile_fail(err, errlen, "implausible sample counts");
	/* samples_outside counts before the table does: a live file may show
	 * a few more in it, or (read in the other order) a few less */
	if (p->outside > known)
		p->pcs_unrecorded = p->outside - known;
	else
		p->outside = known;
	return 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * Writer of member files (include/profrun/format.h) from exact counts:
 * the layout the shim uses (header, strings, carry table, histogram),
 * with a carry table of wrap_slots entries, a power of two at least
 * twice the number of buckets above 65535; then, when the member says
 * where its samples outside the main executable fell, a PC table (slots
 * found as the shim finds them, any probe length), the module records,
 * their paths and the vdso image; and, when some of its CPU time was
 * paused or it has call stacks (already unwound), a region list naming
 * its pause record (with no per-thread part) and the stacks, which follow
 * it (the fixed fields say where everything else is).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "hex.h"
#include "member-write.h"

#define ALIGN(x, a) (((x) + (a)-1) & ~((uint64_t)(a)-1))
/* What the reader accepts (profile/member.c, profile/member-outside.c) */
#define MAX_PC_SLOTS (1u << 20)

static uint32_t
wrap_slots_for(const struct member *m)
{
	uint32_t slots = 16;
	size_t i, big = 0;

	for (i = 0; i < m->n; i++)
		big += m->samples[i].count > 0xffff;
	while (slots < 2 * big)
		slots *= 2;
	return slots;
}

/* No PC table, module records or vdso image: the samples outside the
 * main executable stay counted in samples_outside only. */
static void
clear_outside(struct profrun_header *h)
{
	h->pcs_off = h->modules_off = h->modstr_off = h->vdso_off = 0;
	h->pc_slots = h->pc_probe = 0;
	h->module_slots = h->module_count = h->modules_lost = 0;
	h->modstr_size = h->vdso_size = h->mod_generation = 0;
	h->pcs_lost = h->pcs_unmapped = 0;
	h->flags &= ~(uint32_t)PROFRUN_F_PC_OVERFLOW;
}

/* The outside regions after the histogram.  The PC table gets at least
 * twice the slots it needs, unless the file would outgrow what a reader
 * accepts. */
static void
layout_outside(struct profrun_header *h, const struct member_outside *o)
{
	uint64_t strs = 0, rest, end;
	uint32_t slots = 16;
	size_t i;

	for (i = 0; i < o->nmods; i++)
		strs += strlen(o->mods[i].path) + 1;
	while (slots < MAX_PC_SLOTS && slots < 2 * o->npcs)
		slots *= 2;
	h->pcs_off = ALIGN(h->file_size, 64);
	rest = ALIGN(o->nmods * sizeof(struct profrun_module) + strs, 8) +
	       o->vdso_size + 64;
	while (slots > 16 &&
	       h->pcs_off + slots * sizeof(struct profrun_pc) + rest >
		       PROFILE_MAX_FILE)
		slots /= 2;
	h->pc_slots = slots;
	h->pc_probe = 1; /* raised by fill_pcs to the longest probe made */
	h->mod_generation = 1;
	h->pcs_lost = o->lost;
	h->pcs_unmapped = o->unmapped;
	h->modules_lost = o->modules_lost;
	if (o->lost > 0)
		h->flags |= PROFRUN_F_PC_OVERFLOW;
	end = h->pcs_off + (uint64_t)slots * sizeof(struct profrun_pc);
	if (o->nmods > 0) {
		h->modules_off = end;
		h->module_slots = h->module_count = (uint32_t)o->nmods;
		h->modstr_off = end + o->nmods * sizeof(struct profrun_module);
		h->modstr_size = (uint32_t)ALIGN(strs, 8);
		end = h->modstr_off + h->modstr_size;
	}
	if (o->vdso && o->vdso_size > 0) {
		h->vdso_off = end;
		h->vdso_size = o->vdso_size;
		end += o->vdso_size;
	}
	h->file_size = end;
}

/* The region list after the other regions, then the pause record, then
 * the stacks. */
static void
layout_listed(struct member *m)
{
	struct profrun_header *h = &m->hdr;
	uint64_t end;

	h->regions_off = ALIGN(h->file_size, 64);
	h->region_count = (m->paused_ns != 0) + (m->frames != NULL);
	end = h->regions_off + h->region_count * sizeof(struct profrun_region);
	if (m->paused_ns) {
		m->pause_off = end;
		end += sizeof(struct profrun_pause);
	}
	if (m->frames) {
		m->frames_off = ALIGN(end, 64);
		end = m->frames_off + m->frames_size;
	}
	h->file_size = end;
}

static void
layout(struct member *m)
{
	struct profrun_header *h = &m->hdr;
	size_t exe_len = strlen(m->exe) + 1;
	size_t note_len = m->note ? strlen(m->note) + 1 : 0;

	memcpy(h->magic, PROFRUN_MAGIC, PROFRUN_MAGIC_LEN);
	h->version = PROFRUN_VERSION;
	h->min_version = PROFRUN_MIN_VERSION;
	h->header_size = PROFRUN_HEADER_SIZE;
	h->strings_off = PROFRUN_HEADER_SIZE;
	h->strings_size = (uint32_t)ALIGN(exe_len + note_len, 8);
	h->exe_off = (uint32_t)h->strings_off;
	h->note_off = note_len ? (uint32_t)(h->strings_off + exe_len) : 0;
	h->wrap_slots = wrap_slots_for(m);
	h->wraps_off = ALIGN(h->strings_off + h->strings_size, 64);
	h->hist_off = h->wraps_off +
		      (uint64_t)h->wrap_slots * sizeof(struct profrun_wrap);
	h->file_size = h->hist_off + h->nbuckets * 2;
	/* a merged member keeps no thread records: its processes' threads
	 * are not one process's */
	h->threads_off = 0;
	h->thread_slots = 0;
	h->thread_count = 0;
	h->regions_off = 0; /* the fixed fields say where everything is */
	h->region_count = 0;
	clear_outside(h);
	if (m->outside)
		layout_outside(h, m->outside);
	if (m->paused_ns || m->frames)
		layout_listed(m);
}

/* The region list and the records it names. */
static void
fill_listed(uint8_t *buf, const struct member *m)
{
	struct profrun_region r[2];
	struct profrun_pause z = {.paused_cpu_ns = m->paused_ns, .pauses = 1};
	uint32_t n = 0;

	if (m->paused_ns) {
		r[n++] = (struct profrun_region){PROFRUN_REGION_PAUSE, 1, 0,
						 m->pause_off, sizeof(z)};
		memcpy(buf + m->pause_off, &z, sizeof(z));
	}
	if (m->frames) {
		r[n++] = (struct profrun_region){PROFRUN_REGION_FRAMES, 1, 0,
						 m->frames_off, m->frames_size};
		memcpy(buf + m->frames_off, m->frames, m->frames_size);
	}
	memcpy(buf + m->hdr.regions_off, r, n * sizeof(r[0]));
}

/* Put the PCs of O in their slots (found as the shim finds them); what
 * finds none is counted in pcs_lost. */
static void
fill_pcs(uint8_t *buf, struct profrun_header *h, const struct member_outside *o)
{
	struct profrun_pc slot;
	uint64_t key, mask = h->pc_slots - 1, at;
	uint32_t probe;
	size_t i;

	for (i = 0; i < o->npcs; i++) {
		key = o->pcs[i].addr | 1ull << PROFRUN_PC_BITS;
		at = (key * 0x9e3779b97f4a7c15ull) >> 40;
		for (probe = 0; probe < h->pc_slots; probe++) {
			memcpy(&slot,
			       buf + h->pcs_off +
				       ((at + probe) & mask) * sizeof(slot),
			       sizeof(slot));
			if (slot.key == 0)
				break;
		}
		if (probe == h->pc_slots) {
			h->pcs_lost += o->pcs[i].count;
			h->flags |= PROFRUN_F_PC_OVERFLOW;
			continue;
		}
		if (probe + 1 > h->pc_probe)
			h->pc_probe = probe + 1;
		slot = (struct profrun_pc){key, o->pcs[i].count};
		memcpy(buf + h->pcs_off + ((at + probe) & mask) * sizeof(slot),
		       &slot, sizeof(slot));
	}
}

static void
fill_modules(uint8_t *buf, const struct profrun_header *h,
	     const struct member_outside *o)
{
	struct profrun_module rec;
	uint64_t str = h->modstr_off;
	size_t i;

	for (i = 0; i < o->nmods; i++) {
		const struct member_module *m = &o->mods[i];

		rec = (struct profrun_module){.start = m->start,
					      .end = m->end,
					      .load_bias = m->bias,
					      .path_off = (uint32_t)str,
					      .kind = m->kind,
					      .gen_loaded = 1};
		rec.build_id_len = (uint32_t)hex_parse(
			m->build_id, rec.build_id, PROFRUN_BUILD_ID_MAX);
		memcpy(buf + h->modules_off + i * sizeof(rec), &rec,
		       sizeof(rec));
		strcpy((char *)buf + str, m->path);
		str += strlen(m->path) + 1;
	}
	if (h->vdso_size)
		memcpy(buf + h->vdso_off, o->vdso, h->vdso_size);
}

static void
fill(uint8_t *buf, struct member *m)
{
	const struct profrun_header *h = &m->hdr;
	struct profrun_wrap w;
	uint64_t i, slot = 0;
	uint16_t v;

	if (m->outside) {
		fill_pcs(buf, &m->hdr, m->outside);
		fill_modules(buf, h, m->outside);
	}
	if (m->paused_ns || m->frames)
		fill_listed(buf, m);
	memcpy(buf, h, sizeof(*h));
	strcpy((char *)buf + h->exe_off, m->exe);
	if (m->note)
		strcpy((char *)buf + h->note_off, m->note);
	for (i = 0; i < m->n; i++) {
		const struct profile_sample *s = &m->samples[i];
		uint64_t b = (s->addr - h->text_start) / h->bucket_size;

		v = (uint16_t)(s->count & 0xffff);
		memcpy(buf + h->hist_off + b * 2, &v, 2);
		if (s->count <= 0xffff)
			continue;
		w.key = b + 1;
		w.wraps = s->count >> 16;
		memcpy(buf + h->wraps_off + slot++ * sizeof(w), &w, sizeof(w));
	}
}

static int
write_all(int fd, const uint8_t *buf, size_t size)
{
	ssize_t r;

	while (size > 0) {
		r = write(fd, buf, size);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -1;
		buf += r;
		size -= (size_t)r;
	}
	return 0;
}

int
member_write(const char *path, struct member *m)
{
	uint8_t *buf;
	int fd, ret;

	layout(m);
	buf = calloc(1, m->hdr.file_size);
	if (!buf) {
		cli_error("%s: out of memory", path);
		return -1;
	}
	fill(buf, m);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		  0600);
	ret = fd < 0 ? -1 : write_all(fd, buf, m->hdr.file_size);
	if (fd >= 0 && close(fd) != 0)
		ret = -1;
	if (ret)
		cli_error("%s: %s", path, strerror(errno));
	free(buf);
	return ret;
}

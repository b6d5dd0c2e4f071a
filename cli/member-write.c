/* SPDX-License-Identifier: MIT */
/*
 * Writer of member files (include/profrun/format.h) from exact counts:
 * the layout the shim uses (header, strings, carry table, histogram),
 * with a carry table of wrap_slots entries, a power of two at least
 * twice the number of buckets above 65535.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "member-write.h"

#define ALIGN(x, a) (((x) + (a)-1) & ~((uint64_t)(a)-1))

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
	clear_outside(h);
}

static void
fill(uint8_t *buf, const struct member *m)
{
	const struct profrun_header *h = &m->hdr;
	struct profrun_wrap w;
	uint64_t i, slot = 0;
	uint16_t v;

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
		  0644);
	ret = fd < 0 ? -1 : write_all(fd, buf, m->hdr.file_size);
	if (fd >= 0 && close(fd) != 0)
		ret = -1;
	if (ret)
		cli_error("%s: %s", path, strerror(errno));
	free(buf);
	return ret;
}

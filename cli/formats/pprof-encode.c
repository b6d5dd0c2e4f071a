/* SPDX-License-Identifier: MIT */
/* Protocol buffers wire format (varints and length-delimited fields),
 * an interned string table, and gzip with zlib. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "array.h"
#include "pprof-encode.h"
#include "strmap.h"
#include "utf8.h"

static void
pb_raw(struct pbuf *b, const void *data, size_t len)
{
	size_t cap;
	uint8_t *d;

	if (b->oom || len == 0) /* an empty part: DATA may be NULL */
		return;
	if (b->n + len > b->cap) {
		cap = b->cap ? b->cap : 256;
		while (cap < b->n + len)
			cap *= 2;
		d = realloc(b->d, cap);
		if (!d) {
			b->oom = true;
			return;
		}
		b->d = d;
		b->cap = cap;
	}
	memcpy(b->d + b->n, data, len);
	b->n += len;
}

static void
pb_varint(struct pbuf *b, uint64_t v)
{
	uint8_t buf[10];
	size_t n = 0;

	do {
		buf[n] = (uint8_t)(v & 0x7f);
		v >>= 7;
		if (v)
			buf[n] |= 0x80;
		n++;
	} while (v);
	pb_raw(b, buf, n);
}

void
pbuf_fini(struct pbuf *b)
{
	free(b->d);
	memset(b, 0, sizeof(*b));
}

void
pb_uint(struct pbuf *b, int num, uint64_t v)
{
	if (v == 0)
		return;
	pb_varint(b, (uint64_t)num << 3);
	pb_varint(b, v);
}

void
pb_bytes(struct pbuf *b, int num, const void *data, size_t len)
{
	pb_varint(b, (uint64_t)num << 3 | 2);
	pb_varint(b, len);
	pb_raw(b, data, len);
}

void
pb_message(struct pbuf *b, int num, const struct pbuf *msg)
{
	b->oom |= msg->oom;
	pb_bytes(b, num, msg->d, msg->n);
}

void
pb_packed(struct pbuf *b, int num, const uint64_t *v, size_t n)
{
	struct pbuf p = {0};
	size_t i;

	for (i = 0; i < n; i++)
		pb_varint(&p, v[i]);
	pb_message(b, num, &p);
	pbuf_fini(&p);
}

void
pb_append(struct pbuf *b, const struct pbuf *src)
{
	b->oom |= src->oom;
	pb_raw(b, src->d, src->n);
}

/* ---------------------------------------------------------------- strings */

static int
strtab_grow(struct strtab *t)
{
	size_t n = t->nslots ? t->nslots * 2 : 1024, i, j;
	size_t *slots = calloc(n, sizeof(*slots));

	if (!slots)
		return -1;
	for (i = 0; i < t->n; i++) {
		for (j = str_hash(t->v[i]) & (n - 1); slots[j];
		     j = (j + 1) & (n - 1))
			;
		slots[j] = i + 1;
	}
	free(t->slots);
	t->slots = slots;
	t->nslots = n;
	return 0;
}

void
strtab_init(struct strtab *t)
{
	memset(t, 0, sizeof(*t));
	strtab_index(t, "");
}

void
strtab_fini(struct strtab *t)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		free(t->v[i]);
	free(t->v);
	free(t->slots);
	memset(t, 0, sizeof(*t));
}

static uint64_t
strtab_add(struct strtab *t, const char *s, size_t slot)
{
	if (ARRAY_GROW(t->v, t->cap, t->n, 256)) {
		t->oom = true;
		return 0;
	}
	t->v[t->n] = strdup(s);
	if (!t->v[t->n]) {
		t->oom = true;
		return 0;
	}
	t->slots[slot] = ++t->n;
	return t->n - 1;
}

uint64_t
strtab_index(struct strtab *t, const char *s)
{
	size_t j, mask;

	if (t->oom)
		return 0;
	if (2 * (t->n + 1) > t->nslots && strtab_grow(t)) {
		t->oom = true;
		return 0;
	}
	mask = t->nslots - 1;
	for (j = str_hash(s) & mask; t->slots[j]; j = (j + 1) & mask)
		if (strcmp(t->v[t->slots[j] - 1], s) == 0)
			return t->slots[j] - 1;
	return strtab_add(t, s, j);
}

void
strtab_encode(const struct strtab *t, struct pbuf *b, int num)
{
	size_t i, n;
	char *v;

	b->oom |= t->oom;
	/* protobuf strings are UTF-8; names come from any file */
	for (i = 0; i < t->n; i++) {
		v = utf8_valid(t->v[i], strlen(t->v[i]), &n);
		if (!v) {
			b->oom = true;
			continue;
		}
		pb_bytes(b, num, v, n);
		free(v);
	}
}

/* ---------------------------------------------------------------- gzip */

int
gzip_buffer(const struct pbuf *data, struct pbuf *out)
{
	z_stream z = {0};
	uLong bound;
	int ret;

	/* windowBits 15 + 16: a gzip wrapper with no name and mtime 0 */
	if (deflateInit2(&z, Z_BEST_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK)
		return -1;
	bound = deflateBound(&z, data->n) + 32;
	out->d = malloc(bound);
	if (!out->d) {
		deflateEnd(&z);
		return -1;
	}
	out->cap = bound;
	z.next_in = data->d;
	z.avail_in = (uInt)data->n;
	z.next_out = out->d;
	z.avail_out = (uInt)bound;
	ret = deflate(&z, Z_FINISH);
	out->n = bound - z.avail_out;
	deflateEnd(&z);
	return ret == Z_STREAM_END ? 0 : -1;
}

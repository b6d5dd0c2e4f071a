/* SPDX-License-Identifier: MIT */
/*
 * Interned copies: a hash table of counted entries, each its bytes and a
 * NUL.  The CLI is single-threaded; the table is shared by the whole
 * process, so that one library path is kept once however many members
 * and records name it.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "intern.h"

struct entry {
	struct entry *next; /* in its bucket */
	uint64_t hash;
	size_t size;
	size_t refs;
	unsigned char data[]; /* SIZE bytes and a NUL */
};

static struct {
	struct entry **v;
	size_t n, cap; /* cap: 0 or a power of two */
	size_t bytes;
} table;

/* Eight bytes at a time: every member of a run interns the vdso image
 * (8 KiB), and a byte at a time that was a tenth of reading the member. */
static uint64_t
hash_bytes(const unsigned char *p, size_t n)
{
	uint64_t h = 14695981039346656037ull ^ n, w;

	for (; n >= 8; p += 8, n -= 8) {
		memcpy(&w, p, sizeof(w));
		h = (h ^ w) * 0x9e3779b97f4a7c15ull;
		h ^= h >> 29;
	}
	while (n-- > 0)
		h = (h ^ *p++) * 1099511628211ull;
	return h ^ (h >> 32);
}

static struct entry *
entry_of(const void *p)
{
	return (struct entry *)((const unsigned char *)p -
				offsetof(struct entry, data));
}

static int
grow(void)
{
	size_t cap = table.cap ? table.cap * 2 : 64, i;
	struct entry **v = calloc(cap, sizeof(*v)), *e, *next;

	if (!v)
		return -1;
	for (i = 0; i < table.cap; i++) {
		for (e = table.v[i]; e; e = next) {
			next = e->next;
			e->next = v[e->hash & (cap - 1)];
			v[e->hash & (cap - 1)] = e;
		}
	}
	free(table.v);
	table.v = v;
	table.cap = cap;
	return 0;
}

const void *
intern(const void *data, size_t size)
{
	uint64_t h = hash_bytes(data, size);
	struct entry *e;

	for (e = table.cap ? table.v[h & (table.cap - 1)] : NULL; e;
	     e = e->next)
		if (e->hash == h && e->size == size &&
		    memcmp(e->data, data, size) == 0) {
			e->refs++;
			return e->data;
		}
	if (table.n >= table.cap / 2 && grow())
		return NULL;
	if (size > SIZE_MAX - sizeof(*e) - 1)
		return NULL;
	e = malloc(sizeof(*e) + size + 1);
	if (!e)
		return NULL;
	e->hash = h;
	e->size = size;
	e->refs = 1;
	memcpy(e->data, data, size);
	e->data[size] = '\0';
	e->next = table.v[h & (table.cap - 1)];
	table.v[h & (table.cap - 1)] = e;
	table.n++;
	table.bytes += size;
	return e->data;
}

const char *
intern_str(const char *s)
{
	return intern(s, strlen(s));
}

const void *
intern_hold(const void *p)
{
	entry_of(p)->refs++;
	return p;
}

void
intern_release(const void *p)
{
	struct entry *e, **link;

	if (!p)
		return;
	e = entry_of(p);
	if (--e->refs > 0)
		return;
	for (link = &table.v[e->hash & (table.cap - 1)]; *link != e;
	     link = &(*link)->next)
		;
	*link = e->next;
	table.n--;
	table.bytes -= e->size;
	free(e);
	if (table.n == 0) {
		free(table.v);
		memset(&table, 0, sizeof(table));
	}
}

size_t
intern_count(size_t *bytes)
{
	if (bytes)
		*bytes = table.bytes;
	return table.n;
}

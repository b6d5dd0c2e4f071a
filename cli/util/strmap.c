/* SPDX-License-Identifier: MIT */
/* Open addressing with linear probing, FNV-1a hashes, at most half full. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "strmap.h"

uint64_t
str_hash(const char *s)
{
	uint64_t h = 14695981039346656037ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

static struct strmap_slot *
find(struct strmap_slot *v, size_t cap, const char *key)
{
	size_t i = (size_t)str_hash(key) & (cap - 1);

	while (v[i].key && strcmp(v[i].key, key) != 0)
		i = (i + 1) & (cap - 1);
	return &v[i];
}

static int
grow(struct strmap *m)
{
	size_t cap = m->cap ? m->cap * 2 : 64, i;
	struct strmap_slot *v = calloc(cap, sizeof(*v));

	if (!v)
		return -1;
	for (i = 0; i < m->cap; i++)
		if (m->v[i].key)
			*find(v, cap, m->v[i].key) = m->v[i];
	free(m->v);
	m->v = v;
	m->cap = cap;
	return 0;
}

struct strmap_slot *
strmap_get(struct strmap *m, const char *key)
{
	struct strmap_slot *s;

	if (2 * (m->n + 1) > m->cap && grow(m))
		return NULL;
	s = find(m->v, m->cap, key);
	if (s->key)
		return s;
	s->key = strdup(key);
	if (!s->key)
		return NULL;
	s->value = NULL;
	m->n++;
	return s;
}

const char *
strmap_intern(struct strmap *m, const char *key)
{
	struct strmap_slot *s = strmap_get(m, key);

	return s ? s->key : NULL;
}

void
strmap_fini(struct strmap *m, void (*free_value)(void *))
{
	size_t i;

	for (i = 0; i < m->cap; i++) {
		if (!m->v[i].key)
			continue;
		free(m->v[i].key);
		if (free_value && m->v[i].value)
			free_value(m->v[i].value);
	}
	free(m->v);
	m->v = NULL;
	m->n = m->cap = 0;
}

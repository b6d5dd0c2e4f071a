/* SPDX-License-Identifier: MIT */
/* Open addressing with linear probing, at most half full; a slot counts as
 * used once its value is non-zero. */
#include <stdlib.h>

#include "u64map.h"

static size_t
slot_of(uint64_t key, size_t cap)
{
	key ^= key >> 33;
	key *= 0xff51afd7ed558ccdull;
	key ^= key >> 33;
	return (size_t)key & (cap - 1);
}

static struct u64map_slot *
find(struct u64map_slot *v, size_t cap, uint64_t key)
{
	size_t i = slot_of(key, cap);

	while (v[i].value && v[i].key != key)
		i = (i + 1) & (cap - 1);
	return &v[i];
}

/* Double the table, recounting the slots in use. */
static int
grow(struct u64map *m)
{
	size_t cap = m->cap ? m->cap * 2 : 64, i, n = 0;
	struct u64map_slot *v = calloc(cap, sizeof(*v));

	if (!v)
		return -1;
	for (i = 0; i < m->cap; i++)
		if (m->v[i].value) {
			*find(v, cap, m->v[i].key) = m->v[i];
			n++;
		}
	free(m->v);
	m->v = v;
	m->cap = cap;
	m->n = n;
	return 0;
}

size_t *
u64map_get(struct u64map *m, uint64_t key)
{
	struct u64map_slot *s;

	/* n counts every slot handed out, used or not: a bound, not a count */
	if (2 * (m->n + 1) > m->cap && grow(m))
		return NULL;
	s = find(m->v, m->cap, key);
	if (!s->value) {
		s->key = key;
		m->n++;
	}
	return &s->value;
}

void
u64map_fini(struct u64map *m)
{
	free(m->v);
	m->v = NULL;
	m->n = m->cap = 0;
}

/* SPDX-License-Identifier: MIT */
/* A string-keyed hash map: interned strings and per-name caches. */
#ifndef PROFRUN_CLI_STRMAP_H
#define PROFRUN_CLI_STRMAP_H

#include <stddef.h>
#include <stdint.h>

struct strmap_slot {
	char *key; /* owned copy */
	void *value;
};

struct strmap {
	struct strmap_slot *v;
	size_t n, cap; /* cap is 0 or a power of two */
};

/* FNV-1a hash of S. */
uint64_t str_hash(const char *s);

/* The slot of KEY, created (value NULL) when absent; NULL when out of
 * memory.  Slots move when the map grows: use one before the next call. */
struct strmap_slot *strmap_get(struct strmap *m, const char *key);

/* The map's own copy of KEY (the same pointer for equal strings), or NULL
 * when out of memory. */
const char *strmap_intern(struct strmap *m, const char *key);

/* Free the keys, and each value with FREE_VALUE unless it is NULL. */
void strmap_fini(struct strmap *m, void (*free_value)(void *));

#endif /* PROFRUN_CLI_STRMAP_H */

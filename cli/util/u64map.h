/* SPDX-License-Identifier: MIT */
/* A map from 64-bit keys to indices: edges of a call graph, children of a
 * tree node. */
#ifndef PROFRUN_CLI_U64MAP_H
#define PROFRUN_CLI_U64MAP_H

#include <stddef.h>
#include <stdint.h>

struct u64map_slot {
	uint64_t key;
	size_t value; /* 0 = free slot; callers store index + 1 */
};

struct u64map {
	struct u64map_slot *v;
	size_t n, cap; /* cap is 0 or a power of two */
};

/* The value of KEY, where 0 means absent: set it (non-zero) to add KEY.
 * NULL when out of memory.  Slots move when the map grows: use one
 * before the next call. */
size_t *u64map_get(struct u64map *m, uint64_t key);

void u64map_fini(struct u64map *m);

#endif /* PROFRUN_CLI_U64MAP_H */

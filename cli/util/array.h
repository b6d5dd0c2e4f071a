/* SPDX-License-Identifier: MIT */
/* Arrays that grow by doubling. */
#ifndef PROFRUN_CLI_ARRAY_H
#define PROFRUN_CLI_ARRAY_H

#include <stddef.h>

/* Room for one more element in the array at *VP (a pointer to the array's
 * pointer) of N elements of SIZE bytes, *CAP of them allocated: doubled,
 * or FIRST for an empty array.  0, or -1 when out of memory (the array as
 * it was). */
int array_grow(void *vp, size_t *cap, size_t n, size_t size, size_t first);

/* array_grow() for the array V (an lvalue of pointer type). */
#define ARRAY_GROW(v, cap, n, first)                                           \
	array_grow(&(v), &(cap), (n), sizeof(*(v)), (first))

#endif /* PROFRUN_CLI_ARRAY_H */

/* SPDX-License-Identifier: MIT */
/* Growing arrays (util/array.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"

int
array_grow(void *vp, size_t *cap, size_t n, size_t size, size_t first)
{
	size_t c = *cap ? *cap * 2 : first;
	void *v, *t;

	if (n < *cap)
		return 0;
	if (c <= n)
		c = n + 1;
	if (c > SIZE_MAX / size)
		return -1;
	memcpy(&v, vp, sizeof(v));
	t = realloc(v, c * size);
	if (!t)
		return -1;
	memcpy(vp, &t, sizeof(t));
	*cap = c;
	return 0;
}

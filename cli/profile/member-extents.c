/* SPDX-License-Identifier: MIT */
/*
 * Reading a member by its data extents (SEEK_DATA/SEEK_HOLE): an ended
 * process gave back its all-zero blocks, and a live one never wrote most
 * of its histogram, so only the blocks that hold something are read; the
 * holes stay zero in the (anonymous, zero-filled) buffer.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "array.h"
#include "profile.h"

/* Add [OFF, END) to X.  Returns 0, or -1 when out of memory. */
static int
add_extent(struct profile_extents *x, size_t *cap, uint64_t off, uint64_t end)
{
	if (x->n > 0 && x->v[x->n - 1].end == off) {
		x->v[x->n - 1].end = end;
		return 0;
	}
	if (ARRAY_GROW(x->v, *cap, x->n, 16))
		return -1;
	x->v[x->n].off = off;
	x->v[x->n++].end = end;
	return 0;
}

/* The extents of [0, SIZE) of FD that hold data, into X; false when the
 * file system cannot tell (then everything is data). */
static bool
find_extents(int fd, uint64_t size, struct profile_extents *x)
{
	size_t cap = 0;
	uint64_t off = 0;

	while (off < size) {
		off_t d = lseek(fd, (off_t)off, SEEK_DATA), h;

		if (d < 0 && errno == ENXIO)
			break; /* a hole up to the end */
		if (d < 0)
			goto unknown;
		if ((uint64_t)d >= size)
			break;
		h = lseek(fd, d, SEEK_HOLE);
		if (h < 0 || h <= d)
			goto unknown;
		if ((uint64_t)h > size)
			h = (off_t)size;
		if (add_extent(x, &cap, (uint64_t)d, (uint64_t)h))
			goto unknown;
		off = (uint64_t)h;
	}
	return true;
unknown:
	free(x->v);
	x->v = NULL;
	x->n = 0;
	return false;
}

int
profile_read_extents(int fd, uint8_t *buf, uint64_t size,
		     struct profile_extents *x)
{
	size_t cap = 0;

	x->v = NULL;
	x->n = 0;
	x->known = find_extents(fd, size, x);
	if (!x->known && add_extent(x, &cap, 0, size))
		return -1;
	errno = 0; /* stays 0 when the file ends first */
	for (size_t i = 0; i < x->n; i++)
		if (profile_pread_all(fd, buf + x->v[i].off,
				      x->v[i].end - x->v[i].off, x->v[i].off))
			return -1;
	return 0;
}

/* SPDX-License-Identifier: MIT */
/* One shared copy of each string or byte image the CLI keeps many of
 * (module paths of every member, vdso images, PLT names), counted. */
#ifndef PROFRUN_CLI_INTERN_H
#define PROFRUN_CLI_INTERN_H

#include <stddef.h>

/* The shared copy of the SIZE bytes at DATA (followed by a NUL, so a
 * string's copy is a string), with one more reference; NULL when out of
 * memory.  Equal contents give the same pointer. */
const void *intern(const void *data, size_t size);

/* intern() of the string S. */
const char *intern_str(const char *s);

/* One more reference to P, a copy intern() returned; returns P. */
const void *intern_hold(const void *p);

/* Drop one reference to P (NULL is ignored); the copy is freed with the
 * last. */
void intern_release(const void *p);

/* Copies held, and their bytes (for tests). */
size_t intern_count(size_t *bytes);

#endif /* PROFRUN_CLI_INTERN_H */

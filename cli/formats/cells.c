/* SPDX-License-Identifier: MIT */
/* Table cells shared by the formats that print columns: a function's
 * name beside a module column, names elided to fit. */
#include <stdio.h>
#include <string.h>

#include "formats.h"

/* Bytes of S (LEN long) from AT that are not the start of a character:
 * UTF-8 continuation bytes, so that a cut never splits a character. */
static size_t
continuation(const char *s, size_t len, size_t at)
{
	size_t n = 0;

	while (at + n < len && ((unsigned char)s[at + n] & 0xc0) == 0x80)
		n++;
	return n;
}

const char *
cell_elide(const char *s, size_t width, char *buf, size_t size)
{
	size_t len = strlen(s), head, tail;

	if (len <= width || width < 5 || size < width + 1)
		return s;
	/* the head, "..", the tail: a library's version and a function's
	 * last part (its own name, a clone's suffix) stay */
	head = (width - 2) / 2;
	tail = width - 2 - head;
	while (head > 0 && ((unsigned char)s[head] & 0xc0) == 0x80)
		head--;
	tail -= continuation(s, len, len - tail);
	memcpy(buf, s, head);
	memcpy(buf + head, "..", 2);
	memcpy(buf + head + 2, s + len - tail, tail + 1);
	return buf;
}

bool
func_unnamed(const struct func *f)
{
	const char *space = strchr(f->name, ' ');

	return f->name[0] == '[' && f->file == NULL && f->caller == NULL &&
	       space != NULL && strncmp(space, " 0x", 3) == 0;
}

const char *
cell_function(const struct func *f, bool module_column, char *buf, size_t size)
{
	const char *space = strchr(f->name, ' ');

	/* "[zstd 0x10-0x80]" says its module twice beside a module column */
	if (!module_column || !func_unnamed(f) ||
	    (size_t)snprintf(buf, size, "[%s", space + 1) >= size)
		return f->name;
	return buf;
}

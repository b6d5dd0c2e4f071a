/* SPDX-License-Identifier: MIT */
/*
 * Perf maps and jitdumps (tools/perf/Documentation/jitdump-specification.txt
 * in the kernel's tree) into one table of named code.  Every length and
 * count in them is checked against the bytes there are; what makes no
 * sense is counted in refused and skipped, never trusted.  Code written
 * later at an address (a runtime reuses the memory of code it dropped)
 * wins over code written there before.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "jit-names.h"

#define MAX_ENTRIES	(2u << 20) /* named pieces of code kept */
#define MAX_NAME	4096u	   /* bytes of a name kept */
#define MAX_BACK	4096u	   /* entries a lookup looks back over */
#define DUMP_MAGIC	0x4A695444u
#define DUMP_HEAD	40u
#define REC_HEAD	16u
#define REC_CODE_LOAD	0u
#define REC_DEBUG_INFO	2u
#define LOAD_FIXED	40u	   /* pid, tid, vma, code_addr, size, index */
#define DEBUG_FIXED	16u	   /* code_addr, nr_entry */
#define DEBUG_ENTRY_MIN 17u	   /* addr, line, discrim, at least a NUL */
#define DEBUG_SPAN	(1u << 24) /* farthest a line lies past its code */

static int
add_sym(struct jit_names *j, uint64_t start, uint64_t size, const char *name,
	size_t len)
{
	struct jit_sym *s;

	if (size == 0 || start + size < start || len == 0 ||
	    j->n >= MAX_ENTRIES) {
		j->refused++;
		return 0;
	}
	if (ARRAY_GROW(j->v, j->cap, j->n, 256))
		return -1;
	s = &j->v[j->n];
	s->name = strndup(name, len < MAX_NAME ? len : MAX_NAME);
	if (!s->name)
		return -1;
	s->start = start;
	s->end = start + size;
	s->seq = j->seq++;
	j->n++;
	return 0;
}

/* ---------------------------------------------------------------- perf map */
/* A hex number, "0x" allowed, at [*P, END); moves *P past it. */
static bool
map_hex(const char **p, const char *end, uint64_t *v)
{
	const char *s = *p;
	int d;

	if (end - s > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	*v = 0;
	for (*p = s; s < end; s++) {
		if (*s >= '0' && *s <= '9')
			d = *s - '0';
		else if (*s >= 'a' && *s <= 'f')
			d = *s - 'a' + 10;
		else if (*s >= 'A' && *s <= 'F')
			d = *s - 'A' + 10;
		else
			break;
		if (*v >> 60)
			return false;
		*v = *v << 4 | (uint64_t)d;
	}
	if (s == *p)
		return false;
	*p = s;
	return true;
}

static int
map_line(struct jit_names *j, const char *s, const char *end)
{
	uint64_t start, size;

	if (end > s && end[-1] == '\r')
		end--;
	if (s == end)
		return 0;
	if (!map_hex(&s, end, &start) || s == end || *s++ != ' ' ||
	    !map_hex(&s, end, &size) || s == end || *s++ != ' ') {
		j->refused++;
		return 0;
	}
	return add_sym(j, start, size, s, (size_t)(end - s));
}

int
jit_names_parse_map(struct jit_names *j, const char *buf, size_t len,
		    bool complete)
{
	const char *end = buf + len, *nl;

	while (buf < end) {
		nl = memchr(buf, '\n', (size_t)(end - buf));
		if (!nl && !complete)
			break;
		if (map_line(j, buf, nl ? nl : end))
			return -1;
		buf = nl ? nl + 1 : end;
	}
	return 0;
}

/* ---------------------------------------------------------------- jitdump */
static uint32_t
u32_at(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static uint64_t
u64_at(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* A NUL-terminated string in [P, END): its length, or -1 without NUL. */
static long
str_len(const uint8_t *p, const uint8_t *end)
{
	const uint8_t *z = memchr(p, '\0', (size_t)(end - p));

	return z ? (long)(z - p) : -1;
}

static int
code_load(struct jit_names *j, const uint8_t *p, const uint8_t *end)
{
	long n;

	if (end - p < (long)LOAD_FIXED + 1 ||
	    (n = str_len(p + LOAD_FIXED, end)) < 0) {
		j->refused++;
		return 0;
	}
	return add_sym(j, u64_at(p + 16), u64_at(p + 24),
		       (const char *)p + LOAD_FIXED, (size_t)n);
}

/* The file name NAME (LEN bytes) kept once for this record's lines. */
static const char *
keep_file(struct jit_names *j, const char *name, size_t len, const char *last)
{
	char *f;

	if (last && strlen(last) == len && memcmp(last, name, len) == 0)
		return last;
	if (ARRAY_GROW(j->files, j->files_cap, j->nfiles, 16))
		return NULL;
	f = strndup(name, len < MAX_NAME ? len : MAX_NAME);
	if (f)
		j->files[j->nfiles++] = f;
	return f;
}

/* Whether the LEN bytes at S can be a file name: no control character
 * (a writer that put other bytes there lost its place in the record). */
static bool
file_name_ok(const uint8_t *s, long len)
{
	for (long i = 0; i < len; i++)
		if (s[i] < 0x20 || s[i] == 0x7f)
			return false;
	return true;
}

static int
debug_info(struct jit_names *j, const uint8_t *p, const uint8_t *end)
{
	const char *file = NULL;
	uint64_t n, i, code;
	long len;

	if (end - p < (long)DEBUG_FIXED) {
		j->refused++;
		return 0;
	}
	code = u64_at(p);
	n = u64_at(p + 8);
	if (n > (uint64_t)(end - p - DEBUG_FIXED) / DEBUG_ENTRY_MIN) {
		j->refused++;
		return 0;
	}
	for (p += DEBUG_FIXED, i = 0; i < n; i++) {
		struct jit_line *l;

		if (end - p < (long)DEBUG_ENTRY_MIN ||
		    (len = str_len(p + 16, end)) < 0 ||
		    j->nlines >= MAX_ENTRIES || u64_at(p) < code ||
		    u64_at(p) - code >= DEBUG_SPAN) {
			j->refused++;
			return 0;
		}
		/* "\xff" alone: the same file as the entry before */
		if (len == 1 && p[16] == 0xff) {
			if (!file) {
				j->refused++;
				return 0;
			}
		} else if (!file_name_ok(p + 16, len)) {
			j->refused++;
			return 0;
		} else
			file = keep_file(j, (const char *)p + 16, (size_t)len,
					 file);
		if (!file || ARRAY_GROW(j->lines, j->lines_cap, j->nlines, 256))
			return -1;
		l = &j->lines[j->nlines++];
		l->addr = u64_at(p);
		l->line = u32_at(p + 8);
		l->file = file;
		l->seq = j->seq++;
		p += 16 + (size_t)len + 1;
	}
	return 0;
}

int
jit_names_parse_dump(struct jit_names *j, const uint8_t *buf, size_t len)
{
	const uint8_t *p, *end = buf + len;
	uint32_t head, id, size;
	int ret = 0;

	if (len < DUMP_HEAD || u32_at(buf) != DUMP_MAGIC)
		return 1;
	head = u32_at(buf + 8);
	if (head < DUMP_HEAD || head > len)
		return 1;
	for (p = buf + head; ret == 0 && end - p >= (long)REC_HEAD; p += size) {
		id = u32_at(p);
		size = u32_at(p + 4);
		if (size < REC_HEAD || size > (size_t)(end - p))
			break; /* cut short, or nonsense: nothing after */
		if (id == REC_CODE_LOAD)
			ret = code_load(j, p + REC_HEAD, p + size);
		else if (id == REC_DEBUG_INFO)
			ret = debug_info(j, p + REC_HEAD, p + size);
	}
	return ret;
}

/* ---------------------------------------------------------------- lookups */
static int
by_start(const void *a, const void *b)
{
	const struct jit_sym *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int
by_addr(const void *a, const void *b)
{
	const struct jit_line *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

int
jit_names_finish(struct jit_names *j)
{
	uint64_t hi = 0;

	if (j->n > 0)
		qsort(j->v, j->n, sizeof(*j->v), by_start);
	if (j->nlines > 0)
		qsort(j->lines, j->nlines, sizeof(*j->lines), by_addr);
	free(j->max_end);
	j->max_end = malloc((j->n ? j->n : 1) * sizeof(*j->max_end));
	if (!j->max_end)
		return -1;
	for (size_t i = 0; i < j->n; i++) {
		if (j->v[i].end > hi)
			hi = j->v[i].end;
		j->max_end[i] = hi;
	}
	return 0;
}

const struct jit_sym *
jit_names_find(const struct jit_names *j, uint64_t pc)
{
	const struct jit_sym *best = NULL;
	size_t lo = 0, hi = j->n, mid, back = 0;

	if (!j->max_end)
		return NULL;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (j->v[mid].start <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	while (lo > 0 && j->max_end[lo - 1] > pc && back++ < MAX_BACK) {
		lo--;
		if (pc < j->v[lo].end && (!best || j->v[lo].seq > best->seq))
			best = &j->v[lo];
	}
	return best;
}

uint32_t
jit_names_line(const struct jit_names *j, const struct jit_sym *s, uint64_t pc,
	       const char **file)
{
	size_t lo = 0, hi = j->nlines, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (j->lines[mid].addr <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || j->lines[lo - 1].addr < s->start)
		return 0;
	*file = j->lines[lo - 1].file;
	return j->lines[lo - 1].line;
}

void
jit_names_fini(struct jit_names *j)
{
	for (size_t i = 0; i < j->n; i++)
		free(j->v[i].name);
	for (size_t i = 0; i < j->nfiles; i++)
		free(j->files[i]);
	free(j->v);
	free(j->max_end);
	free(j->lines);
	free(j->files);
	memset(j, 0, sizeof(*j));
}

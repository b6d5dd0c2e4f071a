/* SPDX-License-Identifier: MIT */
/*
 * The process's mappings as /proc/self/maps lists them, one line at a
 * time, read with system calls only into the caller's stack: what the
 * link maps do not show (a second mapping of a file, as node maps its
 * embedded builtins again; code a runtime compiled into anonymous
 * memory; the marker file a jitdump writer maps).  The handler reads the
 * list too (jit.c), so what it reaches calls no library function but
 * syscall(): the strings are compared by hand.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "shim.h"
#include "sample/sample.h"
#include "sys.h"

#define MAPS_CHUNK 1024u /* read at a time: little stack in a handler */

/* Async-signal-safe, calls nothing. */
size_t
maps_strlen(const char *s)
{
	size_t n = 0;

	/* volatile: a loop the compiler would make a call to strlen */
	while (((const volatile char *)s)[n] != '\0')
		n++;
	return n;
}

/* Async-signal-safe, calls nothing. */
bool
maps_has_prefix(const char *s, const char *prefix)
{
	while (*prefix != '\0')
		if (*s++ != *prefix++)
			return false;
	return true;
}

/* The hex number at *S; moves *S past it.  False when there is none. */
static bool
hex(const char **s, uint64_t *v)
{
	const char *p = *s;
	int d;

	*v = 0;
	for (;; p++) {
		if (*p >= '0' && *p <= '9')
			d = *p - '0';
		else if (*p >= 'a' && *p <= 'f')
			d = *p - 'a' + 10;
		else
			break;
		if (*v >> 60)
			return false;
		*v = *v << 4 | (uint64_t)d;
	}
	if (p == *s)
		return false;
	*s = p;
	return true;
}

/* Skip the field at *S and the blanks after it. */
static void
skip_field(const char **s)
{
	while (**s != '\0' && **s != ' ')
		(*s)++;
	while (**s == ' ')
		(*s)++;
}

/* Parse one line "START-END PERMS OFFSET DEV INODE   PATH" into E (its
 * path points into LINE).  False for a line of another shape.  Pure. */
static bool
parse_line(const char *line, struct maps_entry *e)
{
	const char *s = line;

	if (!hex(&s, &e->start) || *s++ != '-' || !hex(&s, &e->end) ||
	    *s++ != ' ' || e->start >= e->end || maps_strlen(s) < 5)
		return false;
	e->read = s[0] == 'r';
	e->exec = s[2] == 'x';
	skip_field(&s);
	if (!hex(&s, &e->offset))
		return false;
	skip_field(&s); /* offset's end */
	skip_field(&s); /* device */
	skip_field(&s); /* inode */
	e->path = s;
	return true;
}

/* Async-signal-safe (open, read, close through syscall()). */
int
maps_each(int (*fn)(const struct maps_entry *e, void *arg), void *arg)
{
	char chunk[MAPS_CHUNK], line[PATH_MAX + 128];
	size_t len = 0;
	bool too_long = false;
	struct maps_entry e;
	ssize_t n;
	int fd = (int)syscall(SYS_openat, AT_FDCWD, "/proc/self/maps",
			      O_RDONLY | O_CLOEXEC),
	    r = 0;

	if (fd < 0)
		return -1;
	while (r == 0 &&
	       (n = syscall(SYS_read, fd, chunk, sizeof(chunk))) > 0) {
		for (ssize_t i = 0; i < n && r == 0; i++) {
			if (chunk[i] != '\n') {
				if (len + 1 < sizeof(line))
					((volatile char *)line)[len++] =
						chunk[i];
				else
					too_long = true;
				continue;
			}
			line[len] = '\0';
			if (!too_long && parse_line(line, &e))
				r = fn(&e, arg);
			len = 0;
			too_long = false;
		}
	}
	syscall(SYS_close, fd);
	return r;
}

/* Pure, calls nothing. */
bool
maps_compiled_code(const char *path)
{
	static const char deleted[] = " (deleted)";
	size_t n = maps_strlen(path), k = sizeof(deleted) - 1;

	return path[0] == '\0' || maps_has_prefix(path, "[anon:") ||
	       maps_has_prefix(path, "/memfd:") ||
	       (n > k && maps_has_prefix(path + n - k, deleted));
}

/* Async-signal-safe (open, read, close). */
bool
maps_file_bias(const char *path, uint64_t start, uint64_t offset,
	       uint64_t *bias)
{
	union {
		ElfW(Ehdr) e;
		char b[4096];
	} u;
	ElfW(Phdr) ph;
	int fd = sys_open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	ssize_t n;

	if (fd < 0)
		return false;
	n = read(fd, u.b, sizeof(u.b));
	sys_close(fd);
	if (n < (ssize_t)sizeof(u.e) || memcmp(u.e.e_ident, ELFMAG, SELFMAG) ||
	    u.e.e_ident[EI_CLASS] !=
		    (sizeof(void *) == 8 ? ELFCLASS64 : ELFCLASS32) ||
	    u.e.e_phentsize != sizeof(ElfW(Phdr)) || u.e.e_phoff > (size_t)n ||
	    u.e.e_phnum > ((size_t)n - u.e.e_phoff) / sizeof(ElfW(Phdr)))
		return false;
	for (int i = 0; i < u.e.e_phnum; i++) {
		memcpy(&ph, u.b + u.e.e_phoff + i * sizeof(ph), sizeof(ph));
		if (ph.p_type != PT_LOAD || offset < ph.p_offset ||
		    offset - ph.p_offset >= ph.p_filesz)
			continue;
		*bias = start - (ph.p_vaddr + (offset - ph.p_offset));
		return true;
	}
	return false;
}

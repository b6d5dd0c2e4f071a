/* SPDX-License-Identifier: MIT */
/*
 * Separate debug information.  libdwfl's standard search
 * (dwfl_standard_find_debuginfo) looks for the build-id tree and the
 * .gnu_debuglink file under each root of its path, then asks debuginfod.
 * It skips a debuglink file of another build in silence; profrun first
 * looks at the debuglink candidates itself, so that such a file is named,
 * and so that a --debug-dir holding the debug file directly is enough.
 */
#define _GNU_SOURCE
#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "file.h"
#include "debuginfo.h"
#include "hex.h"

#define STANDARD_PATH ":.debug:/usr/lib/debug"

static char *debuginfo_path;
static const char *const *debug_dirs;
static size_t ndebug_dirs;

int
debuginfo_set_dirs(const char *const *dirs, size_t n)
{
	size_t i, len = sizeof(STANDARD_PATH);
	char *p;

	for (i = 0; i < n; i++)
		len += strlen(dirs[i]) + 1;
	free(debuginfo_path);
	debuginfo_path = p = malloc(len);
	if (!p)
		return -1;
	for (i = 0; i < n; i++)
		p += sprintf(p, "%s:", dirs[i]);
	strcpy(p, STANDARD_PATH);
	debug_dirs = dirs;
	ndebug_dirs = n;
	return 0;
}

/* Does the file open on FD carry build-id WANT?  A mismatch is warned
 * about once per file. */
static bool
same_build(int fd, const char *path, const unsigned char *want, int wlen)
{
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	const void *bits = NULL;
	ssize_t len = elf ? dwelf_elf_gnu_build_id(elf, &bits) : -1;
	bool same = len == wlen && memcmp(bits, want, (size_t)wlen) == 0;
	char *have, *need;

	if (!same) {
		have = len > 0 ? hex_dup(bits, (size_t)len) : strdup("none");
		need = hex_dup(want, (size_t)wlen);
		cli_warn(
			"%s: debug file of another build (build-id %s, the binary's is %s); ignored",
			path, have ? have : "?", need ? need : "?");
		free(have);
		free(need);
	}
	if (elf)
		elf_end(elf);
	return same;
}

/* Open DIR[/SUB]/NAME if it is the debug file of MOD's build. */
static int
try_candidate(const char *dir, const char *sub, const char *name,
	      const unsigned char *id, int idlen, char **found)
{
	char *path;
	int fd;

	if (asprintf(&path, "%s%s/%s", dir, sub ? sub : "", name) < 0)
		return -1;
	fd = cli_open_target(path);
	if (fd >= 0 && !same_build(fd, path, id, idlen)) {
		close(fd);
		fd = -1;
	}
	if (fd >= 0)
		*found = path;
	else
		free(path);
	return fd;
}

/* The .gnu_debuglink candidates: each --debug-dir directly and under the
 * executable's directory, then beside the executable and in .debug/. */
static int
find_debuglink(Dwfl_Module *mod, const char *exe, const char *link,
	       char **found)
{
	const unsigned char *id;
	GElf_Addr vaddr;
	int idlen = dwfl_module_build_id(mod, &id, &vaddr), fd = -1;
	char *exedir = exe ? strdup(exe) : NULL, *slash;
	size_t i;

	if (idlen <= 0 || !link || !exedir || link[0] == '/') {
		free(exedir);
		return -1; /* nothing to check a candidate against */
	}
	slash = strrchr(exedir, '/');
	if (slash)
		*slash = '\0';
	for (i = 0; fd < 0 && i < ndebug_dirs; i++) {
		fd = try_candidate(debug_dirs[i], NULL, link, id, idlen, found);
		if (fd < 0 && slash && exedir[0] == '/')
			fd = try_candidate(debug_dirs[i], exedir, link, id,
					   idlen, found);
	}
	if (fd < 0 && slash)
		fd = try_candidate(exedir, NULL, link, id, idlen, found);
	if (fd < 0 && slash)
		fd = try_candidate(exedir, "/.debug", link, id, idlen, found);
	free(exedir);
	return fd;
}

/* ------------------------------------------------ the search by path */

/* Whether libdwfl's last resort, debuginfod, can find anything: with no
 * server named it returns at once without looking at its cache, so the
 * standard search comes to its local part.  libdwfl loads the client
 * library even then, and curl, gnutls and Kerberos with it: 6 MiB and
 * milliseconds, for nothing.  Asked to be verbose, it prints. */
static bool
debuginfod_may_help(void)
{
	const char *urls = getenv("DEBUGINFOD_URLS");

	return (urls && urls[0]) || getenv("DEBUGINFOD_VERBOSE");
}

/* A candidate of the search by path: open DIR[/SUB]/NAME unless it is
 * the main file itself (MAIN).  -1 with errno set when it cannot be. */
static int
path_try(const struct stat *main, const char *dir, const char *sub,
	 const char *name, char **path)
{
	struct stat st;
	int n, fd;

	if (dir == NULL && sub == NULL)
		n = asprintf(path, "%s", name);
	else if (sub == NULL || dir == NULL)
		n = asprintf(path, "%s/%s", dir ? dir : sub, name);
	else
		n = asprintf(path, "%s/%s/%s", dir, sub, name);
	if (n < 0) {
		errno = ENOMEM;
		return -1;
	}
	fd = cli_open_target(*path);
	if (fd >= 0 && fstat(fd, &st) == 0 && st.st_ino == main->st_ino &&
	    st.st_dev == main->st_dev) {
		close(fd);
		fd = -1;
		errno = ENOENT;
	}
	if (fd < 0) {
		free(*path);
		*path = NULL;
	}
	return fd;
}

/* The file open on FD when it has build-id WANT (WLEN bytes), else -1
 * (FD closed). */
static int
path_valid(int fd, const unsigned char *want, int wlen)
{
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	const void *bits = NULL;
	ssize_t len = elf ? dwelf_elf_gnu_build_id(elf, &bits) : -1;
	bool same = len == wlen && memcmp(bits, want, (size_t)wlen) == 0;

	if (elf)
		elf_end(elf);
	if (same)
		return fd;
	close(fd);
	return -1;
}

/* What one search by path looks for. */
struct path_search {
	const unsigned char *id; /* the module's build-id */
	int idlen;
	struct stat main;  /* the main file (not a debug file of itself) */
	const char *dir;   /* the file's directory, NULL when none */
	const char *base;  /* its name */
	const char *link;  /* the debuglink, or "BASE.debug" */
	bool made_up_link; /* there was none: BASE is tried too */
};

/* Try DIR[/SUB]/LINK, and BASE instead when the link was made up and
 * TRY_BASE.  Returns a descriptor; else -1 with errno 0 when the file
 * found is another build's (this root is done), or as open left it. */
static int
path_candidate(const struct path_search *q, const char *dir, const char *sub,
	       bool try_base, char **found)
{
	int fd = path_try(&q->main, dir, sub, q->link, found);

	if (fd < 0 && try_base)
		fd = path_try(&q->main, dir, sub, q->base, found);
	if (fd < 0)
		return -1;
	fd = path_valid(fd, q->id, q->idlen);
	if (fd < 0) {
		free(*found);
		*found = NULL;
		errno = 0;
	}
	return fd;
}

/* One root of the debug path: "" the file's directory, a relative root
 * a subdirectory of it, an absolute root followed by the file's
 * directory and by each shorter tail of it, then alone.  Returns a
 * descriptor, or -1 with errno 0 to go on with the next root. */
static int
path_root(const struct path_search *q, const char *root, char **found)
{
	const char *sub;
	int fd;

	if (root[0] == '\0')
		fd = path_candidate(q, q->dir, NULL, false, found);
	else if (root[0] != '/')
		fd = path_candidate(q, q->dir, root, q->made_up_link, found);
	else if (q->dir == NULL || q->dir[0] != '/')
		return (errno = 0, -1);
	else
		for (sub = q->dir;;) {
			sub = strchr(sub, '/');
			if (sub)
				sub++;
			if (sub && *sub == '\0')
				return (errno = 0, -1);
			fd = path_candidate(q, root, sub, q->made_up_link,
					    found);
			if (fd >= 0 || !sub ||
			    (errno != ENOENT && errno != ENOTDIR))
				break;
		}
	if (fd < 0 && (errno == ENOENT || errno == ENOTDIR))
		errno = 0;
	return fd;
}

/* libdwfl's search by path (find_debuginfo_in_path) for FILE, whose
 * module has build-id ID: each root of the debug path in turn (a leading
 * + or -, its CRC switch, does not apply to a build-id). */
static int
path_search(const char *file, const char *link, const unsigned char *id,
	    int idlen, char **found)
{
	struct path_search q = {.id = id, .idlen = idlen, .link = link};
	const char *slash = strrchr(file, '/');
	char *dir = slash ? strndup(file, (size_t)(slash - file)) : NULL;
	char *made = NULL, *roots = strdup(debuginfo_path), *rest = roots, *r;
	int fd = -1;

	q.base = slash ? slash + 1 : file;
	q.dir = dir;
	if (stat(file, &q.main) < 0)
		q.main.st_dev = q.main.st_ino = 0;
	if (!link && asprintf(&made, "%s.debug", q.base) >= 0) {
		q.link = made;
		q.made_up_link = true;
	}
	if (rest && (rest[0] == '+' || rest[0] == '-'))
		rest++;
	errno = ENOMEM;
	while (q.link && roots && (slash == NULL || dir) &&
	       (r = strsep(&rest, ":")) != NULL) {
		if (r[0] == '+' || r[0] == '-')
			r++;
		fd = path_root(&q, r, found);
		if (fd >= 0 || errno != 0)
			break;
	}
	free(roots);
	free(made);
	free(dir);
	return fd;
}

/* dwfl_standard_find_debuginfo without debuginfod, for a module with a
 * build-id: the build-id trees, then the search by path, for FILE and
 * then for the file it links to. */
static int
find_locally(Dwfl_Module *mod, const char *file, const char *link, char **found)
{
	const unsigned char *id;
	GElf_Addr vaddr;
	int idlen = dwfl_module_build_id(mod, &id, &vaddr), fd;
	char *canon;

	errno = 0;
	fd = dwfl_build_id_find_debuginfo(mod, NULL, NULL, 0, NULL, NULL, 0,
					  found);
	if (fd >= 0 || errno != 0 || !file)
		return fd;
	fd = path_search(file, link, id, idlen, found);
	if (fd >= 0 || errno != 0)
		return fd;
	canon = realpath(file, NULL);
	if (canon && strcmp(canon, file) != 0)
		fd = path_search(canon, link, id, idlen, found);
	free(canon);
	return fd;
}

static int
find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
	       Dwarf_Addr base, const char *file_name,
	       const char *debuglink_file, GElf_Word debuglink_crc,
	       char **debuginfo_file_name)
{
	const unsigned char *id;
	GElf_Addr vaddr;
	int fd = find_debuglink(mod, file_name, debuglink_file,
				debuginfo_file_name);

	if (fd >= 0)
		return fd;
	if (!debuginfod_may_help() &&
	    dwfl_module_build_id(mod, &id, &vaddr) > 0)
		return find_locally(mod, file_name, debuglink_file,
				    debuginfo_file_name);
	return dwfl_standard_find_debuginfo(mod, userdata, modname, base,
					    file_name, debuglink_file,
					    debuglink_crc, debuginfo_file_name);
}

const Dwfl_Callbacks debuginfo_callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = find_debuginfo,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &debuginfo_path,
};

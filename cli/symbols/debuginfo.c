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
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
	fd = cli_open_regular(path);
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

static int
find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
	       Dwarf_Addr base, const char *file_name,
	       const char *debuglink_file, GElf_Word debuglink_crc,
	       char **debuginfo_file_name)
{
	int fd = find_debuglink(mod, file_name, debuglink_file,
				debuginfo_file_name);

	if (fd >= 0)
		return fd;
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

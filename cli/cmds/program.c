/* SPDX-License-Identifier: MIT */
/* Finding and vetting the program `profrun PROGRAM` is asked to run. */
#define _GNU_SOURCE
#include "config.h"
#include "file.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "program.h"

static bool
is_executable_file(const char *path, int *err)
{
	struct stat st;

	if (stat(path, &st) != 0) {
		*err = errno;
		return false;
	}
	if (!S_ISREG(st.st_mode)) {
		*err = S_ISDIR(st.st_mode) ? EISDIR : EACCES;
		return false;
	}
	if (access(path, X_OK) != 0) {
		*err = errno;
		return false;
	}
	return true;
}

static int
resolve_failure(const char *name, int err)
{
	if (err == ENOENT || err == ENOTDIR) {
		cli_error("%s: program not found", name);
		return 127;
	}
	if (err == EISDIR)
		cli_error("%s: cannot execute: is a directory", name);
	else
		cli_error("%s: cannot execute: %s", name, strerror(err));
	return 126;
}

int
program_resolve(const char *name, char *out, size_t outsz)
{
	const char *path, *p, *end;
	int err = ENOENT, e;
	char buf[PATH_MAX];

	if (name[0] == '\0')
		return resolve_failure(name, ENOENT);
	if (strchr(name, '/')) {
		if (!is_executable_file(name, &err))
			return resolve_failure(name, err);
		snprintf(out, outsz, "%s", name);
		return 0;
	}
	path = getenv("PATH");
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (p = path;; p = end + 1) {
		end = strchrnul(p, ':');
		if ((size_t)snprintf(buf, sizeof(buf), "%.*s%s%s",
				     (int)(end - p), p, end == p ? "" : "/",
				     name) < sizeof(buf)) {
			if (is_executable_file(buf, &e)) {
				snprintf(out, outsz, "%s", buf);
				return 0;
			}
			/* like execvp: a found but unusable file beats "not found" */
			if (e != ENOENT && e != ENOTDIR)
				err = e;
		}
		if (*end == '\0')
			break;
	}
	return resolve_failure(name, err);
}

/* Returns 1 if the ELF file at FD has a PT_INTERP, 0 if not, -1 on error. */
static int
elf_has_interp(int fd)
{
	Elf *elf;
	size_t n, i;
	int ret = 0;
	GElf_Phdr ph;

	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF ||
	    elf_getphdrnum(elf, &n) != 0) {
		if (elf)
			elf_end(elf);
		return -1;
	}
	for (i = 0; i < n; i++) {
		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_INTERP)
			ret = 1;
	}
	elf_end(elf);
	return ret;
}

/* The interpreter named by a "#!" line, into OUT; false if there is none. */
static bool
script_interpreter(const char *head, size_t len, char *out, size_t outsz)
{
	size_t i = 2, j;

	if (len < 2 || head[0] != '#' || head[1] != '!')
		return false;
	while (i < len && (head[i] == ' ' || head[i] == '\t'))
		i++;
	for (j = i;
	     j < len && head[j] != ' ' && head[j] != '\t' && head[j] != '\n';
	     j++)
		;
	if (j == i || j - i >= outsz)
		return false;
	memcpy(out, head + i, j - i);
	out[j - i] = '\0';
	return true;
}

static int
check_file(const char *shown, const char *path, int depth)
{
	char head[256], interp[PATH_MAX];
	ssize_t len;
	int fd, has;

	fd = cli_open_regular(path);
	if (fd < 0) {
		cli_error("%s: cannot open: %s", shown,
			  errno == EINVAL ? "not a regular file"
					  : strerror(errno));
		return 126;
	}
	len = pread(fd, head, sizeof(head), 0);
	if (len >= 4 && memcmp(head, "\177ELF", 4) == 0) {
		has = elf_has_interp(fd);
		close(fd);
		if (has == 0) {
			cli_error(
				"%s: statically linked; LD_PRELOAD cannot reach it, so profrun cannot profile it",
				shown);
			return 126;
		}
		return 0; /* unreadable ELF: let the kernel judge it */
	}
	close(fd);
	if (len > 0 && depth == 0 &&
	    script_interpreter(head, (size_t)len, interp, sizeof(interp)))
		return check_file(shown, interp, 1);
	return 0; /* the kernel (or a shell fallback) decides */
}

/* The PT_INTERP of the ELF file FD into OUT; false when it has none. */
static bool
elf_interp(int fd, char *out, size_t outsz)
{
	Elf *elf;
	size_t n;
	bool found = false;
	GElf_Phdr ph;

	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (elf && elf_kind(elf) == ELF_K_ELF && elf_getphdrnum(elf, &n) == 0)
		for (size_t i = 0; i < n && !found; i++) {
			ssize_t len;

			if (!gelf_getphdr(elf, (int)i, &ph) ||
			    ph.p_type != PT_INTERP)
				continue;
			len = pread(fd, out,
				    ph.p_filesz < outsz ? ph.p_filesz
							: outsz - 1,
				    (off_t)ph.p_offset);
			if (len > 0) {
				out[len] = '\0';
				found = true;
			}
		}
	if (elf)
		elf_end(elf);
	return found;
}

static bool
is_musl(const char *path, int depth)
{
	char head[256], interp[PATH_MAX];
	ssize_t len;
	bool musl = false;
	int fd = cli_open_regular(path);

	if (fd < 0)
		return false;
	len = pread(fd, head, sizeof(head), 0);
	if (len >= 4 && memcmp(head, "\177ELF", 4) == 0)
		musl = elf_interp(fd, interp, sizeof(interp)) &&
		       strstr(interp, "ld-musl") != NULL;
	close(fd);
	if (len > 0 && depth == 0 &&
	    script_interpreter(head, (size_t)len, interp, sizeof(interp)))
		return is_musl(interp, 1);
	return musl;
}

bool
program_is_musl(const char *path)
{
	return is_musl(path, 0);
}

int
program_check_dynamic(const char *path)
{
	return check_file(path, path, 0);
}

bool
program_is_setid(const char *path)
{
	struct stat st;

	if (stat(path, &st) != 0)
		return false;
	/* set-group-ID without group execute marks mandatory locking */
	return (st.st_mode & S_ISUID) ||
	       ((st.st_mode & S_ISGID) && (st.st_mode & S_IXGRP));
}

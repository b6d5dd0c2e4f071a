/* SPDX-License-Identifier: MIT */
/* Opening the files a profile names (executables, libraries, debug files,
 * sources): regular files only, and never a wait on a FIFO or a device. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "array.h"
#include "cli.h"
#include "file.h"

/* The files and directories this command has read, by device and inode:
 * an output never takes the place of one of them. */
static struct input_id {
	dev_t dev;
	ino_t ino;
} * inputs;
static size_t ninputs, inputs_cap;
static bool inputs_lost; /* one could not be noted: refuse any existing */

void
cli_input_note(const struct stat *st)
{
	for (size_t i = 0; i < ninputs; i++)
		if (inputs[i].dev == st->st_dev && inputs[i].ino == st->st_ino)
			return;
	if (ARRAY_GROW(inputs, inputs_cap, ninputs, 16)) {
		inputs_lost = true;
		return;
	}
	inputs[ninputs++] = (struct input_id){st->st_dev, st->st_ino};
}

static bool
is_noted(const struct stat *st)
{
	if (inputs_lost)
		return true;
	for (size_t i = 0; i < ninputs; i++)
		if (inputs[i].dev == st->st_dev && inputs[i].ino == st->st_ino)
			return true;
	return false;
}

bool
cli_is_input(const char *path)
{
	struct stat st;

	/* the name itself (what a rename replaces) or what it leads to */
	return (lstat(path, &st) == 0 && is_noted(&st)) ||
	       (stat(path, &st) == 0 && is_noted(&st));
}

/* Refuse (in one line) an output PATH that is one of the inputs. */
static int
refuse_input(const char *path)
{
	if (!cli_is_input(path))
		return 0;
	cli_error("%s: is one of the inputs; refusing to overwrite it "
		  "(choose another path with -o)",
		  path);
	return -2;
}

int
cli_open_regular(const char *path)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	int flags;

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
		cli_input_note(&st);
	else
		st.st_mode = 0; /* refused below */
	if (!S_ISREG(st.st_mode) || (flags = fcntl(fd, F_GETFL)) < 0 ||
	    fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) < 0) {
		int err = S_ISREG(st.st_mode) ? errno : EINVAL;

		close(fd);
		errno = err;
		return -1;
	}
	return fd;
}

static char *sysroot; /* report --sysroot, or NULL */

int
cli_set_sysroot(const char *dir)
{
	struct stat st;
	char *copy;

	if (stat(dir, &st) < 0)
		return -1;
	if (!S_ISDIR(st.st_mode)) {
		errno = ENOTDIR;
		return -1;
	}
	copy = strdup(dir);
	if (copy == NULL)
		return -1;
	free(sysroot);
	sysroot = copy;
	return 0;
}

int
cli_open_target(const char *path)
{
	char *under;
	int fd, err;

	if (sysroot == NULL || path[0] != '/')
		return cli_open_regular(path);
	if (asprintf(&under, "%s%s", sysroot, path) < 0)
		return -1;
	fd = cli_open_regular(under);
	err = errno;
	free(under);
	if (fd >= 0)
		return fd;
	fd = cli_open_regular(path);
	if (fd < 0)
		errno = err;
	return fd;
}

FILE *
cli_fopen_regular(const char *path)
{
	int fd = cli_open_regular(path);
	FILE *f;

	if (fd < 0)
		return NULL;
	f = fdopen(fd, "r");
	if (!f)
		close(fd);
	return f;
}

int
cli_read_file(const char *path, size_t cap, char **out, size_t *len)
{
	struct stat st;
	int fd = cli_open_regular(path), err;
	size_t n = 0;
	ssize_t got;
	char *buf = NULL;

	*out = NULL;
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0)
		goto fail;
	if ((uint64_t)st.st_size > cap) {
		errno = EFBIG;
		goto fail;
	}
	buf = malloc((size_t)st.st_size + 1);
	if (!buf)
		goto fail;
	/* one byte more than the size: a file that grew is refused too */
	while (n <= (size_t)st.st_size &&
	       (got = read(fd, buf + n, (size_t)st.st_size + 1 - n)) != 0) {
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			goto fail;
		n += (size_t)got;
	}
	if (n > (size_t)st.st_size) {
		errno = EFBIG;
		goto fail;
	}
	close(fd);
	buf[n] = '\0';
	*out = buf;
	*len = n;
	return 0;
fail:
	err = errno;
	free(buf);
	close(fd);
	errno = err;
	return -1;
}

int
cli_output_open(struct cli_output *o, const char *path)
{
	struct stat st;
	mode_t mask;
	int fd;

	o->path = path;
	o->tmp = NULL;
	o->f = NULL;
	if (refuse_input(path))
		return -2;
	/* a device, a FIFO or a terminal is written in place: there is
	 * nothing to replace (and /dev/full must never be unlinked) */
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		o->f = fopen(path, "we");
		return o->f ? 0 : -1;
	}
	if (asprintf(&o->tmp, "%s.tmp-XXXXXX", path) < 0) {
		o->tmp = NULL;
		errno = ENOMEM;
		return -1;
	}
	fd = mkostemp(o->tmp, O_CLOEXEC);
	if (fd < 0 || !(o->f = fdopen(fd, "w"))) {
		int err = errno;

		if (fd >= 0) {
			close(fd);
			unlink(o->tmp);
		}
		free(o->tmp);
		o->tmp = NULL;
		errno = err;
		return -1;
	}
	mask = umask(0);
	umask(mask);
	fchmod(fd, 0666 & ~mask);
	return 0;
}

int
cli_output_close(struct cli_output *o, bool keep)
{
	int ret = fclose(o->f) == 0 ? 0 : -1;

	o->f = NULL;
	if (o->tmp == NULL)
		return ret;
	/* the inputs read since the output was opened, too */
	if (keep && ret == 0)
		ret = refuse_input(o->path);
	if (keep && ret == 0 && rename(o->tmp, o->path) != 0)
		ret = -1;
	if (!keep || ret != 0) {
		int err = errno;

		unlink(o->tmp); /* ours: the file named by -o is untouched */
		errno = err;
	}
	free(o->tmp);
	o->tmp = NULL;
	return ret;
}

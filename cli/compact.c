/* SPDX-License-Identifier: MIT */
/*
 * Giving back a finished run's unused disk space.
 *
 * The shim creates each member at its full size with its blocks reserved,
 * so that a full disk fails at the start and never as SIGBUS inside the
 * program.  A short process leaves about 430 KiB that are nearly all
 * zeros (the PC table, the module records, the carry table), and
 * `profrun make` leaves thousands of them.  Once no process can write to
 * a member any more, its all-zero blocks are punched out: every byte reads
 * back the same, and the blocks return to the filesystem.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "compact.h"
#include "profile.h"
#include "profrun/format.h"

#define BLOCK 4096u	     /* punched in whole blocks of this size */
#define CHUNK (64u * BLOCK) /* read at a time */

/* Nobody writes to the member with header H any more: it was finished
 * (exit or exec) and its process is gone. */
static bool
writer_gone(const struct profrun_header *h)
{
	if (memcmp(h->magic, PROFRUN_MAGIC, PROFRUN_MAGIC_LEN) != 0 ||
	    (h->state != PROFRUN_STATE_EXITED &&
	     h->state != PROFRUN_STATE_EXECED) ||
	    h->pid <= 0)
		return false;
	return kill(h->pid, 0) != 0 && errno == ESRCH;
}

static bool
all_zero(const unsigned char *p, size_t len)
{
	return p[0] == 0 && memcmp(p, p + 1, len - 1) == 0;
}

/* Punch [START, END) of FD; -1 when the filesystem cannot. */
static int
punch(int fd, off_t start, off_t end)
{
	if (end <= start)
		return 0;
	return fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, start,
			 end - start);
}

/* Punch every run of all-zero whole blocks of FD (SIZE bytes). */
static int
punch_zero_blocks(int fd, off_t size, unsigned char *buf)
{
	off_t off = 0, run = -1;
	ssize_t n;
	size_t b;

	while (off < size && (n = pread(fd, buf, CHUNK, off)) > 0) {
		for (b = 0; b + BLOCK <= (size_t)n; b += BLOCK) {
			if (all_zero(buf + b, BLOCK)) {
				if (run < 0)
					run = off + (off_t)b;
			} else if (run >= 0) {
				if (punch(fd, run, off + (off_t)b))
					return -1;
				run = -1;
			}
		}
		if ((size_t)n % BLOCK != 0) { /* a partial last block stays */
			if (run >= 0 && punch(fd, run, off + (off_t)b))
				return -1;
			return 0;
		}
		off += n;
	}
	return run >= 0 ? punch(fd, run, off) : 0;
}

/* Compact the member NAME of the directory DFD; -1 when the filesystem
 * cannot punch holes (no point trying the others). */
static int
compact_member(int dfd, const char *name, unsigned char *buf,
	       uint64_t *freed)
{
	struct profrun_header h;
	struct stat st, after;
	int fd, ret = 0;

	fd = openat(dfd, name, O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return 0;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_nlink == 1 &&
	    (uint64_t)st.st_blocks * 512 > BLOCK &&
	    pread(fd, &h, sizeof(h), 0) == (ssize_t)sizeof(h) &&
	    writer_gone(&h)) {
		ret = punch_zero_blocks(fd, st.st_size, buf);
		if (fstat(fd, &after) == 0 && after.st_blocks < st.st_blocks)
			*freed += (uint64_t)(st.st_blocks - after.st_blocks) *
				  512;
	}
	if (ret && errno != EOPNOTSUPP && errno != ENOSYS)
		ret = 0; /* an error of this member only */
	close(fd);
	return ret;
}

uint64_t
run_compact(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	unsigned char *buf = malloc(CHUNK);
	uint64_t freed = 0;

	while (d && buf && (e = readdir(d)) != NULL) {
		if ((e->d_type == DT_REG || e->d_type == DT_UNKNOWN) &&
		    profile_member_name(e->d_name, NULL, NULL) &&
		    compact_member(dirfd(d), e->d_name, buf, &freed))
			break;
	}
	if (d)
		closedir(d);
	free(buf);
	return freed;
}

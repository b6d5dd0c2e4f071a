/* SPDX-License-Identifier: MIT */
/*
 * Compaction of a finished run: only members that were finished (exit or
 * exec) by a process that is gone lose their all-zero blocks; every byte
 * reads back the same; a member whose process lives, one never finished,
 * a file that is not a member and a file with a second link keep every
 * block.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/compact.h"
#include "profrun/format.h"
#include "unit-check.h"

#define BLOCK	 4096u
#define NBLOCKS	 100u
#define FILESIZE (NBLOCKS * BLOCK + 100u) /* a partial last block */

/* The core library's messages: compaction has none to give. */
void
cli_error(const char *fmt, ...)
{
	fprintf(stderr, "unexpected error: %s\n", fmt);
	check_failures++;
}

void
cli_warn(const char *fmt, ...)
{
	fprintf(stderr, "unexpected warning: %s\n", fmt);
	check_failures++;
}

static char dir[] = "/tmp/profrun-compact-XXXXXX";
static uint8_t content[FILESIZE];

/* A pid that no process has any more. */
static pid_t
dead_pid(void)
{
	pid_t pid = fork();

	if (pid == 0)
		_exit(0);
	waitpid(pid, NULL, 0);
	return pid;
}

static void
make_content(pid_t pid, uint32_t state)
{
	struct profrun_header h = {0};

	memset(content, 0, sizeof(content));
	memcpy(h.magic, PROFRUN_MAGIC, PROFRUN_MAGIC_LEN);
	h.pid = pid;
	h.state = state;
	memcpy(content, &h, sizeof(h));
	memset(content + 10 * BLOCK + 7, 0xa5, 3); /* one busy block */
	content[NBLOCKS * BLOCK - 1] = 1; /* and the last whole one */
}

static void
write_member(const char *name, pid_t pid, uint32_t state)
{
	char path[256];
	int fd;

	make_content(pid, state);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_RDWR | O_CREAT | O_EXCL, 0644);
	CHECK(fd >= 0);
	CHECK(fallocate(fd, 0, 0, FILESIZE) == 0);
	CHECK(pwrite(fd, content, FILESIZE, 0) == FILESIZE);
	close(fd);
}

static blkcnt_t
blocks_of(const char *name)
{
	char path[256];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return stat(path, &st) == 0 ? st.st_blocks : -1;
}

/* NAME holds exactly what make_content(PID, STATE) gave. */
static bool
reads_back(const char *name, pid_t pid, uint32_t state)
{
	static uint8_t got[FILESIZE + 1];
	char path[256];
	ssize_t n;
	int fd;

	make_content(pid, state);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return false;
	n = pread(fd, got, sizeof(got), 0);
	close(fd);
	return n == FILESIZE && memcmp(got, content, FILESIZE) == 0;
}

/* 0 when this filesystem punches holes. */
static int
punch_supported(void)
{
	char path[256];
	int fd, r;

	snprintf(path, sizeof(path), "%s/scratch", dir);
	fd = open(path, O_RDWR | O_CREAT | O_EXCL, 0644);
	if (fd < 0)
		return -1;
	r = fallocate(fd, 0, 0, 4 * BLOCK) == 0 &&
			    fallocate(fd,
				      FALLOC_FL_PUNCH_HOLE |
					      FALLOC_FL_KEEP_SIZE,
				      0, BLOCK) == 0
		    ? 0
		    : -1;
	close(fd);
	unlink(path);
	return r;
}

int
main(void)
{
	static const char *kept[] = {"20-1.prof", "30.prof", "40.prof",
				     "41.prof", "notes.txt"};
	pid_t gone = dead_pid(), live = getpid();
	blkcnt_t before[5];
	char a[256], b[256];
	size_t i;

	if (!mkdtemp(dir))
		return 77;
	if (punch_supported() != 0) {
		fprintf(stderr, "%s: no hole punching here\n", dir);
		return 77;
	}
	write_member("10.prof", gone, PROFRUN_STATE_EXITED);
	write_member("20-1.prof", live, PROFRUN_STATE_EXITED);
	write_member("30.prof", gone, PROFRUN_STATE_RUNNING);
	write_member("40.prof", gone, PROFRUN_STATE_EXECED);
	snprintf(a, sizeof(a), "%s/40.prof", dir);
	snprintf(b, sizeof(b), "%s/41.prof", dir);
	CHECK(link(a, b) == 0); /* a second name: left alone */
	write_member("notes.txt", gone, PROFRUN_STATE_EXITED);
	for (i = 0; i < 5; i++)
		before[i] = blocks_of(kept[i]);

	/* blocks 1..9 and 11..98 punched; the header, block 10, block 99
	 * and the partial last block stay */
	CHECK_EQ(run_compact(dir), (9u + 88u) * BLOCK);
	CHECK(reads_back("10.prof", gone, PROFRUN_STATE_EXITED));
	CHECK(blocks_of("10.prof") * 512 <= 4 * BLOCK);
	CHECK(reads_back("20-1.prof", live, PROFRUN_STATE_EXITED));
	CHECK(reads_back("30.prof", gone, PROFRUN_STATE_RUNNING));
	CHECK(reads_back("40.prof", gone, PROFRUN_STATE_EXECED));
	CHECK(reads_back("notes.txt", gone, PROFRUN_STATE_EXITED));
	for (i = 0; i < 5; i++)
		CHECK_EQ(blocks_of(kept[i]), before[i]);

	/* once 40.prof has one name, it is compacted too (10.prof gives
	 * nothing more); then there is nothing left to give back */
	CHECK(unlink(b) == 0);
	CHECK_EQ(run_compact(dir), (9u + 88u) * BLOCK);
	CHECK_EQ(run_compact(dir), 0);
	CHECK(reads_back("40.prof", gone, PROFRUN_STATE_EXECED));

	/* a directory that does not exist: nothing, no crash */
	CHECK_EQ(run_compact("/nonexistent/profrun-run"), 0);

	for (i = 0; i < 4; i++) {
		snprintf(a, sizeof(a), "%s/%s", dir, kept[i]);
		unlink(a);
	}
	snprintf(a, sizeof(a), "%s/10.prof", dir);
	unlink(a);
	snprintf(a, sizeof(a), "%s/notes.txt", dir);
	unlink(a);
	rmdir(dir);
	CHECK_DONE();
}

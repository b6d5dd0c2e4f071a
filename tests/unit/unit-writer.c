/* SPDX-License-Identifier: MIT */
/*
 * The member file writer: for fixed inputs the initialized file is
 * byte-for-byte the documented layout; a run directory that is a symlink is
 * refused with its target untouched; an existing member (or a symlink in
 * its place) is never overwritten; no descriptor stays open; the release
 * at the end keeps a written page the kernel wrote out and dropped.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "shim.h"
#include "member/member.h"
#include "unit-check.h"

static void
put(uint8_t *p, size_t off, uint64_t v, int bytes)
{
	for (int i = 0; i < bytes; i++)
		p[off + i] = (uint8_t)(v >> (8 * i));
}

static const char exe[] = "/usr/bin/example"; /* 16 bytes */

static void
fixed_inputs(struct target *t, struct proc_info *p)
{
	memset(t, 0, sizeof(*t));
	t->load_bias = 0x555555554000u;
	t->text_start = 0x1000;
	t->text_end = 0x1400;
	t->nbuckets = 512;
	t->bucket_size = 2;
	t->scale = 65536;
	t->build_id_len = 20;
	for (int i = 0; i < 20; i++)
		t->build_id[i] = (uint8_t)(0xa0 + i);
	strcpy(t->exe, exe);
	*p = (struct proc_info){1234, 1, 1700000000123456789, 5000, 100};
}

/* The expected image, field by field at the offsets format.h implies,
 * in the order writer.c lays them out: the module records after the
 * strings, the module paths ending (and the thread records beginning)
 * half a page into a page, the region list and the log after the thread
 * records, the pause record, the JIT code record and the offspring last, the file in whole
 * pages. */
static void
expected_image(uint8_t *e)
{
	memcpy(e, "PROFRUN\0", 8);
	put(e, 8, 1, 2);	      /* version */
	put(e, 10, 1, 2);	      /* min_version */
	put(e, 12, 512, 4);	      /* header_size */
	put(e, 16, 1622016, 8);	      /* file_size: 396 pages */
	put(e, 24, 512, 8);	      /* strings_off */
	put(e, 32, 280, 4);	      /* strings_size: 17 + 256, 8-aligned */
	put(e, 36, 4096, 4);	      /* wrap_slots */
	put(e, 40, 58752, 8);	      /* wraps_off: after the modules */
	put(e, 48, 58752 + 65536, 8); /* hist_off */
	put(e, 56, 512, 8);	      /* nbuckets */
	put(e, 64, 0x1000, 8);
	put(e, 72, 0x1400, 8);
	put(e, 80, 0x555555554000u, 8);
	put(e, 88, 2, 4);
	put(e, 92, 65536, 4);
	put(e, 96, 1234, 4);
	put(e, 100, 1, 4);
	put(e, 104, 512, 4); /* exe_off: a file offset */
	put(e, 108, 0, 4);   /* note_off: none yet */
	put(e, 112, 20, 4);
	for (int i = 0; i < 20; i++)
		e[120 + i] = (uint8_t)(0xa0 + i);
	put(e, 184, 100, 4); /* rate_requested */
	put(e, 192, 1700000000123456789, 8);
	put(e, 224, 5000, 8);	    /* cpu_start_ns */
	put(e, 264, 0, 4);	    /* state RUNNING */
	put(e, 272, 0xffffffff, 4); /* exit_code -1 */
	put(e, 280, 125312, 8);	    /* pcs_off: after the histogram */
	put(e, 288, 16384, 4);	    /* pc_slots */
	put(e, 292, 32, 4);	    /* pc_probe */
	put(e, 304, 1408, 8);	    /* modules_off: after the list */
	put(e, 312, 512, 4);	    /* module_slots */
	put(e, 320, 395264, 8);	    /* modstr_off: ends at threads_off */
	put(e, 328, 32768, 4);	    /* modstr_size */
	put(e, 340, 0, 4);	    /* vdso_size: not copied yet */
	put(e, 344, 387456, 8);	    /* vdso_off: after the PC table */
	put(e, 360, 428032, 8);	    /* threads_off: 104.5 pages in */
	put(e, 368, 1024, 4);	    /* thread_slots */
	put(e, 384, 832, 8);	    /* regions_off: after the strings */
	put(e, 392, 14, 4);	    /* region_count */
	for (unsigned i = 0; i < 14; i++) { /* kind, version 1, off, size */
		static const uint64_t reg[14][4] = {
			{1, 512, 280, 0},	  {2, 58752, 65536, 0},
			{3, 124288, 1024, 0},	  {4, 125312, 262144, 0},
			{5, 1408, 57344, 0},	  {6, 395264, 32768, 0},
			{7, 387456, 4096, 0},	  {8, 428032, 65536, 0},
			{11, 1575040, 8256, 0},	  {17, 1587456, 32800, 0},
			{15, 1583296, 4160, 0},	  {14, 1542208, 32800, 1},
			{16, 493568, 1048608, 0}, {9, 832, 14 * 24, 0},
		};

		put(e, 832 + 24 * i, reg[i][0], 4);
		put(e, 832 + 24 * i + 4, 1, 2);
		put(e, 832 + 24 * i + 6, reg[i][3], 2); /* REQUIRED */
		put(e, 832 + 24 * i + 8, reg[i][1], 8);
		put(e, 832 + 24 * i + 16, reg[i][2], 8);
	}
	/* the timeline and the log (after the threads), the pause record and
	 * the offspring stay zero: a process without samples, pauses or
	 * children never writes their pages */
	memcpy(e + 512, exe, sizeof(exe));
}

static void
layout_and_header_are_byte_exact(void)
{
	static uint8_t img[1622016], want[1622016];
	struct target t;
	struct proc_info p;
	struct layout l;

	fixed_inputs(&t, &p);
	writer_layout(&l, strlen(exe), t.nbuckets, 4096, 0, 0);
	CHECK_EQ(l.strings_off, 512);
	CHECK_EQ(l.exe_off, 512);
	CHECK_EQ(l.note_area, 529);
	CHECK_EQ(l.file_size, sizeof(img));
	CHECK_EQ(l.modstr_off + 32768, l.threads_off);
	CHECK_EQ(l.threads_off % 4096, 2048);
	CHECK_EQ(l.threads_off + 1024 * 64, l.timeline_off);
	CHECK_EQ(l.timeline_off + 65536 * 16 + 32 + 32, l.log_off);
	CHECK_EQ(l.log_off + 32 + 4096 * 8, 1575008);
	CHECK_EQ(l.pause_off + 64 + 1024 * 8, 1583296);
	CHECK_EQ(l.jit_off, 1583296);
	CHECK_EQ(l.offspring_off, 1583296 + 4160);
	/* what every process writes: the header, the list and the first
	 * module record; the last module path and the first thread record:
	 * two pages; its first samples: the page of the timeline's head
	 * and first entries, and the log's head and first keys */
	CHECK_EQ((l.modules_off + 112) / 4096, 0);
	CHECK_EQ((l.regions_off + PROFRUN_REGION_SLOTS * 24) / 4096, 0);
	CHECK_EQ((l.threads_off - 1) / 4096, (l.threads_off + 64) / 4096);
	CHECK_EQ((l.log_off - 64 - 16) / 4096, (l.log_off + 32 + 8) / 4096);
	CHECK_EQ((l.log_off - 64 - 128 * 16) / 4096, l.log_off / 4096);
	writer_init(img, &l, &t, &p);
	expected_image(want);
	for (size_t i = 0; i < sizeof(img); i++)
		if (img[i] != want[i]) {
			fprintf(stderr, "first difference at byte %zu\n", i);
			CHECK(img[i] == want[i]);
			break;
		}
	/* a note lands in the reserved room, once, truncated to fit */
	char longnote[400];
	memset(longnote, 'x', sizeof(longnote) - 1);
	longnote[sizeof(longnote) - 1] = '\0';
	writer_set_note((struct profrun_header *)img, l.note_area, longnote);
	put(want, 108, 529, 4);
	memset(want + 529, 'x', SHIM_NOTE_MAX - 1);
	CHECK(memcmp(img, want, sizeof(img)) == 0);
	writer_set_note((struct profrun_header *)img, l.note_area, "second");
	CHECK(memcmp(img, want, sizeof(img)) == 0);
	CHECK(529 + SHIM_NOTE_MAX <= 512 + 280);
}

/* The command line: kept beside the header, listed as kind 13, and
 * bounded: an argument that does not fit is cut and flagged. */
static void
argv_is_kept_beside_the_header_and_bounded(void)
{
	static uint8_t img[1622016 + 4096];
	static struct shim_argv a;
	static char big[PROFRUN_ARGV_MAX + 100];
	char *args[] = {"cc", "-c", "x.c", big, "never", NULL};
	struct profrun_header *h = (struct profrun_header *)img;
	struct profrun_region e;
	struct target t;
	struct proc_info p;
	struct layout l;
	bool listed = false;

	writer_capture_argv(&a, 3, args);
	CHECK_EQ(a.head.argc, 3);
	CHECK_EQ(a.head.size, 10);
	CHECK_EQ(a.head.flags, 0);
	CHECK(memcmp(a.data, "cc\0-c\0x.c", 10) == 0);
	fixed_inputs(&t, &p);
	p.argv = &a;
	writer_layout(&l, strlen(exe), t.nbuckets, 4096, 0,
		      writer_argv_size(&a));
	CHECK_EQ(l.argv_off, 832);
	CHECK_EQ(l.argv_size, 26);
	CHECK_EQ(l.regions_off, 896);
	CHECK_EQ(l.modules_off, 1472);
	CHECK(l.file_size <= sizeof(img));
	writer_init(img, &l, &t, &p);
	for (uint32_t i = 0; i < h->region_count; i++) {
		memcpy(&e, img + h->regions_off + i * sizeof(e), sizeof(e));
		if (e.kind == PROFRUN_REGION_ARGV)
			listed = e.off == 832 && e.size == 26 &&
				 e.version == 1 && e.flags == 0;
	}
	CHECK(listed);
	CHECK(memcmp(img + 832 + 16, "cc\0-c\0x.c\0", 11) == 0);

	memset(big, 'a', sizeof(big) - 1);
	writer_capture_argv(&a, 5, args);
	CHECK_EQ(a.head.argc, 4);
	CHECK_EQ(a.head.argc_all, 5);
	CHECK_EQ(a.head.size, PROFRUN_ARGV_MAX);
	CHECK_EQ(a.head.flags, PROFRUN_ARGV_TRUNCATED);
	CHECK_EQ(a.data[PROFRUN_ARGV_MAX - 1], '\0');
	writer_capture_argv(&a, 0, NULL);
	CHECK_EQ(writer_argv_size(&a), 0);
}

static int
count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	if (d == NULL)
		return -1;
	while ((e = readdir(d)) != NULL)
		n += e->d_name[0] != '.';
	closedir(d);
	return n - 1;
}

static char base[] = "/tmp/profrun-unit-writer-XXXXXX";

static void
run_directory_is_created_and_symlink_refused(void)
{
	char dir[PATH_MAX], link[PATH_MAX], target[PATH_MAX];
	struct stat st;
	DIR *d;
	int fd, entries = 0;

	snprintf(dir, sizeof(dir), "%s/run", base);
	fd = writer_open_dir(dir);
	CHECK(fd >= 0);
	close(fd);
	CHECK(lstat(dir, &st) == 0 && S_ISDIR(st.st_mode));
	CHECK((st.st_mode & 07777) == 0700);
	fd = writer_open_dir(dir); /* an existing directory is fine */
	CHECK(fd >= 0);
	close(fd);

	snprintf(target, sizeof(target), "%s/elsewhere", base);
	snprintf(link, sizeof(link), "%s/linked", base);
	CHECK(mkdir(target, 0700) == 0);
	CHECK(symlink(target, link) == 0);
	fd = writer_open_dir(link);
	CHECK(fd == -ELOOP || fd == -ENOTDIR);
	if (fd >= 0)
		close(fd);
	CHECK(lstat(target, &st) == 0 && (st.st_mode & 07777) == 0700);
	d = opendir(target);
	for (struct dirent *e; d && (e = readdir(d)) != NULL;)
		entries += e->d_name[0] != '.';
	if (d)
		closedir(d);
	CHECK_EQ(entries, 0);
}

static void
members_never_overwrite(void)
{
	char dir[PATH_MAX], path[PATH_MAX + 32], name[64];
	const char victim_text[] = "precious";
	char buf[16] = {0};
	void *a, *b;
	struct stat st;
	int dfd, fd, fds_before;

	snprintf(dir, sizeof(dir), "%s/run", base);
	dfd = writer_open_dir(dir);
	CHECK(dfd >= 0);
	fds_before = count_fds();
	CHECK_EQ(writer_create_member(dfd, 4242, 4096, &a, name), 0);
	CHECK(strcmp(name, "4242.prof") == 0);
	CHECK_EQ(count_fds(), fds_before);
	memcpy(a, "first", 6);
	CHECK_EQ(writer_create_member(dfd, 4242, 8192, &b, name), 0);
	CHECK(strcmp(name, "4242-1.prof") == 0);
	CHECK(memcmp(a, "first", 6) == 0);
	snprintf(path, sizeof(path), "%s/4242.prof", dir);
	CHECK(stat(path, &st) == 0 && st.st_size == 4096);
	CHECK((st.st_mode & 07777) == 0600);

	/* a symlink planted at the next name is skipped, its target intact */
	snprintf(path, sizeof(path), "%s/victim", base);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	CHECK(fd >= 0 && write(fd, victim_text, sizeof(victim_text)) > 0);
	close(fd);
	CHECK(symlinkat(path, dfd, "4243.prof") == 0);
	CHECK(symlinkat("/tmp/profrun-unit-dangling", dfd, "4243-1.prof") == 0);
	CHECK_EQ(writer_create_member(dfd, 4243, 4096, &b, name), 0);
	CHECK(strcmp(name, "4243-2.prof") == 0);
	fd = open(path, O_RDONLY);
	CHECK(fd >= 0 && read(fd, buf, sizeof(buf)) == sizeof(victim_text));
	close(fd);
	CHECK(strcmp(buf, victim_text) == 0);
	CHECK(stat(path, &st) == 0 && st.st_size == sizeof(victim_text));
	CHECK(access("/tmp/profrun-unit-dangling", F_OK) < 0);
	close(dfd);
}

/* A page the process wrote that the kernel then wrote out and dropped
 * (memory pressure) reads as not in memory to mincore: the release at the
 * end must read it back, not take it for one never written, and give
 * back only the pages the counts say were never written. */
static void
written_pages_dropped_from_memory_are_kept(void)
{
	static struct target t;
	struct proc_info p = {77, 1, 0, 0, 100, NULL};
	char dir[PATH_MAX], path[PATH_MAX + 80], name[64];
	struct profrun_header *h;
	struct profrun_log *lg;
	struct layout l;
	struct stat before, after;
	unsigned char in = 1;
	uint64_t key = 0, want = 0x401000u | 1ull << PROFRUN_PC_BITS;
	size_t page = (size_t)sysconf(_SC_PAGESIZE), at;
	void *m;
	int dfd, fd;

	memset(&t, 0, sizeof(t));
	t.text_start = 0x1000;
	t.text_end = 0x1400;
	t.nbuckets = 512;
	t.bucket_size = 2;
	t.scale = 65536;
	strcpy(t.exe, exe);
	writer_layout(&l, strlen(exe), t.nbuckets, 0, 0, 0);
	snprintf(dir, sizeof(dir), "%s/run", base);
	dfd = writer_open_dir(dir);
	CHECK(dfd >= 0);
	CHECK_EQ(writer_create_member(dfd, 77, l.file_size, &m, name), 0);
	close(dfd);
	h = m;
	writer_init(m, &l, &t, &p);
	lg = (struct profrun_log *)((char *)m + l.log_off);
	/* the 600th sample's key, in the log's second page, which the
	 * release reads nothing else from */
	lg->claimed = 600;
	((uint64_t *)(lg + 1))[599] = want;
	/* written out, dropped from the mapping and from the page cache */
	at = (l.log_off + sizeof(*lg) + 599 * 8) & ~(page - 1);
	CHECK(msync((char *)m + at, page, MS_SYNC) == 0);
	CHECK(madvise((char *)m + at, page, MADV_DONTNEED) == 0);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_RDONLY);
	CHECK(fd >= 0);
	posix_fadvise(fd, (off_t)at, (off_t)page, POSIX_FADV_DONTNEED);
	CHECK(mincore((char *)m + at, page, &in) == 0);
	if (in & 1)
		fprintf(stderr, "# the file system kept the page in memory: "
				"the release sees it resident\n");
	CHECK(fstat(fd, &before) == 0);
	writer_release(h);
	CHECK(fstat(fd, &after) == 0);
	CHECK(pread(fd, &key, sizeof(key),
		    (off_t)(l.log_off + sizeof(*lg) + 599 * 8)) == sizeof(key));
	CHECK_EQ(key, want);
	/* what no count says was written is given back: the header's page
	 * and the log's two pages stay */
	CHECK(after.st_blocks * 512 <= 4 * (off_t)page);
	CHECK(after.st_blocks < before.st_blocks);
	close(fd);
	munmap(m, l.file_size);
}

static void
relative_paths_become_absolute(void)
{
	char out[PATH_MAX], cwd[PATH_MAX];

	CHECK(getcwd(cwd, sizeof(cwd)) != NULL);
	CHECK_EQ(writer_absolute("runs/a", out, sizeof(out)), 0);
	CHECK(strncmp(out, cwd, strlen(cwd)) == 0);
	CHECK(strcmp(out + strlen(cwd), "/runs/a") == 0 ||
	      (strcmp(cwd, "/") == 0 && strcmp(out, "/runs/a") == 0));
	CHECK_EQ(writer_absolute("/abs", out, sizeof(out)), 0);
	CHECK(strcmp(out, "/abs") == 0);
	CHECK_EQ(writer_absolute("", out, sizeof(out)), (uint64_t)-EINVAL);
}

/* --wall: the wall region after everything else, listed as kind 18, and
 * a layout without it unchanged. */
static void
wall_region_is_last_and_listed(void)
{
	static uint8_t img[1622016 + 2 * 1024 * 1024 + 8192];
	struct profrun_header *h = (struct profrun_header *)img;
	struct profrun_region e;
	struct target t;
	struct proc_info p;
	struct layout l;
	const uint64_t size =
		sizeof(struct profrun_wall) +
		PROFRUN_WALL_SLOTS * sizeof(struct profrun_blocked);
	bool listed = false;

	fixed_inputs(&t, &p);
	writer_layout(&l, strlen(exe), t.nbuckets, 4096, 0, 0);
	CHECK_EQ(l.wall_off, 0);
	CHECK_EQ(l.file_size, 1622016);
	writer_layout_wall(&l, size);
	CHECK_EQ(l.wall_off, 1622016);
	CHECK_EQ(l.wall_size, size);
	CHECK_EQ(l.file_size, (1622016 + size + 4095) & ~4095ull);
	CHECK(l.file_size <= sizeof(img));
	writer_init(img, &l, &t, &p);
	CHECK_EQ(h->region_count, 15);
	for (uint32_t i = 0; i < h->region_count; i++) {
		memcpy(&e, img + h->regions_off + i * sizeof(e), sizeof(e));
		if (e.kind == PROFRUN_REGION_WALL)
			listed = e.off == 1622016 && e.size == size &&
				 e.version == 1 && e.flags == 0;
	}
	CHECK(listed);
}

int
main(void)
{
	char cmd[PATH_MAX + 16];

	layout_and_header_are_byte_exact();
	argv_is_kept_beside_the_header_and_bounded();
	wall_region_is_last_and_listed();
	relative_paths_become_absolute();
	if (mkdtemp(base) == NULL)
		return 77;
	umask(022);
	run_directory_is_created_and_symlink_refused();
	members_never_overwrite();
	written_pages_dropped_from_memory_are_kept();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", base);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", base);
	CHECK_DONE();
}

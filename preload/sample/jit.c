/* SPDX-License-Identifier: MIT */
/*
 * Code a runtime compiled (include/profrun/format.h, struct profrun_jit):
 * the executable memory no ELF file backs, as the scans of /proc/self/maps
 * find it, and, when the image ends, copies of the names the runtime
 * wrote for that code: its perf map (/tmp/perf-PID.map) and its jitdump
 * (the jit-PID.dump file it maps as a marker), each beside the member
 * ("<member>.map", "<member>.jitdump"), at most PROFRUN_JIT_COPY_MAX
 * bytes.  The runtime, or a cleaner of /tmp, may delete them afterwards,
 * and a report may be made on another machine.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "profrun/member-name.h"
#include "shim.h"
#include "sample/sample.h"
#include "member/member.h"
#include "sys.h"

/* A perf map written this long before the image started is another
 * process's (a pid used again): file times lag the clock by a tick. */
#define MAP_SLACK_NS 20000000

static struct {
	struct profrun_jit *jit; /* the member's region, NULL when none */
	int copied;		 /* the copies were made (once an image) */
	uint64_t misses;	 /* samples in no record and no range */
	bool wrote; /* the region was written (its page reserved) */
} js;
/* this process's jitdump, "" when none; the copies' buffer */
static char js_marker[PATH_MAX] ARCH_LARGE_SECTION;
static char js_buf[65536] ARCH_LARGE_SECTION;

static struct profrun_jit_range *
ranges(struct profrun_jit *j)
{
	return (struct profrun_jit_range *)(j + 1);
}

/* Async-signal-safe. */
void
jit_attach(struct profrun_jit *j, const struct profrun_jit *from)
{
	bool parent_wrote = js.wrote;

	js.wrote = false;
	js.jit = j;
	js_marker[0] = '\0';
	js.copied = 0;
	js.misses = 0;
	/* the parent's region is not even read unless it wrote it (on
	 * tmpfs, reading a hole through the mapping takes a block) */
	if (j == NULL || from == NULL || !parent_wrote ||
	    from->range_slots != PROFRUN_JIT_RANGES || from->range_count == 0 ||
	    !reserve_room(j, sizeof(*j), true))
		return;
	js.wrote = true;
	/* a fork child has its parent's memory, and so its code */
	j->range_count = from->range_count;
	j->ranges_merged = from->ranges_merged;
	memcpy(ranges(j), ranges((struct profrun_jit *)from),
	       from->range_count * sizeof(struct profrun_jit_range));
	j->range_slots = PROFRUN_JIT_RANGES;
}

static uint64_t
gap(const struct profrun_jit_range *r, uint64_t start, uint64_t end)
{
	if (end <= r->start)
		return r->start - end;
	return start >= r->end ? start - r->end : 0;
}

/* Async-signal-safe (memory only); callers do not run concurrently. */
void
jit_note_range(uint64_t start, uint64_t end)
{
	struct profrun_jit *j = js.jit;
	struct profrun_jit_range *r;
	uint32_t best = 0;

	if (j == NULL || !reserve_room(j, sizeof(*j), false))
		return;
	js.wrote = true;
	j->range_slots = PROFRUN_JIT_RANGES;
	r = ranges(j);
	for (uint32_t i = 0; i < j->range_count; i++) {
		if (gap(&r[i], start, end) < gap(&r[best], start, end))
			best = i;
		if (gap(&r[i], start, end) == 0) {
			best = i;
			break;
		}
	}
	if (j->range_count > 0 && gap(&r[best], start, end) == 0) {
		/* touching or overlapping: one range */
	} else if (j->range_count < PROFRUN_JIT_RANGES) {
		r[j->range_count].start = start;
		r[j->range_count].end = end;
		j->range_count++;
		return;
	} else {
		j->ranges_merged++;
	}
	if (start < r[best].start)
		r[best].start = start;
	if (end > r[best].end)
		r[best].end = end;
}

/* Whether PC lies in a noted range.  Async-signal-safe. */
static bool
in_ranges(const struct profrun_jit *j, uint64_t pc)
{
	uint32_t n = __atomic_load_n(&j->range_count, __ATOMIC_RELAXED);
	const struct profrun_jit_range *r = ranges((struct profrun_jit *)j);

	for (uint32_t i = 0; i < n && i < PROFRUN_JIT_RANGES; i++)
		if (pc >= r[i].start && pc < r[i].end)
			return true;
	return false;
}

/* Whether PC lies in a live module record of H.  Async-signal-safe. */
static bool
in_modules(const struct profrun_header *h, uint64_t pc)
{
	const struct profrun_module *r =
		(const struct profrun_module *)((const char *)h +
						h->modules_off);
	uint32_t n = __atomic_load_n(&h->module_count, __ATOMIC_ACQUIRE);

	for (uint32_t i = 0; i < n && i < h->module_slots; i++)
		if (r[i].gen_unloaded == 0 && pc >= r[i].start && pc < r[i].end)
			return true;
	return false;
}

/* Async-signal-safe. */
void
jit_sample(const struct profrun_header *h, uintptr_t pc)
{
	const struct profrun_jit *j = js.jit;
	uint64_t n;

	/* ranges are noted only once their page is reserved: no read of
	 * an unreserved page either (on tmpfs a read fault takes a block) */
	if (j == NULL || h->modules_off == 0 ||
	    (reserve_has(j, sizeof(*j)) && in_ranges(j, pc)) ||
	    in_modules(h, pc))
		return;
	n = __atomic_add_fetch(&js.misses, 1, __ATOMIC_RELAXED);
	if ((n & (n - 1)) == 0)
		modules_scan_maps();
}

/* Whether PATH names "jit-<pid>.dump" of this process.  Pure. */
static bool
is_marker(const char *path, pid_t pid)
{
	const char *base = path;
	uint64_t v;

	for (const char *s = path; *s != '\0'; s++)
		if (*s == '/')
			base = s + 1;
	if (!maps_has_prefix(base, "jit-"))
		return false;
	base += 4;
	return profrun_member_number(&base, &v) && v == (uint64_t)pid &&
	       maps_has_prefix(base, ".dump") && base[5] == '\0';
}

/* Async-signal-safe, calls nothing but getpid (through its caller). */
bool
jit_note_marker(const char *path, pid_t pid)
{
	size_t n = maps_strlen(path);

	if (!is_marker(path, pid))
		return false;
	for (size_t i = 0; n < sizeof(js_marker) && i <= n; i++)
		((volatile char *)js_marker)[i] = path[i];
	return true;
}

/* Copy SRC into a new file NAME of DFD, at most PROFRUN_JIT_COPY_MAX
 * bytes; *CUT when there was more.  Returns the bytes copied, 0 when
 * nothing was (a file left half written is removed, *FAILED set). */
static uint64_t
copy_into(int src, int dfd, const char *name, bool *cut, bool *failed)
{
	uint64_t done = 0;
	ssize_t n, w;
	int dst = sys_openat(
		dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		0600);

	if (dst < 0) {
		*failed = true;
		return 0;
	}
	*cut = false;
	while ((n = read(src, js_buf, sizeof(js_buf))) > 0) {
		if (done + (uint64_t)n > PROFRUN_JIT_COPY_MAX) {
			n = (ssize_t)(PROFRUN_JIT_COPY_MAX - done);
			*cut = true;
		}
		for (ssize_t off = 0; off < n; off += w) {
			w = write(dst, js_buf + off, (size_t)(n - off));
			if (w <= 0)
				goto fail;
		}
		done += (uint64_t)n;
		if (*cut)
			break;
	}
	if (n < 0 || sys_close(dst) < 0) {
		dst = -1;
		goto fail;
	}
	return done;
fail:
	if (dst >= 0)
		sys_close(dst);
	unlinkat(dfd, name, 0);
	*failed = true;
	return 0;
}

/* Open PATH if it is a regular file of ours, written since NOT_BEFORE_NS
 * (CLOCK_REALTIME; 0: any time).  Returns a descriptor, or -1. */
static int
open_own(const char *path, int64_t not_before_ns)
{
	struct stat st;
	int fd = sys_open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);

	if (fd < 0)
		return -1;
	if (sys_fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    st.st_uid != geteuid() ||
	    (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec <
		    not_before_ns) {
		sys_close(fd);
		return -1;
	}
	return fd;
}

/* Copy PATH beside MEMBER (of DFD) as MEMBER + SUFFIX; its size into
 * *SIZE, PROFRUN_JIT_* flags into *FLAGS. */
static void
copy_one(int dfd, const char *member, const char *path, int64_t not_before,
	 const char *suffix, uint32_t cut_flag, uint64_t *size, uint32_t *flags)
{
	char name[PROFRUN_MEMBER_NAME_MAX + 16];
	size_t m = strlen(member), k = strlen(suffix);
	bool cut = false, failed = false;
	int fd;

	if (m + k >= sizeof(name) || (fd = open_own(path, not_before)) < 0)
		return;
	memcpy(name, member, m);
	memcpy(name + m, suffix, k + 1);
	*size = copy_into(fd, dfd, name, &cut, &failed);
	sys_close(fd);
	if (cut)
		*flags |= cut_flag;
	if (failed)
		*flags |= PROFRUN_JIT_COPY_FAILED;
}

/* Async-signal-safe (system calls only); once per image. */
void
jit_copy_out(const char *dir, const char *member, pid_t pid, int64_t start_ns)
{
	struct profrun_jit *j = js.jit;
	char map[sizeof("/tmp/perf-.map") + 20];
	uint64_t map_size = 0, dump_size = 0;
	uint32_t flags = 0;
	size_t n;
	int dfd;

	if (j == NULL || __atomic_exchange_n(&js.copied, 1, __ATOMIC_ACQ_REL))
		return;
	memcpy(map, "/tmp/perf-", 10);
	n = 10 + profrun_member_decimal(map + 10, (uint64_t)pid);
	memcpy(map + n, ".map", 5);
	dfd = sys_open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd >= 0) {
		copy_one(dfd, member, map, start_ns - MAP_SLACK_NS,
			 PROFRUN_COMPANION_MAP, PROFRUN_JIT_MAP_CUT, &map_size,
			 &flags);
		if (js_marker[0] != '\0')
			copy_one(dfd, member, js_marker, 0,
				 PROFRUN_COMPANION_JITDUMP,
				 PROFRUN_JIT_DUMP_CUT, &dump_size, &flags);
		sys_close(dfd);
	}
	if (map_size > 0)
		flags |= PROFRUN_JIT_MAP;
	if (dump_size > 0)
		flags |= PROFRUN_JIT_DUMP;
	if (flags != 0 && reserve_room(j, sizeof(*j), true)) {
		js.wrote = true;
		j->range_slots = PROFRUN_JIT_RANGES;
		j->map_size = map_size;
		j->dump_size = dump_size;
		__atomic_store_n(&j->flags, flags, __ATOMIC_RELEASE);
	}
}

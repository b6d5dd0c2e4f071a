/* SPDX-License-Identifier: MIT */
/*
 * Member files of a run directory (include/profrun/format.h), in the order
 * of their offsets:
 *
 *   0            header (PROFRUN_HEADER_SIZE bytes)
 *   strings_off  exe path NUL, then SHIM_NOTE_MAX bytes kept for the note
 *   argv_off     struct profrun_argv, then the arguments  (64-byte aligned;
 *                only in the list, and only when there is a command line)
 *   regions_off  struct profrun_region[PROFRUN_REGION_SLOTS]: the list of
 *                every region, by kind                       (64-byte aligned)
 *   modules_off  struct profrun_module[PROFRUN_MODULE_SLOTS] (64-byte aligned)
 *   wraps_off    struct profrun_wrap[PROFRUN_WRAP_SLOTS]   (64-byte aligned)
 *   hist_off     uint16_t hist[nbuckets]                     (profil's buffer)
 *   pcs_off      struct profrun_pc[PROFRUN_PC_SLOTS]         (64-byte aligned)
 *   vdso_off     room for the vdso's image, copied at the first sample in it
 *   modstr_off   PROFRUN_MODSTR_SIZE bytes of module paths, filled from the end
 *   threads_off  struct profrun_thread[PROFRUN_THREAD_SLOTS]
 *   timeline_off struct profrun_timeline_entry[PROFRUN_TIMELINE_SLOTS], then
 *                struct profrun_timeline: samples in time order, filled
 *                from the head down (only in the list)
 *   log_off      struct profrun_log, then u64[PROFRUN_LOG_SLOTS]: the first
 *                samples (only in the list)                  (64-byte aligned)
 *   pause_off    struct profrun_pause, then u64[PROFRUN_THREAD_SLOTS]: CPU
 *                time while paused (only in the list; written only if
 *                pausing is set up)                          (64-byte aligned)
 *   jit_off      struct profrun_jit, then its ranges: code no object file
 *                holds (only in the list; written only when the scans of
 *                /proc/self/maps find such code)         (64-byte aligned)
 *   offspring_off struct profrun_offspring, its records, then their paths:
 *                the processes the image starts and the images it execs
 *                (only in the list; written from the first child on)
 *                                                            (64-byte aligned)
 *   stacks_off   struct profrun_stacks, then its slots (with -g only; found
 *                through the list alone)                     (64-byte aligned)
 *   wall_off     struct profrun_wall, then its runs of blocked samples
 *                (with --wall only; found through the list alone)
 *                                                            (64-byte aligned)
 *
 * The whole file is reserved on disk when it is created, and an ended
 * process gives back its all-zero pages (writer_release), so what it keeps
 * is the pages it wrote.  The order puts what every process writes into
 * as few pages as it can, two: the header, the strings, the command line,
 * the region list and the first module records share the first page; the
 * module paths (filled from the end of their area) and the first thread
 * records meet in the middle of another.  A process that takes samples
 * writes a third: the head of the timeline and its first entries (below
 * the head), then the head of the log of its first samples and its first
 * keys (above), all in one page, half a page into it.  The histogram and the PC
 * table, written
 * at addresses the samples choose, are touched only once the log is full.
 *
 * exe_off and note_off are absolute file offsets into the string area (so 0
 * can mean "no note").  Files are created O_EXCL|O_NOFOLLOW, mode 0600
 * (in a directory made 0700: a profile holds the program's memory),
 * mapped MAP_SHARED and their descriptor closed at once.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "profrun/member-name.h"
#include "shim.h"
#include "member/member.h"
#include "sys.h"

#define MEMBER_TRIES 10000
#define WRITER_PAUSE_SIZE                                                      \
	(sizeof(struct profrun_pause) + PROFRUN_THREAD_SLOTS * sizeof(uint64_t))
#define WRITER_LOG_SIZE                                                        \
	(sizeof(struct profrun_log) + PROFRUN_LOG_SLOTS * sizeof(uint64_t))
#define WRITER_JIT_SIZE                                                        \
	(sizeof(struct profrun_jit) +                                          \
	 PROFRUN_JIT_RANGES * sizeof(struct profrun_jit_range))
#define WRITER_TIMELINE_SIZE                                                   \
	(PROFRUN_TIMELINE_SLOTS * sizeof(struct profrun_timeline_entry) +      \
	 sizeof(struct profrun_timeline))
#define WRITER_OFFSPRING_SIZE                                                  \
	(sizeof(struct profrun_offspring) +                                    \
	 PROFRUN_OFFSPRING_SLOTS * sizeof(struct profrun_child) +              \
	 PROFRUN_OFFSPRING_PATHS)
#define LAYOUT_PAGE 4096u /* the page the packing aims at (any works) */

/* The first offset at or after X that lies HALF a page into a page: two
 * areas meeting there share that page, each with half of it. */
static uint64_t
mid_page(uint64_t x)
{
	return ALIGN_UP(x + LAYOUT_PAGE / 2, LAYOUT_PAGE) - LAYOUT_PAGE / 2;
}

/* Pure, async-signal-safe. */
void
writer_layout(struct layout *l, size_t exe_len, uint64_t nbuckets,
	      uint32_t vdso_size, uint64_t stacks_size, uint32_t argv_size)
{
	const uint64_t threads_size =
		PROFRUN_THREAD_SLOTS * (uint64_t)sizeof(struct profrun_thread);
	uint64_t end;

	l->strings_off = PROFRUN_HEADER_SIZE;
	l->strings_size = (uint32_t)ALIGN_UP(exe_len + 1 + SHIM_NOTE_MAX, 8);
	l->exe_off = (uint32_t)l->strings_off;
	l->note_area = (uint32_t)(l->strings_off + exe_len + 1);
	end = l->strings_off + l->strings_size;
	/* the command line beside the header, in the pages an ended
	 * process keeps anyway */
	l->argv_off = argv_size ? ALIGN_UP(end, 64) : 0;
	l->argv_size = argv_size;
	if (argv_size)
		end = l->argv_off + argv_size;
	l->regions_off = ALIGN_UP(end, 64);
	l->modules_off = ALIGN_UP(
		l->regions_off +
			PROFRUN_REGION_SLOTS *
				(uint64_t)sizeof(struct profrun_region),
		64);
	l->wraps_off = ALIGN_UP(
		l->modules_off +
			PROFRUN_MODULE_SLOTS *
				(uint64_t)sizeof(struct profrun_module),
		64);
	l->hist_off =
		l->wraps_off +
		PROFRUN_WRAP_SLOTS * (uint64_t)sizeof(struct profrun_wrap);
	l->nbuckets = nbuckets;
	l->pcs_off = ALIGN_UP(l->hist_off + nbuckets * sizeof(uint16_t), 64);
	end = l->pcs_off +
	      PROFRUN_PC_SLOTS * (uint64_t)sizeof(struct profrun_pc);
	l->vdso_off = vdso_size ? ALIGN_UP(end, 64) : 0;
	l->vdso_size = vdso_size;
	if (vdso_size)
		end = l->vdso_off + vdso_size;
	/* module paths end, and thread records begin, half a page in; the
	 * thread records end (the aggregate, written only when a thread
	 * finds no record of its own) half a page into another, and the
	 * timeline's entries (whole pages) half a page into a third, where
	 * its head is, and just after it the log of the first samples */
	l->threads_off = mid_page(end + PROFRUN_MODSTR_SIZE);
	l->modstr_off = l->threads_off - PROFRUN_MODSTR_SIZE;
	l->timeline_off = l->threads_off + threads_size;
	l->timeline_size = WRITER_TIMELINE_SIZE;
	l->log_off = ALIGN_UP(l->timeline_off + l->timeline_size, 64);
	l->log_size = WRITER_LOG_SIZE;
	l->pause_off = ALIGN_UP(l->log_off + l->log_size, 64);
	l->jit_off = ALIGN_UP(l->pause_off + WRITER_PAUSE_SIZE, 64);
	l->offspring_off = ALIGN_UP(l->jit_off + WRITER_JIT_SIZE, 64);
	l->file_size = l->offspring_off + WRITER_OFFSPRING_SIZE;
	l->stacks_off = stacks_size ? ALIGN_UP(l->file_size, 64) : 0;
	l->stacks_size = stacks_size;
	if (stacks_size)
		l->file_size = l->stacks_off + stacks_size;
	l->wall_off = 0;
	l->wall_size = 0;
	/* whole pages: the last one is given back too when it stays zero */
	l->file_size = ALIGN_UP(l->file_size, LAYOUT_PAGE);
}

/* Pure, async-signal-safe. */
void
writer_layout_wall(struct layout *l, uint64_t wall_size)
{
	if (wall_size == 0)
		return;
	l->wall_off = l->file_size;
	l->wall_size = wall_size;
	l->file_size = ALIGN_UP(l->wall_off + wall_size, LAYOUT_PAGE);
}

/* The list of the regions of layout L into the member image BASE.  Every
 * kind but the sample log is one a reader can do without (older readers
 * find them through the header); a reader that does not know the log
 * refuses the file rather than miss its samples.  Pure,
 * async-signal-safe. */
static void
write_regions(void *base, const struct layout *l)
{
	struct profrun_header *h = base;
	struct profrun_region r[] = {
		{PROFRUN_REGION_STRINGS, 1, 0, l->strings_off, l->strings_size},
		{PROFRUN_REGION_WRAPS, 1, 0, l->wraps_off,
		 PROFRUN_WRAP_SLOTS * (uint64_t)sizeof(struct profrun_wrap)},
		{PROFRUN_REGION_HIST, 1, 0, l->hist_off, l->nbuckets * 2},
		{PROFRUN_REGION_PCS, 1, 0, l->pcs_off,
		 PROFRUN_PC_SLOTS * (uint64_t)sizeof(struct profrun_pc)},
		{PROFRUN_REGION_MODULES, 1, 0, l->modules_off,
		 PROFRUN_MODULE_SLOTS *
			 (uint64_t)sizeof(struct profrun_module)},
		{PROFRUN_REGION_MODSTR, 1, 0, l->modstr_off,
		 PROFRUN_MODSTR_SIZE},
		{PROFRUN_REGION_VDSO, 1, 0, l->vdso_off, l->vdso_size},
		{PROFRUN_REGION_THREADS, 1, 0, l->threads_off,
		 PROFRUN_THREAD_SLOTS *
			 (uint64_t)sizeof(struct profrun_thread)},
		{PROFRUN_REGION_PAUSE, 1, 0, l->pause_off, WRITER_PAUSE_SIZE},
		{PROFRUN_REGION_OFFSPRING, 1, 0, l->offspring_off,
		 WRITER_OFFSPRING_SIZE},
		{PROFRUN_REGION_STACKS, 1, 0, l->stacks_off, l->stacks_size},
		{PROFRUN_REGION_JIT, 1, 0, l->jit_off, WRITER_JIT_SIZE},
		{PROFRUN_REGION_ARGV, 1, 0, l->argv_off, l->argv_size},
		{PROFRUN_REGION_LOG, 1, PROFRUN_REGION_REQUIRED, l->log_off,
		 l->log_size},
		{PROFRUN_REGION_TIMELINE, 1, 0, l->timeline_off,
		 l->timeline_size},
		{PROFRUN_REGION_WALL, 1, 0, l->wall_off, l->wall_size},
		{PROFRUN_REGION_DIRECTORY, 1, 0, l->regions_off, 0},
	};
	const size_t nr = sizeof(r) / sizeof(r[0]);
	uint32_t n = 0;

	_Static_assert(sizeof(r) / sizeof(r[0]) <= PROFRUN_REGION_SLOTS,
		       "region list overflows its room");
	for (size_t i = 0; i < nr; i++)
		n += r[i].size > 0 || r[i].kind == PROFRUN_REGION_DIRECTORY;
	r[nr - 1].size = n * (uint64_t)sizeof(struct profrun_region);
	n = 0;
	for (size_t i = 0; i < nr; i++)
		if (r[i].size > 0)
			memcpy((char *)base + l->regions_off +
				       n++ * sizeof(struct profrun_region),
			       &r[i], sizeof(r[i]));
	h->regions_off = l->regions_off;
	h->region_count = n;
}

/* Pure, async-signal-safe. */
void
writer_init(void *base, const struct layout *l, const struct target *t,
	    const struct proc_info *p)
{
	struct profrun_header *h = base;

	memcpy(h->magic, PROFRUN_MAGIC, PROFRUN_MAGIC_LEN);
	h->version = PROFRUN_VERSION;
	h->min_version = PROFRUN_MIN_VERSION;
	h->header_size = PROFRUN_HEADER_SIZE;
	h->file_size = l->file_size;
	h->strings_off = l->strings_off;
	h->strings_size = l->strings_size;
	h->wrap_slots = PROFRUN_WRAP_SLOTS;
	h->wraps_off = l->wraps_off;
	h->hist_off = l->hist_off;
	h->nbuckets = l->nbuckets;
	h->text_start = t->text_start;
	h->text_end = t->text_end;
	h->load_bias = t->load_bias;
	h->bucket_size = t->bucket_size;
	h->scale = t->scale;
	h->pid = p->pid;
	h->ppid = p->ppid;
	h->exe_off = l->exe_off;
	h->note_off = 0;
	h->build_id_len = t->build_id_len;
	memcpy(h->build_id, t->build_id, t->build_id_len);
	h->rate_requested = p->rate_requested;
	h->start_ns = p->start_ns;
	h->cpu_start_ns = p->cpu_start_ns;
	h->state = PROFRUN_STATE_RUNNING;
	h->exit_code = -1;
	h->pcs_off = l->pcs_off;
	h->pc_slots = PROFRUN_PC_SLOTS;
	h->pc_probe = PROFRUN_PC_PROBE;
	h->modules_off = l->modules_off;
	h->module_slots = PROFRUN_MODULE_SLOTS;
	h->modstr_off = l->modstr_off;
	h->modstr_size = PROFRUN_MODSTR_SIZE;
	h->vdso_off = l->vdso_off;
	h->vdso_size = 0; /* until the image is copied (shim.c) */
	h->threads_off = l->threads_off;
	h->thread_slots = PROFRUN_THREAD_SLOTS;
	/* the log's head stays zero (its size is its region's): a process
	 * without samples never writes its page */
	write_regions(base, l);
	memcpy((char *)base + l->exe_off, t->exe, strlen(t->exe) + 1);
	if (l->argv_size > 0 && p->argv != NULL)
		memcpy((char *)base + l->argv_off, p->argv, l->argv_size);
}

/* Pure, async-signal-safe. */
void
writer_capture_argv(struct shim_argv *a, int argc, char *const *argv)
{
	uint32_t used = 0;

	memset(&a->head, 0, sizeof(a->head));
	for (int i = 0; argv != NULL && i < argc && argv[i] != NULL; i++) {
		size_t len = strlen(argv[i]) + 1;

		a->head.argc_all++;
		if (a->head.flags & PROFRUN_ARGV_TRUNCATED)
			continue;
		if (len > PROFRUN_ARGV_MAX - used) {
			/* the first that does not fit: as much of it as
			 * does, and nothing after it */
			len = PROFRUN_ARGV_MAX - used;
			a->head.flags |= PROFRUN_ARGV_TRUNCATED;
			if (len == 0)
				continue;
			memcpy(a->data + used, argv[i], len - 1);
			a->data[used + len - 1] = '\0';
		} else
			memcpy(a->data + used, argv[i], len);
		used += (uint32_t)len;
		a->head.argc++;
	}
	a->head.size = used;
}

/* Pure. */
uint32_t
writer_argv_size(const struct shim_argv *a)
{
	if (a == NULL || a->head.argc == 0)
		return 0;
	return (uint32_t)(sizeof(a->head) + a->head.size);
}

/* Not async-signal-safe (getcwd). */
int
writer_absolute(const char *path, char *out, size_t outsz)
{
	size_t len = strlen(path), cwd;

	if (len == 0)
		return -EINVAL;
	if (path[0] == '/') {
		if (len >= outsz)
			return -ENAMETOOLONG;
		memcpy(out, path, len + 1);
		return 0;
	}
	if (getcwd(out, outsz) == NULL)
		return -errno;
	cwd = strlen(out);
	if (cwd + 1 + len >= outsz)
		return -ENAMETOOLONG;
	if (cwd > 1 || out[0] != '/')
		out[cwd++] = '/';
	memcpy(out + cwd, path, len + 1);
	return 0;
}

/* Async-signal-safe. */
int
writer_open_dir(const char *dir)
{
	int flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
	int fd = sys_open(dir, flags);

	/* opened first: a fork child in a seccomp sandbox needs no mkdir */
	if (fd >= 0 || errno != ENOENT)
		return fd < 0 ? -errno : fd;
	if (mkdir(dir, 0700) < 0 && errno != EEXIST)
		return -errno;
	fd = sys_open(dir, flags);
	return fd < 0 ? -errno : fd;
}

/* Write zeros over [0, SIZE) of FD: the blocks of a file system without
 * fallocate.  Async-signal-safe. */
static int
write_zeros(int fd, uint64_t size)
{
	/* one page of zeros, up to 16 times over per call: 64 KiB of zeros
	 * in the shim's read-only data would push its strings into another
	 * window of pages that every process faults in */
	static const char zeros[4096];
	struct iovec iov[16];
	uint64_t off = 0;

	while (off < size) {
		uint64_t left = size - off;
		int cnt = 0;
		ssize_t w;

		for (; cnt < 16 && left > 0; cnt++) {
			iov[cnt].iov_base = (void *)zeros;
			iov[cnt].iov_len = left < sizeof(zeros) ? (size_t)left
								: sizeof(zeros);
			left -= iov[cnt].iov_len;
		}
		w = pwritev(fd, iov, cnt, (off_t)off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? -errno : -ENOSPC;
		off += (uint64_t)w;
	}
	return 0;
}

/* Give FD its SIZE bytes, every block of them allocated, so that a full
 * disk fails here and never as SIGBUS on a store into the mapping later
 * (the program itself may fill the disk while it runs): fallocate where
 * the file system has it, else written zeros.  A size the process's
 * RLIMIT_FSIZE does not allow is refused before any write (which would
 * raise SIGXFSZ).  Async-signal-safe. */
static int
size_member(int fd, uint64_t size)
{
	struct rlimit rl;

	if (sys_getrlimit(RLIMIT_FSIZE, &rl) == 0 &&
	    rl.rlim_cur != RLIM_INFINITY && size > rl.rlim_cur)
		return -EFBIG;
	if (sys_fallocate(fd, 0, 0, (off_t)size) == 0)
		return 0;
	if (errno != EOPNOTSUPP && errno != ENOSYS)
		return -errno;
	return write_zeros(fd, size);
}

/* Async-signal-safe. */
int
writer_create_member_fd(int dfd, pid_t pid, uint64_t size, bool reserve,
			void **base, char *name, int *fdp)
{
	char buf[PROFRUN_MEMBER_NAME_MAX];
	struct rlimit rl;
	int fd = -1, r;
	void *p;

	for (unsigned n = 0; fd < 0 && n < MEMBER_TRIES; n++) {
		profrun_member_name(buf, (uint64_t)pid, n);
		fd = sys_openat(dfd, buf,
				O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW |
					O_CLOEXEC,
				0600);
		if (fd < 0 && errno != EEXIST)
			return -errno;
	}
	if (fd < 0)
		return -EEXIST;
	if (reserve)
		r = size_member(fd, size);
	else if (sys_getrlimit(RLIMIT_FSIZE, &rl) == 0 &&
		 rl.rlim_cur != RLIM_INFINITY && size > rl.rlim_cur)
		r = -EFBIG; /* refused before ftruncate raises SIGXFSZ */
	else
		r = sys_ftruncate(fd, (off_t)size) < 0 ? -errno : 0;
	p = r < 0 ? MAP_FAILED
		  : sys_mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
			     0);
	if (p == MAP_FAILED && r == 0)
		r = -errno;
	/* the process touches a few scattered pages of its member: reading
	 * ahead around each would fill the page cache with pages of holes,
	 * all to be zeroed now and dropped again at exit */
	if (r == 0)
		sys_madvise(p, size, MADV_RANDOM);
	if (r < 0 || fdp == NULL)
		sys_close(fd);
	if (r < 0) {
		unlinkat(dfd, buf, 0);
		return r;
	}
	*base = p;
	if (fdp != NULL)
		*fdp = fd;
	if (name != NULL)
		memcpy(name, buf, strlen(buf) + 1);
	return 0;
}

/* Async-signal-safe. */
int
writer_create_member(int dfd, pid_t pid, uint64_t size, void **base, char *name)
{
	return writer_create_member_fd(dfd, pid, size, true, base, name, NULL);
}

/* Async-signal-safe. */
int
writer_fill(int fd, uint64_t size)
{
	return size_member(fd, size);
}

/* Replace the mapping of the member H by private memory of the same size
 * and contents (the file keeps what was stored so far), so that no later
 * store can meet a block given back.  Async-signal-safe. */
void
writer_detach(struct profrun_header *h)
{
	size_t size = h->file_size;
	void *p = sys_mmap(NULL, size, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p != MAP_FAILED) {
		memcpy(p, h, size); /* holes read as zeros: no block taken */
		if (mremap(p, size, size, MREMAP_MAYMOVE | MREMAP_FIXED, h) !=
		    MAP_FAILED)
			return;
		sys_munmap(p, size);
	}
	/* no room for a copy: zeros (every table then reads as empty or
	 * full, and nothing indexes by them) */
	sys_mmap(h, size, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
}

/* Async-signal-safe. */
void
writer_set_note(struct profrun_header *h, uint32_t note_area, const char *note)
{
	char *dst = (char *)h + note_area;
	size_t len = strlen(note);

	if (__atomic_load_n(&h->note_off, __ATOMIC_ACQUIRE) != 0)
		return; /* keep the first reason */
	if (len > SHIM_NOTE_MAX - 1)
		len = SHIM_NOTE_MAX - 1;
	memcpy(dst, note, len);
	dst[len] = '\0';
	__atomic_store_n(&h->note_off, note_area, __ATOMIC_RELEASE);
}

/* Async-signal-safe. */
int64_t
writer_now_ns(void)
{
	struct timespec ts;

	if (sys_clock_gettime(CLOCK_REALTIME, &ts) < 0)
		return 0;
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Async-signal-safe. */
int64_t
writer_mono_ns(void)
{
	struct timespec ts;

	if (sys_clock_gettime(CLOCK_MONOTONIC, &ts) < 0)
		return 0;
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Async-signal-safe. */
uint64_t
writer_cpu_ns(void)
{
	struct timespec ts;

	if (sys_clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) < 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t
tv_ns(const struct timeval *tv)
{
	return (uint64_t)tv->tv_sec * 1000000000u +
	       (uint64_t)tv->tv_usec * 1000u;
}

/* Async-signal-safe. */
void
writer_finish(struct profrun_header *h, uint32_t state, int32_t exit_code)
{
	struct rusage ru;

	h->end_ns = writer_now_ns();
	if (sys_getrusage(RUSAGE_SELF, &ru) == 0) {
		h->cpu_user_ns = tv_ns(&ru.ru_utime);
		h->cpu_sys_ns = tv_ns(&ru.ru_stime);
	}
	h->exit_code = exit_code;
	__atomic_store_n(&h->state, state, __ATOMIC_RELEASE);
}

/* True when the PAGE bytes at P are all zero.  Pure, async-signal-safe. */
static bool
page_is_zero(const uint64_t *p, size_t page)
{
	for (size_t i = 0; i < page / sizeof(*p); i++)
		if (p[i] != 0)
			return false;
	return true;
}

/* Give back [START, END) of the mapping at BASE: a hole in the file. */
static void
punch(char *base, size_t start, size_t end)
{
	if (end > start)
		sys_madvise(base + start, end - start, MADV_REMOVE);
}

/* The stack slots' span of H into [*LO, *HI) (empty without -g).
 * Pure. */
static void
slots_span(const struct profrun_header *h, uint64_t *lo, uint64_t *hi)
{
	*lo = *hi = 0;
	for (uint32_t i = 0; i < h->region_count && i < PROFRUN_REGION_SLOTS;
	     i++) {
		const struct profrun_region *r =
			(const void *)((const char *)h + h->regions_off +
				       (uint64_t)i * sizeof(*r));

		if (r->kind == PROFRUN_REGION_STACKS &&
		    r->size > sizeof(struct profrun_stacks)) {
			*lo = r->off + sizeof(struct profrun_stacks);
			*hi = r->off + r->size;
		}
	}
}

/* True when [OFF, OFF + PAGE) meets one of the N extents X. */
static bool
in_extents(const struct extent *x, size_t n, uint64_t off, size_t page)
{
	for (size_t i = 0; i < n; i++)
		if (x[i].lo < off + page && off < x[i].hi)
			return true;
	return false;
}

/* Offset of the head of region R: at its end for the timeline (its
 * entries grow down from it), else at its start.  Pure. */
static uint64_t
region_head(const struct profrun_region *r)
{
	if (r->kind == PROFRUN_REGION_TIMELINE &&
	    r->size >= sizeof(struct profrun_timeline))
		return r->off + r->size - sizeof(struct profrun_timeline);
	return r->off;
}

#define RELEASE_CHUNK  4096u /* pages looked at per mincore() */
#define SLOT_PUNCH_MIN 16u   /* zero pages in a row given back among slots */
#define MAX_EXTENTS    24u

/* Where the member H may hold what its process wrote, by what the
 * counts in it say was written (the record counts, the log's claims, the
 * stack area's offers); the tables the samples' addresses index, only
 * once the log was full.  A page outside all of them was never written.
 * Returns how many extents went to X.  Pure, async-signal-safe. */
static size_t
written_extents(const struct profrun_header *h, struct extent *x,
		const struct extent *held, size_t nheld)
{
	const char *base = (const char *)h;
	uint64_t size = h->file_size, path_lo = UINT64_MAX;
	uint32_t mods = h->module_count < h->module_slots ? h->module_count
							  : h->module_slots;
	uint32_t threads = h->thread_count;
	bool log_full = true; /* no log: every sample in the tables */
	size_t n = 0;

#define ADD(lo_, len_)                                                         \
	do {                                                                   \
		uint64_t lo = (lo_), len = (len_);                             \
		if (len > 0 && lo < size && n < MAX_EXTENTS)                   \
			x[n++] = (struct extent){                              \
				lo, len < size - lo ? lo + len : size};        \
	} while (0)

	ADD(h->strings_off, h->strings_size);
	ADD(h->regions_off,
	    (uint64_t)h->region_count * sizeof(struct profrun_region));
	ADD(h->modules_off, (uint64_t)mods * sizeof(struct profrun_module));
	for (uint32_t i = 0; i < mods; i++) {
		const struct profrun_module *m =
			(const void *)(base + h->modules_off +
				       (uint64_t)i * sizeof(*m));

		if (m->path_off >= h->modstr_off && m->path_off < path_lo)
			path_lo = m->path_off;
	}
	if (path_lo != UINT64_MAX)
		ADD(path_lo, h->modstr_off + h->modstr_size - path_lo);
	if (h->thread_slots > 0) {
		if (threads > h->thread_slots)
			threads = h->thread_slots;
		ADD(h->threads_off,
		    (uint64_t)threads * sizeof(struct profrun_thread));
		ADD(h->threads_off + (uint64_t)(h->thread_slots - 1) *
					     sizeof(struct profrun_thread),
		    sizeof(struct profrun_thread));
	}
	if (h->vdso_size > 0)
		ADD(h->vdso_off, h->vdso_size);
	for (uint32_t i = 0; i < h->region_count && i < PROFRUN_REGION_SLOTS;
	     i++) {
		const struct profrun_region *r =
			(const void *)(base + h->regions_off +
				       (uint64_t)i * sizeof(*r));

		/* a region whose head was never reserved was never written,
		 * and is not read either (on tmpfs, reading a hole through
		 * the mapping takes a block) */
		uint64_t head = region_head(r);

		if (held != NULL && !in_extents(held, nheld, head, 64))
			continue;
		if (r->kind == PROFRUN_REGION_ARGV) {
			ADD(r->off, r->size);
		} else if (r->kind == PROFRUN_REGION_LOG &&
			   r->size >= sizeof(struct profrun_log)) {
			const struct profrun_log *lg =
				(const void *)(base + r->off);
			uint64_t slots =
				(r->size - sizeof(*lg)) / sizeof(uint64_t);
			uint64_t used =
				lg->claimed < slots ? lg->claimed : slots;

			log_full = lg->claimed >= slots;
			ADD(r->off, sizeof(*lg) + used * sizeof(uint64_t));
		} else if (r->kind == PROFRUN_REGION_TIMELINE &&
			   r->size >= sizeof(struct profrun_timeline)) {
			uint64_t top = r->off + r->size -
				       sizeof(struct profrun_timeline);
			const struct profrun_timeline *tl =
				(const void *)(base + top);
			uint64_t slots = (top - r->off) /
					 sizeof(struct profrun_timeline_entry);
			uint64_t used =
				tl->claimed < slots ? tl->claimed : slots;

			used *= sizeof(struct profrun_timeline_entry);
			ADD(top - used, used + sizeof(*tl));
		} else if (r->kind == PROFRUN_REGION_PAUSE &&
			   r->size >= sizeof(struct profrun_pause)) {
			const struct profrun_pause *ps =
				(const void *)(base + r->off);

			if (ps->thread_slots != 0)
				ADD(r->off, r->size);
		} else if (r->kind == PROFRUN_REGION_OFFSPRING &&
			   r->size >= sizeof(struct profrun_offspring)) {
			const struct profrun_offspring *o =
				(const void *)(base + r->off);
			uint64_t used = o->claimed < o->slot_count
						? o->claimed
						: o->slot_count;

			ADD(r->off,
			    sizeof(*o) + used * sizeof(struct profrun_child));
			if (o->path_used > 0)
				ADD(r->off + sizeof(*o) +
					    (uint64_t)o->slot_count *
						    sizeof(struct
							   profrun_child),
				    o->path_used);
		} else if (r->kind == PROFRUN_REGION_STACKS &&
			   r->size >= sizeof(struct profrun_stacks)) {
			const struct profrun_stacks *st =
				(const void *)(base + r->off);
			uint64_t used = st->offered < st->slot_count
						? st->offered
						: st->slot_count;

			ADD(r->off, sizeof(*st) + used * st->slot_size);
		} else if (r->kind == PROFRUN_REGION_WALL &&
			   r->size >= sizeof(struct profrun_wall)) {
			const struct profrun_wall *w =
				(const void *)(base + r->off);
			uint64_t used = w->claimed < w->slot_count
						? w->claimed
						: w->slot_count;

			ADD(r->off,
			    sizeof(*w) + used * sizeof(struct profrun_blocked));
		}
	}
	if (log_full) {
		ADD(h->wraps_off,
		    (uint64_t)h->wrap_slots * sizeof(struct profrun_wrap));
		ADD(h->hist_off, h->nbuckets * sizeof(uint16_t));
		ADD(h->pcs_off,
		    (uint64_t)h->pc_slots * sizeof(struct profrun_pc));
	}
#undef ADD
	return n;
}

/* Async-signal-safe (mincore, madvise). */
void
writer_release(struct profrun_header *h)
{
	writer_release_in(h, NULL, 0);
}

/* What writer_release_in() carries from one range to the next. */
struct release {
	char *base;
	size_t page;
	const struct extent *x; /* where the counts say something was written */
	size_t nx;
	uint64_t slots_lo, slots_hi;
	size_t run; /* start of the run of zero pages, 0 = none */
};

/* A run of zero pages ends at END (a page that stays): given back, but
 * among the slots taken only a long one.  Async-signal-safe. */
static void
release_end_run(struct release *rl, size_t end)
{
	/* among the slots taken, a short run is the zero tail of a short
	 * copy: one call each (0.2 to 0.9 ms with ext4's online discard,
	 * 1168 of them at the end of a 9-second -g run) for a page or two
	 * of disk; kept */
	if (end - rl->run >= SLOT_PUNCH_MIN * rl->page || end <= rl->slots_lo ||
	    rl->run >= rl->slots_hi)
		punch(rl->base, rl->run, end);
	rl->run = 0;
}

/* Give back the zero pages of [LO, HI) (whole pages).  False when
 * mincore fails.  Async-signal-safe. */
static bool
release_range(struct release *rl, size_t lo, size_t hi)
{
	unsigned char vec[RELEASE_CHUNK];
	size_t page = rl->page;

	for (size_t off = lo; off + page <= hi;) {
		size_t n = (hi - off) / page;

		if (n > RELEASE_CHUNK)
			n = RELEASE_CHUNK;
		if (sys_mincore(rl->base + off, n * page, vec) < 0)
			return false;
		for (size_t i = 0; i < n; i++, off += page) {
			/* a page not in memory holds the zeros fallocate or
			 * the written zeros gave it, unless the process
			 * wrote it and it was written out and dropped (or
			 * swapped out) since: one where the counts say
			 * something was written is read back to be sure */
			bool zero = !(vec[i] & 1) &&
				    !in_extents(rl->x, rl->nx, off, page);

			if (!zero)
				zero = page_is_zero(
					(const uint64_t *)(rl->base + off),
					page);
			if (zero && rl->run == 0)
				rl->run = off;
			else if (!zero && rl->run != 0)
				release_end_run(rl, off);
		}
	}
	return true;
}

/* Async-signal-safe (mincore, madvise). */
void
writer_release_in(struct profrun_header *h, const struct extent *held,
		  size_t nheld)
{
	/* the page size as sysconf has it, from the auxiliary vector,
	 * without bringing in a page of the C library's code at exit */
	size_t page = (size_t)getauxval(AT_PAGESZ), size = h->file_size;
	struct extent x[MAX_EXTENTS], ranges[RESERVE_MAX];
	struct release rl = {(char *)h, page, x, 0, 0, 0, 0};
	size_t nr = 0;
	uint64_t done = 0; /* looked at below this */

	if (page == 0 || page % sizeof(uint64_t) != 0)
		return;
	rl.nx = written_extents(h, x, held, nheld);
	slots_span(h, &rl.slots_lo, &rl.slots_hi);
	/* the header's page stays (a partial last page too; the layout
	 * rounds the file to whole pages) */
	size -= size % page;
	if (held == NULL)
		ranges[nr++] = (struct extent){page, size};
	else {
		/* only what was reserved: a page never reserved is a hole
		 * already, and giving it back again would cost a call for
		 * nothing (nor is it worth a look: a process without
		 * samples holds two pages of a file of hundreds) */
		for (size_t i = 0; i < nheld && nr < RESERVE_MAX; i++) {
			uint64_t lo = held[i].lo - held[i].lo % page,
				 hi = held[i].hi +
				      (page - held[i].hi % page) % page;
			size_t k = nr;

			lo = lo < page ? page : lo;
			hi = hi > size ? size : hi;
			if (lo >= hi)
				continue;
			nr++;
			/* in order of their starts, for one pass */
			while (k > 0 && ranges[k - 1].lo > lo) {
				ranges[k] = ranges[k - 1];
				k--;
			}
			ranges[k] = (struct extent){lo, hi};
		}
	}
	for (size_t i = 0; i < nr; i++) {
		uint64_t lo = ranges[i].lo > done ? ranges[i].lo : done;

		if (lo >= ranges[i].hi)
			continue; /* overlapping extents: each page once */
		/* a gap between ranges is a page that stays */
		if (rl.run != 0 && lo > done)
			release_end_run(&rl, done);
		if (!release_range(&rl, lo, ranges[i].hi))
			return;
		done = ranges[i].hi;
	}
	if (rl.run != 0 && done == size)
		punch(rl.base, rl.run, size);
	else if (rl.run != 0)
		release_end_run(&rl, done);
}

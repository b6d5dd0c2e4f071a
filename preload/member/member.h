/* SPDX-License-Identifier: MIT */
/*
 * member/: the member file's layout, creation, blocks and end; each function
 * below says whether it is async-signal-safe.
 */
#ifndef PROFRUN_MEMBER_H
#define PROFRUN_MEMBER_H

#include "shim.h"

/* ---------------------------------------------------------------- writer.c */
struct layout {
	uint64_t strings_off;
	uint64_t argv_off; /* the command line; 0 when none is kept */
	uint32_t argv_size;
	uint32_t strings_size;
	uint32_t exe_off;   /* absolute file offset of the exe path */
	uint32_t note_area; /* absolute file offset of the note slot */
	uint64_t wraps_off;
	uint64_t hist_off;
	uint64_t nbuckets;
	uint64_t pcs_off;
	uint64_t modules_off;
	uint64_t modstr_off;
	uint64_t vdso_off; /* 0 when no vdso image is kept */
	uint32_t vdso_size;
	uint64_t threads_off;
	uint64_t regions_off;
	uint64_t stacks_off; /* 0 when no stacks are recorded */
	uint64_t stacks_size;
	uint64_t pause_off; /* struct profrun_pause and per-thread CPU */
	uint64_t log_off;   /* struct profrun_log and its keys */
	uint64_t log_size;
	uint64_t jit_off;      /* struct profrun_jit and its ranges */
	uint64_t timeline_off; /* its entries, then struct profrun_timeline */
	uint64_t timeline_size;
	uint64_t offspring_off; /* struct profrun_offspring, records, paths */
	uint64_t wall_off;	/* struct profrun_wall and its runs, 0 = none */
	uint64_t wall_size;
	uint64_t file_size;
};

/* The command line as the constructor received it, bounded. */
struct shim_argv {
	struct profrun_argv head;
	char data[PROFRUN_ARGV_MAX];
};

/* What the header records about the process at start. */
struct proc_info {
	int32_t pid;
	int32_t ppid;
	int64_t start_ns;
	uint64_t cpu_start_ns;
	uint32_t rate_requested;
	const struct shim_argv *argv; /* NULL: none kept */
};

/* Keep ARGC arguments of ARGV into A: as many whole arguments as fit in
 * PROFRUN_ARGV_MAX bytes (the last one cut, flagged truncated, when it
 * alone does not fit).  Pure, async-signal-safe. */
void writer_capture_argv(struct shim_argv *a, int argc, char *const *argv);

/* Bytes of A's region in a member (0 when A is NULL or empty).  Pure. */
uint32_t writer_argv_size(const struct shim_argv *a);

/* Compute the member file layout for an exe path of EXE_LEN bytes (without
 * NUL), NBUCKETS counters, a vdso image of VDSO_SIZE bytes (0: none), a
 * stack area of STACKS_SIZE bytes (0: none) and a command line of
 * ARGV_SIZE bytes (writer_argv_size; 0: none).  Pure, async-signal-safe. */
void writer_layout(struct layout *l, size_t exe_len, uint64_t nbuckets,
		   uint32_t vdso_size, uint64_t stacks_size,
		   uint32_t argv_size);

/* Room for the wall sampler's region (WALL_SIZE bytes, 0: none) at the
 * end of the layout L.  Pure, async-signal-safe. */
void writer_layout_wall(struct layout *l, uint64_t wall_size);

/* Initialize a zero-filled member image BASE (l->file_size bytes): header,
 * exe path, the command line P->argv; the tables, histogram, module records and vdso image stay
 * zero.  Pure, async-signal-safe. */
void writer_init(void *base, const struct layout *l, const struct target *t,
		 const struct proc_info *p);

/* Replace the mapping of the member H by anonymous memory: later stores
 * reach no file.  Async-signal-safe. */
void writer_detach(struct profrun_header *h);

/* Make absolute the run directory PATH (relative to the cwd) into OUT.
 * Not async-signal-safe (getcwd).  Returns 0 or -errno. */
int writer_absolute(const char *path, char *out, size_t outsz);

/* Create the run directory DIR if missing (mode 0755) and open it with
 * O_DIRECTORY|O_NOFOLLOW; a symlink is refused (-ELOOP/-ENOTDIR).  Returns
 * a descriptor or -errno.  Async-signal-safe (system calls only). */
int writer_open_dir(const char *dir);

/* Create a new member "<pid>.prof" or "<pid>-<n>.prof" in DFD with
 * O_CREAT|O_EXCL|O_NOFOLLOW, mode 0644, sized to SIZE bytes and map it
 * MAP_SHARED into *BASE; no descriptor stays open.  The name chosen goes to
 * NAME (at least 64 bytes) if not NULL.  Async-signal-safe. */
int writer_create_member(int dfd, pid_t pid, uint64_t size, void **base,
			 char *name);

/* As writer_create_member, but with RESERVE false the file is only sized
 * (sparse: its blocks are reserved by the caller, reserve.c), and with
 * FDP not NULL its descriptor is left open there for the caller to close.
 * Async-signal-safe. */
int writer_create_member_fd(int dfd, pid_t pid, uint64_t size, bool reserve,
			    void **base, char *name, int *fdp);

/* Give FD's first SIZE bytes their blocks (fallocate, else written
 * zeros).  Async-signal-safe.  Returns 0 or -errno. */
int writer_fill(int fd, uint64_t size);

/* Record the NUL-terminated NOTE (truncated to the reserved room) and point
 * header.note_off at it.  Async-signal-safe. */
void writer_set_note(struct profrun_header *h, uint32_t note_area,
		     const char *note);

/* Record the end of this image's profile: end_ns, CPU times, STATE and
 * EXIT_CODE.  Async-signal-safe (clock_gettime, getrusage). */
void writer_finish(struct profrun_header *h, uint32_t state, int32_t exit_code);

/* The process is done with its member H for good (it exits, and nothing
 * will write to it again): give back the blocks of its all-zero pages (a
 * hole punched with MADV_REMOVE; pages never touched are not read), so an
 * ended process keeps only what it holds.  A killed process never gets
 * here and keeps its whole file.  Async-signal-safe. */
void writer_release(struct profrun_header *h);

/* A range of file offsets, [lo, hi). */
struct extent {
	uint64_t lo, hi;
};

/* writer_release looking only at the pages that meet one of the NHELD
 * extents HELD (the blocks reserved; NULL: the whole file).
 * Async-signal-safe. */
void writer_release_in(struct profrun_header *h, const struct extent *held,
		       size_t nheld);

/* ---------------------------------------------------------------- reserve.c
 * The member's blocks, reserved as they come to be needed, so that no
 * store of the shim can meet a block the disk does not have (SIGBUS). */
#define RESERVE_ALL                                                            \
	1u		  /* every block at once (a seccomp filter, --wall);
			    to reserve_open: the writer reserved them */
#define RESERVE_PAUSE 2u  /* the pause record is written from the start */
#define RESERVE_MAX   12u /* extents reserve_held() may return */

/* Whether a member is to be reserved whole at start: FLAGS has
 * RESERVE_ALL, or a seccomp filter is in force (installed before this
 * image, or by this process or its parent through an interposer: later
 * reservations need system calls a filter may refuse).
 * Async-signal-safe. */
bool reserve_whole(uint32_t flags);

/* Reserve at start, through FD, what the member BASE of layout L is
 * written before and during its first samples; the rest waits for
 * reserve_room().  DIR and NAME (kept, not copied) find the file again.
 * FLAGS: RESERVE_*.  Not async-signal-safe (the first call).  Returns 0
 * or -errno. */
int reserve_open(int fd, void *base, const struct layout *l, const char *dir,
		 const char *name, uint32_t flags);

/* No member (a fork child before its own).  Async-signal-safe. */
void reserve_detach(void);

/* True when the LEN bytes at P in the member may be stored into: reserved
 * at start, or with the rest (reserved now if need be).  False when the
 * disk has no room for them (profiling has stopped, with a note) or, with
 * WAIT false, another thread is reserving.  Async-signal-safe. */
bool reserve_room(const void *p, size_t len, bool wait);

/* True when the LEN bytes at P are reserved already (nothing is ever
 * stored, nor read, in a page that is not).  Async-signal-safe. */
bool reserve_has(const void *p, size_t len);

/* The handler is to store N samples: true when they have their room.
 * Async-signal-safe. */
bool reserve_sample(uint64_t n);

/* Reserve every block of the member now: before a seccomp filter may
 * refuse the system calls a later reservation makes.  Async-signal-safe. */
void reserve_all(void);

/* The extents reserved (at most RESERVE_MAX) into X; their count.
 * Async-signal-safe. */
size_t reserve_held(struct extent *x);

/* Reserve again what reserve_held() lists, after writer_release_in gave
 * its zero pages back (an exec that failed).  Async-signal-safe.  Returns
 * 0 or -errno. */
int reserve_again(void);

/* CLOCK_REALTIME / CLOCK_MONOTONIC / process CPU time in ns.
 * Async-signal-safe. */
int64_t writer_now_ns(void);
int64_t writer_mono_ns(void);
uint64_t writer_cpu_ns(void);

#endif /* PROFRUN_MEMBER_H */

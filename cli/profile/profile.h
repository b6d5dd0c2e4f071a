/* SPDX-License-Identifier: MIT */
/* Reading profrun member files (include/profrun/format.h); run directories
 * are run.h's. */
#ifndef PROFRUN_CLI_PROFILE_H
#define PROFRUN_CLI_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "profrun/format.h"

/* Limits on what a reader accepts, far above what the shim writes (an exe
 * path and a note; PROFRUN_WRAP_SLOTS slots) yet small enough that a
 * hostile header cannot make the reader allocate much: the largest
 * consistent member is the header, 1 MiB of strings, 16 MiB of wrap table
 * and a 32 MiB histogram. */
#define PROFILE_MAX_STRINGS    (1u << 20)
#define PROFILE_MAX_WRAP_SLOTS (1u << 20)
#define PROFILE_MAX_FILE       (64ull * 1024 * 1024)

/* One bucket that got samples: link-time address and exact count. */
struct profile_sample {
	uint64_t addr;
	uint64_t count;
};

/* One object loaded in the process (struct profrun_module). */
struct profile_module {
	const char *path; /* "linux-vdso.so.1" for the vdso; interned */
	char build_id[2 * PROFRUN_BUILD_ID_MAX + 1]; /* hex, "" when none */
	uint64_t start, end; /* runtime executable range */
	uint64_t bias;	     /* runtime - link-time */
	uint32_t kind;	     /* enum profrun_module_kind */
	uint32_t gen_loaded, gen_unloaded;
};

/* One PC outside the main executable, with its samples. */
struct profile_pc {
	uint64_t pc;  /* runtime address */
	uint32_t gen; /* module generation when sampled */
	uint64_t count;
};

/* One thread of a process (struct profrun_thread, validated). */
struct profile_thread {
	int32_t tid; /* -1: the threads that found no record of their own */
	uint32_t flags;
	uint64_t samples;
	uint64_t cpu_ns;       /* CPU time while sampled */
	uint64_t cpu_start_ns; /* its CPU clock when its timer was armed */
	uint64_t paused_ns;    /* of cpu_ns, while sampling was paused */
	uint32_t slot;	       /* index of its record in the file */
	char name[16];	       /* printable */
};

/* The stack area of a member (profrun -g), validated. */
struct profile_stack_area {
	uint64_t off, size; /* the region in the file */
	uint32_t slot_size, slot_count, stack_max;
	uint32_t machine; /* ELF e_machine of the registers: EM_X86_64,
			   * EM_AARCH64, EM_RISCV */
	uint32_t nregs;	  /* registers per slot (DWARF order) */
	uint64_t offered; /* samples offered a slot */
	uint64_t dropped; /* of them, not kept */
	uint64_t failed;  /* of them, the stack could not be read */
	uint8_t *mem;	  /* the slots, when parsed from memory; else they
			   * are read from the file at path */
};

/* The unwound stacks of a merged member (struct profrun_frames). */
struct profile_frames {
	uint64_t off, size; /* the region in the file */
	uint32_t count;	    /* records */
	uint32_t stack_max;
	uint64_t stacks, samples;
	uint8_t *mem; /* the records, read whole (checked) */
};

/* One committed stack of a member. */
struct profile_stack {
	int32_t tid;
	uint32_t flags;	  /* PROFRUN_STACK_PARTIAL */
	uint32_t count;	  /* samples it stands for */
	uint32_t gen;	  /* module generation when taken */
	uint64_t sp;	  /* address of data[0] */
	uint64_t time_ns; /* with PROFRUN_STACK_TIMED: since the start */
	uint64_t regs[PROFRUN_STACK_REGS_MAX]; /* the area's nregs of them,
						* the rest 0 */
	const uint8_t *data;
	uint32_t size;
};

/* One sample of the timeline, in time order. */
struct profile_tick {
	uint64_t t_ns;	 /* since the process's start */
	uint64_t key;	 /* PC | generation << 48 */
	uint32_t thread; /* index of its thread record in the file,
			  * PROFRUN_TIMELINE_NO_THREAD when none */
	bool blocked;	 /* a blocked thread's (--wall), not on the CPU */
};

/* A run of blocked samples of one thread at one PC in one system call
 * (struct profrun_blocked, checked; --wall). */
struct profile_blocked {
	uint64_t key;	  /* PC | generation << 48 */
	uint64_t t_ns;	  /* its first sample, since the process's start */
	uint64_t last_ns; /* its last */
	uint32_t thread;  /* index of its thread record, or
			   * PROFRUN_TIMELINE_NO_THREAD */
	int32_t nr;	  /* x86-64 system call, -1: none */
	uint32_t count;	  /* samples */
};

/* A process the image started, or an image it exec'd (struct
 * profrun_child, checked). */
struct profile_child {
	int32_t pid;
	uint16_t kind;	  /* enum profrun_child_kind */
	uint16_t reason;  /* enum profrun_child_reason */
	uint32_t flags;	  /* enum profrun_child_flags */
	int32_t status;	  /* wait status, with PROFRUN_CHILD_F_REAPED */
	const char *path; /* its image (into child_paths), or NULL */
};

/* One member file: one process image. */
struct profile {
	char *path;		   /* as shown in messages */
	uint64_t dev, ino;	   /* the file read (profile_read) */
	struct profrun_header hdr; /* validated copy */
	char *exe;		   /* executable path ("" when unknown) */
	char *note;		   /* NULL when none */
	char build_id[2 * PROFRUN_BUILD_ID_MAX + 1]; /* hex, "" when none */
	struct profile_sample *samples; /* buckets with count > 0, by address */
	size_t nsamples;
	uint64_t main;	  /* sum of counts: samples inside the histogram */
	uint64_t outside; /* samples outside it */
	unsigned seq;	  /* n of "<pid>-<n>.prof", 0 otherwise */

	/* where the outside samples fell (all empty in older files) */
	bool has_pcs;		/* the file has a PC table */
	struct profile_pc *pcs; /* by PC (NULL when none) */
	size_t npcs;
	struct profile_module *modules; /* in the file's order */
	size_t nmodules;
	/* the modules by start address (indices into modules), and the
	 * highest end among the first i of them: outside_module's search
	 * (NULL in profiles not read by the reader: it scans) */
	uint32_t *mod_by_start;
	uint64_t *mod_max_end;
	uint64_t pcs_lost;	 /* not in the table: it was full */
	uint64_t pcs_unmapped;	 /* not in the table: no usable PC */
	uint64_t pcs_unrecorded; /* outside, but in no count above (files
				  * without a table; samples in flight) */
	const uint8_t *vdso;	 /* the vdso's image (interned), or NULL */
	uint32_t vdso_size;

	/* the threads (none in files of writers with one process timer) */
	bool has_threads;
	struct profile_thread *threads; /* in the order they started */
	size_t nthreads;
	uint64_t thread_cpu_ns;	    /* their CPU time while sampled */
	uint64_t thread_samples;    /* their samples */
	uint64_t thread_startup_ns; /* CPU the threads started through our
				     * hooks used before their timers */
	uint32_t threads_started;   /* threads started through our hooks */

	/* call stacks (profrun -g); none in files without them */
	bool has_stacks;
	struct profile_stack_area stacks;
	/* call stacks already unwound (merged members) */
	bool has_frames;
	struct profile_frames frames;
	char *stacks_note; /* why recorded stacks cannot be read, or NULL */

	/* pausing (all zero in files of processes never paused) */
	bool has_pause;
	struct profrun_pause pause;	/* validated copy */
	uint64_t thread_paused_ns;	/* of thread_cpu_ns, while paused */
	uint64_t pause_off, pause_size; /* its region, while still to be read
					 * from the file (profile_pause_load) */
	uint64_t log_off, log_size;	/* the sample log's region, while still
				     * to be read (profile_log_load) */

	/* code no object file holds, and copies of its names beside the
	 * member (none in files of earlier writers and merged members) */
	struct profrun_jit_range *jit_ranges;
	size_t njit_ranges;
	uint32_t jit_flags;		      /* enum profrun_jit_flags */
	uint64_t jit_map_size, jit_dump_size; /* bytes of the copies */
	uint64_t jit_off, jit_size; /* its region, while still to be read
				     * (profile_jit_load) */
	/* the timeline (none in files of earlier writers and merged
	 * members): the samples in time order, up to its capacity */
	bool has_timeline;
	struct profile_tick *ticks;
	size_t nticks;
	uint64_t ticks_beyond; /* samples after it was full: not in it */
	uint64_t timeline_off, timeline_size; /* its region, to be read */
	/* limited to a window of time (profile_limit_time): the counts,
	 * threads, ticks and stacks are those of [window_lo, window_hi), ns
	 * since the process's start */
	bool windowed;
	uint64_t window_lo, window_hi;
	/* a wall-clock profile (--wall): samples of blocked threads, also
	 * counted in the samples above (and in the ticks) */
	bool has_wall;
	uint32_t wall_interval_ns;	 /* what a blocked sample stands for */
	struct profile_blocked *blocked; /* in the order they began */
	size_t nblocked;
	uint64_t blocked_samples;     /* theirs, in the counts above */
	uint64_t blocked_lost;	      /* taken, but in no run: not located */
	uint64_t wall_wakes;	      /* times the sampler looked */
	uint64_t wall_cpu_ns;	      /* CPU time of the sampler thread */
	int32_t wall_tid;	      /* the sampler thread */
	uint64_t wall_off, wall_size; /* its region, to be read */
	/* the processes it started and the images it exec'd that cannot be
	 * profiled (none in files of earlier writers and merged members,
	 * which have no offspring region: has_offspring false) */
	bool has_offspring;
	struct profile_child *children;
	size_t nchildren;
	uint64_t children_unrecorded; /* past the records: only counted */
	char *child_paths;	      /* their paths, in one block */
	uint64_t offspring_off, offspring_size; /* its region, while still to
						 * be read from the file */

	/* the command line (none in files of earlier writers and merged
	 * members): argc raw arguments, NUL-terminated, in one block */
	char **argv;
	size_t argc;
	uint32_t argc_all;   /* arguments the process had */
	bool argv_truncated; /* some were left out, or cut */
};

/* The parts of a member file that hold data, by file offset, in order;
 * the rest are holes (zeros). */
struct profile_extents {
	struct profile_extent {
		uint64_t off, end;
	} * v;
	size_t n;
	bool known; /* false: the file system could not tell, v is all */
};

/* Read the data extents of [0, SIZE) of FD into the zero-filled BUF,
 * leaving the holes as they are, and list them in X (free X->v).  Returns
 * 0, or -1 (errno set; 0 when the file ended first).
 * (member-extents.c) */
int profile_read_extents(int fd, uint8_t *buf, uint64_t size,
			 struct profile_extents *x);

/* Parse a complete member image BUF of SIZE bytes into OUT.  Returns 0, or
 * -1 with a reason (without the file name) in ERR. */
int profile_parse(const void *buf, size_t size, struct profile *out, char *err,
		  size_t errlen);

/* Open the member file PATH for reading, into *ST: never through a
 * symbolic link, never waiting on a FIFO, a regular file only (noted as
 * an input of the command, util/file.h).  Returns the descriptor, or -1
 * with ERR set. */
struct stat;
int profile_open(const char *path, struct stat *st, char *err, size_t errlen);

/* Read and parse the member file PATH (profile_open).  Returns 0, or -1
 * with ERR set. */
int profile_read(const char *path, struct profile *out, char *err,
		 size_t errlen);

void profile_fini(struct profile *p);

/* Give back the buffer profile_read() keeps for the next member. */
void profile_read_release(void);

/* Read the PC table, module records and vdso image of the validated
 * member image BUF into P, and settle P->outside so that it is the sum
 * of the PC counts, pcs_lost, pcs_unmapped and pcs_unrecorded.  Returns
 * 0, or -1 with a reason in ERR.  (member-outside.c) */
int profile_parse_outside(const uint8_t *buf, struct profile *p, char *err,
			  size_t errlen);

/* Build P's mod_by_start and mod_max_end from its modules (the reader
 * does).  Returns 0, or -1 with a reason in ERR.  (member-outside.c) */
int profile_index_modules(struct profile *p, char *err, size_t errlen);

/* The regions the outside tables occupy in the file, for the overlap
 * checks: fills up to 4 (what, offset, size) and returns how many. */
struct region {
	const char *what;
	uint64_t off, size;
};
size_t profile_outside_regions(const struct profrun_header *h,
			       struct region *r);

/* The region of the thread records, like profile_outside_regions: fills
 * R and returns 1, or 0 when the file has none.  (member-threads.c) */
size_t profile_thread_regions(const struct profrun_header *h, struct region *r);

/* The first entry of KIND in the checked region list of the member image
 * BUF (header H), into OUT; false when there is none.
 * (member-regions.c) */
bool profile_find_region(const uint8_t *buf, const struct profrun_header *h,
			 uint32_t kind, struct profrun_region *out);

/* Read the command line of the validated member image BUF (AVAIL bytes in
 * memory) into P, if it has one.  Returns 0, or -1 with a reason in ERR.
 * (member-argv.c) */
int profile_parse_argv(const uint8_t *buf, size_t avail, struct profile *p,
		       char *err, size_t errlen);

/* Check the size of region entry E, a head of HEAD bytes and at most
 * MAX_ENTRIES u64 after it (WHAT names it in the error).  *LATER: it lies
 * after the AVAIL bytes in memory, to be read from the file later (*OFF
 * and *SIZE set).  Returns 0, or -1 with a reason in ERR.
 * (member-regions.c) */
int profile_region_later(const struct profrun_region *e, size_t head,
			 uint64_t max_entries, size_t avail, const char *what,
			 uint64_t *off, uint64_t *size, bool *later, char *err,
			 size_t errlen);

/* A region noted by profile_region_later (*OFF, *SIZE; nothing when
 * *SIZE is 0) read from FD and given to PARSE; *SIZE set to 0 after.
 * Returns 0, or -1 with a reason in ERR (WHAT names the region).
 * (member-regions.c) */
int profile_region_load(int fd, uint64_t *off, uint64_t *size, const char *what,
			int (*parse)(const uint8_t *rec, uint64_t size,
				     struct profile *p, char *err,
				     size_t errlen),
			struct profile *p, char *err, size_t errlen);

/* The extent of the region list, like the above (member-regions.c). */
size_t profile_region_list_regions(const struct profrun_header *h,
				   struct region *r);

/* Check the region list of the member image BUF (its extent already
 * checked; AVAIL bytes of it in memory): every entry inside the file, known
 * kinds where the header puts them, an unknown kind refused only when
 * marked required; the stack area into P.  Returns 0, or -1 with a reason
 * in ERR. */
int profile_check_region_list(const uint8_t *buf, size_t avail,
			      struct profile *p, char *err, size_t errlen);

/* The stack area of region list entry E (kind PROFRUN_REGION_STACKS) of
 * the member image BUF, of which AVAIL bytes are in memory: its head is
 * read from BUF when there, else later by profile_stacks_load.  Returns 0
 * (an area this reader cannot use is noted in P->stacks_note), or -1 with a
 * reason in ERR.  (member-stacks.c) */
int profile_parse_stacks(const uint8_t *buf, size_t avail, struct profile *p,
			 const struct profrun_region *e, char *err,
			 size_t errlen);

/* Read and check the head of P's stack area from the file FD, and the
 * records of its unwound stacks. */
int profile_stacks_load(int fd, struct profile *p, char *err, size_t errlen);

/* The unwound-stacks region entry E of the member image BUF (AVAIL bytes
 * of it in memory), into P (read later from the file when not in BUF).
 * Returns 0, or -1 with a reason in ERR.  (member-stacks.c) */
int profile_parse_frames(const uint8_t *buf, size_t avail, struct profile *p,
			 const struct profrun_region *e, char *err,
			 size_t errlen);

/* Call FN for each unwound stack of P (COUNT samples, N run-time PCs
 * leaf first), until it returns non-zero (returned).  Returns 0 or FN's
 * value. */
int profile_frames_each(const struct profile *p,
			int (*fn)(void *ctx, uint32_t count,
				  const uint64_t *pcs, size_t n),
			void *ctx);

/* Call FN for each committed stack of P (profile_read's or
 * profile_parse's), in slot order, until it returns non-zero (returned).
 * Slots not committed or not plausible are skipped.  Returns 0, FN's
 * value, or -1 with a reason in ERR (the file cannot be read). */
int profile_stacks_each(const struct profile *p,
			int (*fn)(void *ctx, const struct profile_stack *s),
			void *ctx, char *err, size_t errlen);

/* Read the thread records of the validated member image BUF into P.
 * Returns 0, or -1 with a reason in ERR. */
int profile_parse_threads(const uint8_t *buf, struct profile *p, char *err,
			  size_t errlen);

/* Read the pause record of the validated member image BUF into P (after
 * its threads).  Returns 0, or -1 with a reason in ERR.
 * (member-pause.c) */
int profile_parse_pause(const uint8_t *buf, size_t avail, struct profile *p,
			char *err, size_t errlen);

/* Read the offspring region of the validated member image BUF (AVAIL
 * bytes in memory) into P, or note where to read it later (then
 * profile_offspring_load).  Returns 0, or -1 with a reason in ERR.
 * (member-offspring.c) */
int profile_parse_offspring(const uint8_t *buf, size_t avail, struct profile *p,
			    char *err, size_t errlen);
int profile_offspring_load(int fd, struct profile *p, char *err, size_t errlen);

/* N bytes of FD at OFF into BUF, all of them.  Returns 0, or -1
 * (errno set; 0 when the file ended first).  (member-stacks.c) */
int profile_pread_all(int fd, void *buf, size_t n, uint64_t off);

/* After profile_parse_pause() of a member read only up to its known end:
 * read its pause record from FD, which is after that end.  Returns 0, or
 * -1 with a reason in ERR.  (member-pause.c) */
int profile_pause_load(int fd, struct profile *p, char *err, size_t errlen);

/* Add the samples of the sample log of the validated member image BUF
 * (AVAIL bytes in memory) to P's buckets and outside PCs, or note where
 * to read it later when it lies after AVAIL.  Returns 0, or -1 with a
 * reason in ERR.  (member-log.c) */
int profile_parse_log(const uint8_t *buf, size_t avail, struct profile *p,
		      char *err, size_t errlen);

/* After profile_parse_log() of a member read only up to its known end:
 * read the log from FD.  Returns 0, or -1 with a reason in ERR. */
int profile_log_load(int fd, struct profile *p, char *err, size_t errlen);

/* Read the JIT code record of the validated member image BUF (AVAIL
 * bytes in memory) into P, or note where to read it later.  Returns 0, or
 * -1 with a reason in ERR.  (member-jit.c) */
int profile_parse_jit(const uint8_t *buf, size_t avail, struct profile *p,
		      char *err, size_t errlen);

/* After profile_parse_jit() of a member read only up to its known end:
 * read the record from FD.  Returns 0, or -1 with a reason in ERR. */
int profile_jit_load(int fd, struct profile *p, char *err, size_t errlen);

/* Whether PC lies in executable memory of P that no object file backs. */
bool profile_in_jit(const struct profile *p, uint64_t pc);

/* The copy beside P's member named P->path + SUFFIX (PROFRUN_COMPANION_*),
 * of SIZE bytes as the member says, into *OUT (malloc'd; NULL when SIZE is
 * 0).  Returns 0, or -1 with a reason in ERR (missing, or not that size). */
int profile_jit_copy(const struct profile *p, const char *suffix, uint64_t size,
		     uint8_t **out, char *err, size_t errlen);
/* Note where the timeline of the validated member image BUF is, to be
 * read by profile_timeline_load (member-timeline.c). */
int profile_parse_timeline(const uint8_t *buf, struct profile *p, char *err,
			   size_t errlen);

/* Read the timeline noted by profile_parse_timeline from FD into P's
 * ticks, in time order.  Returns 0, or -1 with a reason in ERR. */
int profile_timeline_load(int fd, struct profile *p, char *err, size_t errlen);

/* Sort P's ticks by time (stable for equal times is not promised). */
void profile_sort_ticks(struct profile *p);

/* Note where the wall region of the validated member image BUF is, to be
 * read by profile_wall_load (member-wall.c). */
int profile_parse_wall(const uint8_t *buf, struct profile *p, char *err,
		       size_t errlen);

/* Read the wall region noted by profile_parse_wall from FD: its runs into
 * P's blocked runs, their samples into P's counts and (when P has a
 * timeline) its ticks.  Call after the timeline is read.  Returns 0, or
 * -1 with a reason in ERR. */
int profile_wall_load(int fd, struct profile *p, char *err, size_t errlen);

/* Limit P's blocked runs to their samples in [LO_NS, HI_NS), and return
 * how many samples that leaves (member-wall.c). */
uint64_t profile_wall_limit(struct profile *p, uint64_t lo_ns, uint64_t hi_ns);

/* Add the N samples of KEYS (PC | generation << 48, 0 = none) to P's
 * buckets and outside PCs, each where the histogram or the PC table would
 * have counted it.  Returns 0, or -1 with a reason in ERR.
 * (member-log.c) */
int profile_add_keys(struct profile *p, const uint64_t *keys, uint64_t n,
		     char *err, size_t errlen);

/* Limit P to its samples taken in [LO_NS, HI_NS) after its start, as its
 * timeline has them: its counts, threads, CPU time (each thread's in the
 * share of its samples in the window), timeline and stacks.  Returns 0, or
 * -1 with a reason in ERR (P keeps no times).  (member-window.c) */
int profile_limit_time(struct profile *p, uint64_t lo_ns, uint64_t hi_ns,
		       char *err, size_t errlen);

/* Add N samples, one per key (PC | generation << 48), to P's outside PCs,
 * and settle its outside counts.  Returns 0, or -1 with a reason in ERR.
 * (member-outside.c) */
int profile_add_outside(struct profile *p, const uint64_t *keys, size_t n,
			char *err, size_t errlen);

/* Of profile_cpu_seconds(P), the CPU seconds used while sampling was
 * paused (0 for a process never paused). */
double profile_paused_seconds(const struct profile *p);

/* CPU seconds of P's that no timer of ours covered (threads not started
 * by pthread_create, or whose timer could not be made); 0 when not
 * known. */
double profile_unsampled_seconds(const struct profile *p);

/* The record of thread TID in P, or NULL. */
const struct profile_thread *profile_thread_find(const struct profile *p,
						 long tid);

/* The process ended cleanly (exit or exec), so its CPU time is known. */
bool profile_complete(const struct profile *p);

/* CPU seconds spent while profiling, or -1 when unknown. */
double profile_cpu_seconds(const struct profile *p);

/* Samples per second the timer was armed for (or requested). */
double profile_armed_hz(const struct profile *p);

/* The exit status of a process whose image never finished but which, as
 * its parent saw, exited (a raw exit_group, not libc's exit), else -1;
 * the signal that killed it, else 0 (header.reaped). */
int profile_raw_exit(const struct profile *p);
int profile_end_signal(const struct profile *p);

/* "complete", "exec'd", "exited (not through libc)", "cut short: ..." */
const char *profile_state_text(const struct profile *p);

/* Reader internals shared by member.c and member-outside.c. */

/* The end of the last region the header places (the stack area, found
 * only through the region list, comes after it). */
uint64_t profile_known_end(const struct profrun_header *h);

/* Refuse sums that no real run can reach (2^62 samples). */
#define PLAUSIBLE_SAMPLES (1ull << 62)

/* Format a refusal reason into ERR; returns -1. */
int profile_fail(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif /* PROFRUN_CLI_PROFILE_H */

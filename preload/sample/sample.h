/* SPDX-License-Identifier: MIT */
/*
 * sample/: the SIGPROF handler, the timers and the wall-clock sampler, what
 * a sample records and the objects its PCs fall in; each function below
 * says whether it is async-signal-safe (the handler calls only those that are).
 */
#ifndef PROFRUN_SAMPLE_H
#define PROFRUN_SAMPLE_H

#include "shim.h"

/* ---------------------------------------------------------------- modules.c */
/* Bytes of the vdso's ELF image to keep (0: no vdso, or too large).
 * Async-signal-safe (reads the image in memory). */
uint32_t modules_vdso_size(void);

/* Record into the member file H from now on (H is mapped and sized by
 * writer_layout): module generations start at 0 (nothing scanned yet),
 * the vdso image is not copied yet.  Async-signal-safe. */
void modules_attach(struct profrun_header *h);

/* Copy the vdso's image (ROOM bytes at E, the vdso's ELF header) into H's
 * room for it, once per member; the handler calls it at the first sample
 * in the vdso.  Async-signal-safe; calls nothing. */
void modules_copy_vdso(struct profrun_header *h, const void *e, uint32_t room);

/* A fork child's new member file H takes over the records of its
 * parent's file FROM (the same objects are loaded) and forgets a scan
 * another thread of the parent had in progress.  Async-signal-safe. */
void modules_attach_copy(struct profrun_header *h,
			 const struct profrun_header *from);

/* Scan the loaded objects (dl_iterate_phdr; then /proc/self/maps with
 * MAPS, which costs openat, read and close) and bring the records up to
 * date: new objects appended with the next generation, objects gone
 * marked unloaded in it.  Concurrent scans fold into one; a scan asked
 * for while one runs is done by that one before it returns.  MAIN_EXE is
 * the main executable's path (its link map has no name).  Not
 * async-signal-safe (dl_iterate_phdr, realpath). */
void modules_scan(const char *main_exe, bool maps);

/* Before an exec, where the link maps cannot be walked: note the code no
 * ELF file holds and the jitdump marker from /proc/self/maps, unless a
 * scan is running.  Async-signal-safe (open, read, close). */
void modules_scan_maps(void);

/* ---------------------------------------------------------------- maps.c */
/* One line of /proc/self/maps. */
struct maps_entry {
	uint64_t start, end, offset;
	bool read;	  /* mapped readable */
	bool exec;	  /* mapped executable */
	const char *path; /* "" for anonymous memory; valid during the call */
};

/* Call FN for each mapping of the process until it returns non-zero
 * (returned).  Returns 0, FN's value, or -1 when the list cannot be read.
 * Async-signal-safe (open, read, close). */
int maps_each(int (*fn)(const struct maps_entry *e, void *arg), void *arg);

/* strlen, and whether S begins with PREFIX, by hand (for the handler).
 * Pure. */
size_t maps_strlen(const char *s);
bool maps_has_prefix(const char *s, const char *prefix);

/* Whether a mapping of PATH holds code a runtime compiled: anonymous
 * memory, a memfd, a deleted file.  Pure. */
bool maps_compiled_code(const char *path);

/* The load bias (runtime - link-time address) of a mapping at START of
 * the ELF file PATH from its file OFFSET, into *BIAS; false when PATH is
 * no ELF file of this class or no PT_LOAD holds OFFSET.
 * Async-signal-safe (open, read, close). */
bool maps_file_bias(const char *path, uint64_t start, uint64_t offset,
		    uint64_t *bias);

/* ---------------------------------------------------------------- jit.c */
/* Record code no ELF file holds into the region J of the member from now
 * on (NULL: none); a fork child's takes over its parent's ranges FROM
 * (NULL: none).  Async-signal-safe. */
void jit_attach(struct profrun_jit *j, const struct profrun_jit *from);

/* Executable memory [START, END) that no ELF file backs: merged into the
 * ranges of the region, or into the nearest when they are full.
 * Async-signal-safe; called by scans only, never concurrently. */
void jit_note_range(uint64_t start, uint64_t end);

/* If PATH is "jit-PID.dump" (a jitdump writer maps it as a marker),
 * remember it for jit_copy_out and return true.  Async-signal-safe. */
bool jit_note_marker(const char *path, pid_t pid);

/* The handler's sample at PC: when PC lies in no module record of H and
 * no range of code already noted, read /proc/self/maps (at the 1st, 2nd,
 * 4th, ... such sample) to note the code it lies in, which the runtime
 * may drop before the image ends.  Async-signal-safe (open, read,
 * close, at most about log2(samples) times). */
void jit_sample(const struct profrun_header *h, uintptr_t pc);

/* The image ends: copy /tmp/perf-PID.map (if written since START_NS and
 * ours) and the jitdump noted beside MEMBER in the run directory DIR,
 * at most PROFRUN_JIT_COPY_MAX bytes each, and record their sizes.  Once
 * per image.  Async-signal-safe (system calls only). */
void jit_copy_out(const char *dir, const char *member, pid_t pid,
		  int64_t start_ns);

/* ---------------------------------------------------------------- timer.c */
/* Install our SIGPROF handler counting into C and arm each thread's CPU
 * timer for FREQ Hz (threads.c); -EBUSY when SIGPROF already has a
 * handler or ITIMER_PROF is armed (a rival came first).  Fills
 * interval_us, rate_requested and RATE_CLIPPED in the header.  On failure
 * profiling is left off.  Async-signal-safe (sigaction, getitimer,
 * timer_create), but the caller must not run concurrently with another
 * start/stop. */
int timer_start(const struct collect *c, uint32_t freq);

/* Switch profiling off without letting a pending SIGPROF reach a default
 * action: disarm the threads' timers, ignore SIGPROF (discards pending
 * ones) and restore the action the program believes it has.
 * Async-signal-safe. */
void timer_stop(void);

/* Stop counting: once it returns no handler reads or writes the member
 * (handlers running on other threads are waited for; a handler that
 * comes later returns at once).  The timers and SIGPROF's action stay as
 * they are: enough for a process that ends now.  No system call unless a
 * handler is running on another thread (sched_yield then).
 * Async-signal-safe. */
void timer_close(void);

/* timer_stop() before an exec: the same, but SIGPROF's action is put
 * back only when the program's is not SIG_IGN (the new image keeps an
 * ignored SIGPROF; after a failed exec timer_start() installs the handler
 * again).  Async-signal-safe. */
void timer_stop_exec(void);

/* In a fork child, before anything else: forget the parent's other
 * threads.  Async-signal-safe. */
void timer_fork_child(void);

/* While ON, SIGPROF is really ignored (samples then are dropped): a
 * posix_spawn child of a program that set SIG_IGN must inherit SIG_IGN.
 * Calls nest across threads.  Async-signal-safe. */
void timer_hold_ignored(bool on);

/* Apply the program's action (SIG_IGN or SIG_DFL) to a SIGPROF someone
 * sent: SIG_DFL ends the process with SIGPROF.  Async-signal-safe. */
void timer_foreign_action(void);

/* In a vfork child: SIGPROF's real action and the calling thread's mask
 * become what the program set (SIG_IGN, blocked); they are the child's
 * own.  Async-signal-safe. */
void timer_vfork_child(void);

/* True while we profile but SIGPROF's action is not our handler any more.
 * Async-signal-safe. */
bool timer_taken_over(void);

/* Forget the timer and handler without touching them (they belong to
 * whoever took them over).  Async-signal-safe. */
void timer_forget(void);

/* The SIGPROF action the program believes is installed, for sigaction()
 * queries and SIG_DFL/SIG_IGN requests while we profile.  Setting it
 * stores it as the kernel would report it back: with the flags and
 * restorer the C library adds, without SIGKILL and SIGSTOP in the mask.
 * Async-signal-safe. */
void timer_get_program_action(struct sigaction *sa);
void timer_set_program_action(const struct sigaction *sa);

/* ---------------------------------------------------------------- threads.c */
/* sigev_value of our timers' signals, telling them from anyone else's. */
#define THREADS_TIMER_MAGIC 0x70726f66

/* Set up the private registry of timers; call once, at start.  Returns 0.
 * Async-signal-safe. */
int threads_init(void);

/* Record threads into the member file H from now on (its records start
 * empty).  Async-signal-safe. */
void threads_attach(struct profrun_header *h);

/* In a fork child, before anything else: the parent's threads and timers
 * are not ours.  Async-signal-safe. */
void threads_fork_child(void);

/* Register the calling thread (MAIN_THREAD: the one that started this
 * image) and arm its timer if we sample now.  FIRST: the image's start,
 * before any handler of ours is installed.  Async-signal-safe. */
void threads_register_self(bool main_thread, bool first);

/* The calling thread ends: disarm its timer, record its CPU time and
 * name.  Async-signal-safe. */
void threads_unregister_self(void);

/* The program started a thread with clone() itself: count it in the
 * header (its CPU time goes unsampled).  Async-signal-safe. */
void threads_count_unhooked(void);

/* Arm a timer of IVAL ns for every registered thread that has none /
 * delete every timer.  Async-signal-safe. */
void threads_arm_all(uint64_t ival);
void threads_disarm_all(void);

/* Pauses leave the timers armed (KEEP): their handler, which runs only
 * on a thread that is running, is what notices the CPU window's edges
 * and the toggle signal.  Set before the first timer.  Not
 * async-signal-safe. */
void threads_keep_ticking(bool keep);

/* Keep each timer expiration with probability SHARE / 2^32 (0: keep all),
 * for rates below the tick.  Async-signal-safe. */
void threads_set_share(uint32_t share);

/* In the handler: how many of N expirations to keep as samples.
 * Async-signal-safe. */
uint64_t threads_keep(uint64_t n);

/* In the handler: N samples of the calling thread.  Async-signal-safe. */
void threads_count_samples(uint64_t n);

/* In the handler: the index of the calling thread's record,
 * PROFRUN_TIMELINE_NO_THREAD when it has none.  Async-signal-safe. */
uint32_t threads_self_index(void);

/* True when no thread but the caller is known to be alive (threads the
 * shim saw start).  Async-signal-safe. */
bool threads_alone(void);

/* Call FN(TID, RECORD INDEX, ARG) for each live thread with a timer of
 * ours (the record index PROFRUN_TIMELINE_NO_THREAD when it has none).
 * Async-signal-safe. */
void threads_each(void (*fn)(int tid, uint32_t rec, void *arg), void *arg);

/* At the end of the image: the CPU time of every live thread, and (NAMES)
 * their names from /proc.  Async-signal-safe (system calls only). */
void threads_finish(bool names);

/* In a pause (pause.c): note every live thread's CPU clock and disarm its
 * timer; at the resume, add each one's CPU time since to its record's
 * paused CPU and re-arm the timers.  Called with the pause lock held.
 * Async-signal-safe. */
void threads_pause(bool pause);

/* Per-thread CPU time while paused, one u64 per thread record, in the
 * member's pause region (NULL: not kept).  Async-signal-safe. */
void threads_attach_paused(uint64_t *paused_ns);

/* ---------------------------------------------------------------- stacks.c */
/* Record stacks of up to STACK_MAX bytes into SLOT_COUNT slots (0: no
 * stacks).  Not async-signal-safe; call once, before any member exists. */
void stacks_configure(uint32_t stack_max, uint32_t slot_count);

/* Bytes of the stack area a member needs, 0 when stacks are off.  Pure,
 * async-signal-safe. */
uint64_t stacks_area_size(void);

/* Record stacks into the area at offset OFF of the member H from now on
 * (0: none).  Async-signal-safe. */
void stacks_attach(struct profrun_header *h, uint64_t off);

/* The calling thread starts: note its stack's bounds.  Not
 * async-signal-safe (pthread_getattr_np). */
void stacks_thread_start(void);

/* In a fork child: draw a sequence of its own.  Async-signal-safe. */
void stacks_fork_child(void);

/* Before an exec, the timers stopped: no slot not yet taken will be (a
 * failed exec's later samples only replace stacks kept), and the blocks
 * of those slots are given back, so a process that execs keeps only the
 * stacks it took.  Async-signal-safe. */
void stacks_seal(void);

/* In the handler: the interrupted context CTX, standing for COUNT samples,
 * in module generation GEN, taken TIME_NS after the process's start.
 * Async-signal-safe. */
void stacks_record(void *ctx, uint32_t count, uint32_t gen, uint64_t time_ns);

/* The wall sampler: the blocked thread TID, whose user registers are
 * SP and PC (it sits in a system call: its stack does not move), at
 * TIME_NS after the process's start in module generation GEN, standing
 * for COUNT samples, offered a slot; the copy is kept only if VERIFY
 * (reading TID's state again) says it is still blocked there.
 * Async-signal-safe. */
void stacks_record_blocked(int tid, uint64_t sp, uint64_t pc, uint32_t gen,
			   uint64_t time_ns, uint32_t count,
			   bool (*verify)(int tid, uint64_t sp, uint64_t pc));

/* ---------------------------------------------------------------- wall.c
 * Wall-clock profiles (PROFRUN_WALL=1, profrun --wall): a sampler thread
 * that takes blocked threads' samples without signalling them. */

/* Sample blocked threads too (once, from the settings).  Not
 * async-signal-safe. */
void wall_configure(bool on);

/* Bytes of the wall region a member needs, 0 when off.  Pure. */
uint64_t wall_area_size(void);

/* Record into the region at offset OFF of the member H (0: none), with
 * times since BASE_NS (CLOCK_MONOTONIC).  Async-signal-safe. */
void wall_attach(struct profrun_header *h, uint64_t off, int64_t base_ns);

/* Start the sampler thread for the attached member (in a fork child:
 * anew).  Not async-signal-safe (pthread_create). */
void wall_start(void);

/* HOLD: no sample is taken from now on, and none is being taken when it
 * returns (before an exec, at exit); !HOLD: sampling goes on (a failed
 * exec).  Async-signal-safe. */
void wall_hold(bool hold);

/* In a fork child: the sampler is the parent's, the child has none.
 * Async-signal-safe. */
void wall_fork_child(void);

/* Whether the wall sampler kept a blocked sample.  Async-signal-safe. */
bool wall_sampled(void);

#endif /* PROFRUN_SAMPLE_H */

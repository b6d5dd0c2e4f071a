/* SPDX-License-Identifier: MIT */
/*
 * profrun on-disk profile format, version 1.
 *
 * This header is the contract between the preload shim (which writes a
 * profile) and the CLI (which reads it).  docs/format.md describes it in
 * prose.  All fields are fixed-width and little-endian; the shim maps the
 * file MAP_SHARED and its own SIGPROF handler counts into it in place
 * (under glibc, profil() only sets up the histogram; its handler never
 * runs), so the file is readable at any moment of the run.
 *
 * A run is a directory holding one member file per process image
 * ("<pid>.prof", or "<pid>-<n>.prof" when that name is taken, e.g. after
 * an exec).  A member file is laid out as:
 *
 *   offset 0                 struct profrun_header      (PROFRUN_HEADER_SIZE)
 *   header.strings_off       NUL-terminated strings (exe path, notes)
 *   header.wraps_off         struct profrun_wrap[wrap_slots]
 *   header.hist_off          uint16_t hist[nbuckets]     (profil()'s layout)
 *   header.pcs_off           struct profrun_pc[pc_slots] (PCs outside it)
 *   header.modules_off       struct profrun_module[module_slots]
 *   header.modstr_off        NUL-terminated module paths
 *   header.vdso_off          a copy of the vdso's ELF image
 *   header.threads_off       struct profrun_thread[thread_slots]
 *   header.regions_off       struct profrun_region[region_count]: the list
 *                            of all of the above, by kind
 *   (region list)            struct profrun_pause, then u64[thread_slots]
 *
 * The last four were appended to version 1: a file that has none of them
 * (zero offsets and sizes, as in files of earlier writers) only counts its
 * samples outside the main executable, without saying where they fell.
 *
 * The exact count of bucket i is hist[i] + 65536 * wraps(i), where wraps(i)
 * is the .wraps of the slot whose .key is i + 1 (0 when there is none).
 */
#ifndef PROFRUN_FORMAT_H
#define PROFRUN_FORMAT_H

#include <stdint.h>

#define PROFRUN_MAGIC	       "PROFRUN\0"
#define PROFRUN_MAGIC_LEN      8
#define PROFRUN_VERSION	       1    /* version this code writes */
#define PROFRUN_MIN_VERSION    1    /* oldest reader version able to read it */
#define PROFRUN_HEADER_SIZE    512u /* bytes reserved for the header */
#define PROFRUN_BUILD_ID_MAX   64u
#define PROFRUN_WRAP_SLOTS     4096u  /* power of two */
#define PROFRUN_PC_SLOTS       16384u /* power of two: 256 KiB of PCs */
#define PROFRUN_PC_PROBE       32u    /* longest probe for a PC's slot */
#define PROFRUN_MODULE_SLOTS   512u   /* module records (56 KiB) */
#define PROFRUN_MODSTR_SIZE    32768u /* bytes for their paths */
#define PROFRUN_VDSO_MAX       65536u /* largest vdso image copied */
#define PROFRUN_THREAD_SLOTS   1024u  /* thread records (64 KiB) */
#define PROFRUN_LOG_SLOTS      4096u  /* first samples kept as PCs (32 KiB) */
#define PROFRUN_TIMELINE_SLOTS 65536u /* samples kept in time order (1 MiB) */

/* A key of the PC table: the runtime PC in the low 48 bits, the module
 * generation current when it was sampled in the high 16. */
#define PROFRUN_PC_BITS 48
#define PROFRUN_PC_MASK ((1ull << PROFRUN_PC_BITS) - 1)
#define PROFRUN_GEN_MAX 0xffffu /* generations saturate here */

/* Cap on the histogram: 16 Mi buckets (32 MiB of uint16_t).  Text larger
 * than 32 MiB gets coarser buckets (the bucket size doubles until the text
 * fits). */
#define PROFRUN_MAX_BUCKETS (16u * 1024u * 1024u)

/* header.state */
enum profrun_state {
	PROFRUN_STATE_RUNNING =
		0, /* never finished: killed, crashed, _exit() */
	PROFRUN_STATE_EXITED =
		1, /* exit(), return from main, _exit() or _Exit() */
	PROFRUN_STATE_EXECED =
		2, /* the image was replaced by a successful exec */
};

/* header.flags */
enum profrun_flags {
	PROFRUN_F_WRAP_OVERFLOW = 1u << 0, /* wrap table full; counts low */
	PROFRUN_F_RATE_CLIPPED = 1u << 1,  /* requested rate above kernel's */
	PROFRUN_F_RIVAL_SIGNAL = 1u << 2,  /* program took over SIGPROF */
	PROFRUN_F_RIVAL_TIMER = 1u << 3,   /* program re-armed ITIMER_PROF */
	PROFRUN_F_RIVAL_PROFIL = 1u << 4,  /* program called profil() */
	PROFRUN_F_STOPPED = 1u << 5,	   /* profiling switched off early */
	PROFRUN_F_PC_OVERFLOW = 1u << 6,   /* PC table full; see pcs_lost */
	PROFRUN_F_ENV_RESTORED = 1u << 7,  /* LD_PRELOAD or PROFRUN_* put back
					    * into an environment the process
					    * passed to exec or posix_spawn */
	PROFRUN_F_ENV_LEFT = 1u << 8,	   /* such an environment left as it
					    * was (PROFRUN_EXACT_ENV): that
					    * image is not profiled */
};

/* header.modules[].kind */
enum profrun_module_kind {
	PROFRUN_MODULE_LIBRARY = 0, /* a shared object from a file */
	PROFRUN_MODULE_MAIN = 1,    /* the main executable (profil covers it) */
	PROFRUN_MODULE_VDSO = 2,    /* the kernel's vdso (image at vdso_off) */
};

/* profrun_module.flags */
enum profrun_module_flags {
	/* one more executable mapping of a file the link maps hold (or of
	 * one they do not), found in /proc/self/maps: start and end are that
	 * mapping's, load_bias maps it to the file's link-time addresses */
	PROFRUN_MODULE_F_MAPPING = 1u << 0,
};

/* The self-describing list of a member's regions: every region the
 * writer laid out, with its kind and that kind's layout version.  A reader
 * skips a kind it does not know, unless the entry says the file cannot be
 * read without it (PROFRUN_REGION_REQUIRED): then it refuses the file,
 * naming the kind.  The fixed header fields above stay the way to find the
 * kinds listed here; a new kind of record (stacks, say) is found only
 * through its entry. */
enum profrun_region_kind {
	PROFRUN_REGION_STRINGS = 1,
	PROFRUN_REGION_WRAPS = 2,
	PROFRUN_REGION_HIST = 3,
	PROFRUN_REGION_PCS = 4,
	PROFRUN_REGION_MODULES = 5,
	PROFRUN_REGION_MODSTR = 6,
	PROFRUN_REGION_VDSO = 7,
	PROFRUN_REGION_THREADS = 8,
	PROFRUN_REGION_DIRECTORY = 9, /* the list itself */
	PROFRUN_REGION_STACKS = 10,   /* call stacks (profrun -g): a
				       * struct profrun_stacks, then its
				       * slots; found only in this list */
	PROFRUN_REGION_PAUSE = 11,  /* struct profrun_pause, then per thread */
	PROFRUN_REGION_FRAMES = 12, /* call stacks already unwound (written
				       * by profrun merge): struct
				       * profrun_frames, then its records */
	PROFRUN_REGION_ARGV = 13,   /* the command line: struct
				     * profrun_argv, then its strings */
	PROFRUN_REGION_LOG = 14,    /* the first samples, one PC each:
				     * struct profrun_log, then its keys */
	PROFRUN_REGION_JIT = 15,    /* code no object file holds: struct
				     * profrun_jit, then its ranges */
	PROFRUN_REGION_TIMELINE = 16,  /* samples in time order: entries,
				       * then struct profrun_timeline */
	PROFRUN_REGION_OFFSPRING = 17, /* the processes this image started
					* and the images it exec'd: struct
					* profrun_offspring, its records,
					* then their paths */
	PROFRUN_REGION_WALL = 18,      /* samples of blocked threads (profrun
					* --wall): struct profrun_wall,
					* then its runs */
};

#define PROFRUN_REGION_REQUIRED 1u  /* profrun_region.flags */
#define PROFRUN_REGION_SLOTS	24u /* entries the shim writes room for */

struct profrun_region {
	uint32_t kind;	  /* enum profrun_region_kind */
	uint16_t version; /* layout version of that kind, from 1 */
	uint16_t flags;	  /* PROFRUN_REGION_REQUIRED */
	uint64_t off;	  /* file offset */
	uint64_t size;	  /* bytes */
};

/* profrun_jit.flags */
enum profrun_jit_flags {
	PROFRUN_JIT_MAP = 1u << 0,	   /* a perf map was copied */
	PROFRUN_JIT_MAP_CUT = 1u << 1,	   /* ...cut at PROFRUN_JIT_COPY_MAX */
	PROFRUN_JIT_DUMP = 1u << 2,	   /* a jitdump was copied */
	PROFRUN_JIT_DUMP_CUT = 1u << 3,	   /* ...cut at PROFRUN_JIT_COPY_MAX */
	PROFRUN_JIT_COPY_FAILED = 1u << 4, /* a copy could not be written */
};

#define PROFRUN_JIT_RANGES   256u		 /* ranges the shim keeps */
#define PROFRUN_JIT_COPY_MAX (64u * 1024 * 1024) /* bytes per copy */

/* Code no object file holds (region PROFRUN_REGION_JIT, version 1, found
 * only through the list): this head, then range_slots ranges of
 * executable memory that no loaded ELF file backs (anonymous memory, a
 * deleted or non-ELF file: code a runtime compiled), as the scans of
 * /proc/self/maps saw them, merged where they touch.  The names of that
 * code are in the copies, beside the member, of the runtime's perf map
 * ("<member>.map", map_size bytes) and jitdump ("<member>.jitdump",
 * dump_size bytes), made when the image ends. */
struct profrun_jit {
	uint32_t range_slots;	/* struct profrun_jit_range that follow */
	uint32_t range_count;	/* of them in use */
	uint32_t ranges_merged; /* ranges merged into the nearest for room */
	uint32_t flags;		/* enum profrun_jit_flags */
	uint64_t map_size;	/* bytes of the perf map copy, 0 = none */
	uint64_t dump_size;	/* bytes of the jitdump copy, 0 = none */
	uint64_t reserved[4];
};

struct profrun_jit_range {
	uint64_t start, end; /* runtime addresses */
};

/* header.timer_kind */
enum profrun_timer_kind {
	PROFRUN_TIMER_ITIMER = 0, /* one ITIMER_PROF for the process */
	PROFRUN_TIMER_THREAD = 1, /* a CPU-time POSIX timer per thread */
};

/* profrun_thread.flags */
enum profrun_thread_flags {
	PROFRUN_THREAD_MAIN = 1u << 0,	/* the thread that started the image */
	PROFRUN_THREAD_ENDED = 1u << 1, /* it ended; cpu_ns is final */
	PROFRUN_THREAD_AGGREGATE = 1u << 2, /* threads that found no slot */
	PROFRUN_THREAD_NO_TIMER = 1u << 3,  /* its timer could not be made */
};

/* One thread of the process.  A thread's CPU time while it was sampled is
 * cpu_ns - cpu_start_ns (its own CPU clock, read when its timer was armed
 * and again at each sample, at its end and at the process's end).  The
 * aggregate record (tid -1, the last slot) adds up the threads that found
 * no slot of their own: samples, cpu_ns (the ended ones' CPU) and
 * cpu_live_ns (the CPU of those still running at the process's end). */
struct profrun_thread {
	int32_t tid;	/* 0 = free slot; -1 = the aggregate record */
	uint32_t flags; /* enum profrun_thread_flags */
	uint64_t samples;
	uint64_t cpu_start_ns;
	uint64_t cpu_ns;
	uint64_t cpu_live_ns;
	char name[16];	  /* as the thread named itself (NUL-terminated) */
	int64_t start_ns; /* CLOCK_REALTIME when it was first seen */
};

/* The area of call stacks (region PROFRUN_REGION_STACKS, version 1):
 * this header, then slot_count slots of slot_size bytes.  Each sample's
 * handler copies the interrupted thread's registers and the top of its
 * stack into a slot: the first slot_count samples each take the next one;
 * later ones replace a slot chosen at random (a uniform sample of all
 * samples, "reservoir"), or are dropped.  A slot is claimed by setting its
 * commit word to 0 and holds a stack only once commit is non-zero (stored
 * last, with release order), so a process killed mid-copy leaves every
 * committed stack readable and the half-written one ignored. */
struct profrun_stacks {
	uint32_t slot_size;  /* bytes per slot, a multiple of 64 */
	uint32_t slot_count; /* slots after this header */
	uint32_t stack_max;  /* most stack bytes a slot holds */
	uint32_t arch;	     /* ELF e_machine of the registers: EM_X86_64
			      * (62), EM_AARCH64 (183), EM_RISCV (243) */
	uint32_t nregs;	     /* registers per slot, in DWARF order: 17 on
			      * x86-64, 33 on AArch64 and RISC-V 64 */
	uint32_t reserved;
	uint64_t offered; /* samples offered a slot (all, with -g) */
	uint64_t dropped; /* of them, not kept: slot busy, or not drawn */
	uint64_t failed;  /* of them, the stack could not be read */
	uint64_t reserved2[2];
};

/* The registers of a slot's head.  A machine with more (nregs above) has
 * the rest after the head, before the stack's bytes: 8 (nregs - 17)
 * bytes.  x86-64: DWARF 0-16, rax rdx rcx rbx rsi rdi rbp rsp r8-r15 rip
 * (all in the head).  AArch64: x0-x30, sp (DWARF 0-31), then pc.  RISC-V
 * 64: x0-x31 (DWARF 0-31; x0 is 0, x2 the sp), then pc. */
#define PROFRUN_STACK_REGS     17
#define PROFRUN_STACK_REGS_MAX 33 /* the most registers of any machine */

/* profrun_stack_slot.flags */
enum profrun_stack_flags {
	PROFRUN_STACK_PARTIAL = 1u << 0, /* cut at stack_max: not up to the
					  * stack's top */
	PROFRUN_STACK_TIMED = 1u << 1,	 /* time_ns holds its time */
	PROFRUN_STACK_BLOCKED = 1u << 2, /* a blocked thread's, taken by the
					  * wall sampler: only the stack
					  * pointer and pc are known (rsp
					  * regs[7] and rip regs[16] on
					  * x86-64), the others are 0 */
};

/* The head of one slot; the registers past the head's 17 (nregs - 17 of
 * them, none on x86-64) follow it, then the stack's bytes from address
 * sp. */
struct profrun_stack_slot {
	uint32_t commit; /* 0 = empty or being written; else committed */
	int32_t tid;
	uint32_t size;	/* stack bytes after this head (<= stack_max) */
	uint32_t flags; /* enum profrun_stack_flags */
	uint32_t count; /* samples this stack stands for (merged timer
			 * expirations) */
	uint32_t gen;	/* module generation when taken */
	uint64_t seq;	/* which offered sample it is, from 0 */
	uint64_t sp;	/* address of the first stack byte copied */
	uint64_t regs[PROFRUN_STACK_REGS];
	uint64_t time_ns; /* with PROFRUN_STACK_TIMED: when it was taken, ns
			   * since the process's start (as in the timeline) */
	uint64_t reserved[2];
};

/* profrun_pause.flags */
enum profrun_pause_flags {
	PROFRUN_PAUSE_F_START_PAUSED = 1u << 0, /* the image started paused */
	PROFRUN_PAUSE_F_TOGGLE = 1u << 1,	/* a toggle signal was set up */
	PROFRUN_PAUSE_F_TOGGLE_OFF = 1u << 2,	/* ...and given back to the
						 * program, which handles it */
	PROFRUN_PAUSE_F_WINDOW = 1u << 3,	/* a CPU-time window was set */
};

/* Pausing (region PROFRUN_REGION_PAUSE, found only through its entry; a
 * file without it was never paused).  While paused, no sample is counted
 * and the CPU time used is added up here instead: for the process
 * (paused_cpu_ns, its CPU clock) and for each thread record (the u64 at
 * index i after this struct, its own CPU clock; thread_slots of them).
 * A pause still open when the process ended is closed by the end. */
struct profrun_pause {
	uint32_t paused;	/* 1 while paused now */
	uint32_t flags;		/* enum profrun_pause_flags */
	uint64_t paused_cpu_ns; /* process CPU time while paused */
	uint64_t mark_cpu_ns;	/* process CPU time when the open pause began */
	uint64_t dropped;	/* timer expirations that came while paused */
	uint32_t pauses;	/* times sampling was paused */
	uint32_t resumes;	/* times it was resumed */
	int32_t toggle_signal;	/* signal number, 0 = none */
	uint32_t thread_slots;	/* u64 entries that follow */
	uint64_t reserved[2];
};

/* Call stacks already unwound (region PROFRUN_REGION_FRAMES, version 1,
 * found only through the list; written by profrun merge, whose members
 * hold no stack area): each record is a struct profrun_frame_record, then
 * n u64 run-time PCs of this member's objects (module generation 1),
 * leaf first: the PC sampled, then each caller's return address - 1. */
struct profrun_frames {
	uint32_t record_count;
	uint32_t stack_max; /* bytes copied per stack when recorded */
	uint64_t stacks;    /* samples the records stand for (their counts) */
	uint64_t samples;   /* all samples of the members that had stacks */
	uint64_t reserved[3];
};

struct profrun_frame_record {
	uint32_t count; /* samples it stands for */
	uint16_t n;	/* PCs that follow */
	uint16_t flags; /* 0 */
};

/* profrun_argv.flags */
enum profrun_argv_flags {
	PROFRUN_ARGV_TRUNCATED = 1u << 0, /* arguments left out: too long */
};

#define PROFRUN_ARGV_MAX 4096u /* bytes of arguments kept, NULs included */

/* The command line of the process (region PROFRUN_REGION_ARGV, version 1,
 * found only through the list): this head, then size bytes holding argc
 * NUL-terminated arguments as the process received them (raw bytes: a
 * reader makes them printable).  A fork child carries its parent's. */
struct profrun_argv {
	uint32_t argc;	   /* arguments kept */
	uint32_t size;	   /* bytes after this head */
	uint32_t flags;	   /* enum profrun_argv_flags */
	uint32_t argc_all; /* arguments the process had */
};

/* The sample log (region PROFRUN_REGION_LOG, version 1, found only
 * through the list, and marked required: its samples are in no other
 * table).  The first samples of the process are each kept here
 * as one key, PC | generation << 48 (as in the PC table), in the slot
 * claimed (by an atomic increment of claimed) for it; later ones go to
 * the histogram and the PC table.  A slot still 0 was claimed by a sample
 * whose handler had not stored it yet (the process was killed at that
 * moment): no sample.  A reader counts a key whose PC lies in the
 * histogram's range as one sample of that bucket, any other as one sample
 * of that PC in the PC table.  The log keeps a short process's samples
 * in a page or two where the histogram and the PC table, indexed by
 * address, would spread them over as many pages as samples. */
struct profrun_log {
	uint32_t slot_count; /* u64 keys after this head; 0: as many as the
			      * region holds (the shim leaves it 0) */
	uint32_t flags;	     /* 0 */
	uint64_t claimed;    /* slots claimed (may exceed slot_count) */
	uint64_t reserved[2];
};

/* The timeline (region PROFRUN_REGION_TIMELINE, version 1, found only
 * through the list, not required: the samples it holds are counted in the
 * log, the histogram and the PC table too).  Each sample of the process
 * until the entries run out (PROFRUN_TIMELINE_SLOTS) is kept here in the
 * order its handler claimed a slot (an atomic increment of claimed): its
 * key, as in the log, and when it was taken, on which thread.  The region
 * is slot_count entries, then this head, its last 32 bytes; entry n (from
 * 0) is the n-th below the head, so that the head and the first entries
 * share a page with the log's head that follows the region.  An entry
 * whose key is still 0 was claimed but never stored (no sample). */
struct profrun_timeline {
	uint32_t slot_count; /* entries below this head; 0: as many as the
			      * region holds (the shim leaves it 0) */
	uint32_t flags;	     /* 0 */
	uint64_t claimed;    /* entries claimed (may exceed slot_count: the
			      * samples beyond it are not in the timeline) */
	int64_t base_ns;     /* CLOCK_MONOTONIC at the process's start (the
			      * header's start_ns); 0 until the first sample */
	uint64_t reserved;
};

/* The thread of an entry that has no thread record */
#define PROFRUN_TIMELINE_NO_THREAD 0xffffu
#define PROFRUN_TIMELINE_NS_BITS   48

struct profrun_timeline_entry {
	uint64_t key;  /* PC | generation << 48, as in the log; 0 = none */
	uint64_t when; /* ns since base_ns in the low 48 bits (modulo 2^48:
			* 78 hours), the index of the thread's record in
			* the high 16 (PROFRUN_TIMELINE_NO_THREAD: none) */
};

#define PROFRUN_WALL_SLOTS 65536u /* runs of blocked samples (2 MiB) */

/* Samples of blocked threads (region PROFRUN_REGION_WALL, version 1,
 * found only through the list, not required: written only by profrun
 * --wall).  A sampler thread of the shim wakes every interval_ns and
 * reads, for each thread of the process that has a timer of ours, its
 * /proc/self/task/TID/syscall: a thread in a system call (or blocked
 * outside one) is one blocked sample at the user PC there, standing for
 * interval_ns of wall-clock time, as a CPU sample stands for interval_ns
 * of CPU time; a running thread is left to its CPU timer.  Consecutive
 * samples of one thread at one PC in one system call make one run: its
 * record is claimed (claimed incremented, only the sampler writes) with
 * count 1, and count grows at each later sample of the run.  A record
 * whose count is 0 was claimed but never stored.  Past slot_count runs,
 * samples are only counted (lost). */
struct profrun_wall {
	uint32_t slot_count;  /* struct profrun_blocked after this head */
	uint32_t interval_ns; /* the sampler's period */
	uint64_t claimed;     /* records claimed (may exceed slot_count) */
	uint64_t wakes;	      /* times the sampler looked at the threads */
	uint64_t samples;     /* blocked samples, in records or lost */
	uint64_t lost;	      /* of them, in no record */
	uint64_t cpu_ns;      /* CPU time the sampler thread used */
	int32_t sampler_tid;  /* the sampler thread (0: none yet) */
	uint32_t flags;	      /* 0 */
	uint64_t reserved;
};

struct profrun_blocked {
	uint64_t key;	  /* PC | generation << 48, as in the log */
	uint64_t when;	  /* the run's first sample, as a timeline entry's */
	uint64_t last_ns; /* its last sample, ns since the timeline's base */
	int32_t nr;	  /* x86-64 system call number; -1: blocked outside
			   * a system call */
	uint32_t count;	  /* samples of the run; 0 = not stored */
};

/* header.reaped: the wait status (waitpid(2)) in the low 16 bits */
#define PROFRUN_REAPED (1u << 31)

#define PROFRUN_OFFSPRING_SLOTS 1024u /* records of one image (24 KiB) */
#define PROFRUN_OFFSPRING_PATHS 8192u /* bytes for their paths */

/* profrun_child.kind: how the image started it */
enum profrun_child_kind {
	PROFRUN_CHILD_FORK = 1,	 /* fork(): a member of its own expected */
	PROFRUN_CHILD_SPAWN = 2, /* posix_spawn(), posix_spawnp() */
	PROFRUN_CHILD_EXEC = 3,	 /* this process exec'd a new image */
};

/* profrun_child.reason: why the image cannot be profiled, 0 = it can (a
 * member is expected from it) */
enum profrun_child_reason {
	PROFRUN_CHILD_PROFILED = 0,
	PROFRUN_CHILD_SETUID = 1,    /* set-user-ID for another user */
	PROFRUN_CHILD_SETGID = 2,    /* set-group-ID for another group */
	PROFRUN_CHILD_CAPS = 3,	     /* file capabilities */
	PROFRUN_CHILD_STATIC = 4,    /* statically linked: no PT_INTERP */
	PROFRUN_CHILD_MUSL = 5,	     /* another C library's loader (musl) */
	PROFRUN_CHILD_FOREIGN = 6,   /* an ELF file of another machine */
	PROFRUN_CHILD_NO_INTERP = 7, /* its interpreter does not exist */
	PROFRUN_CHILD_ENV_LEFT = 8,  /* exec'd with an environment without
				      * the shim, left so (--exact-env) */
};

/* profrun_child.flags */
enum profrun_child_flags {
	PROFRUN_CHILD_F_FAILED = 1u << 0, /* the exec failed: nothing began */
	PROFRUN_CHILD_F_REAPED = 1u << 1, /* status holds its wait status */
	PROFRUN_CHILD_F_SCRIPT = 1u << 2, /* a #! script, judged by its
					   * interpreter */
};

/* The processes an image started and the images it exec'd (region
 * PROFRUN_REGION_OFFSPRING, version 1, found only through the list, not
 * required): this head, then slot_count records, then path_size bytes of
 * NUL-terminated paths.  A record is claimed by an atomic increment of
 * claimed; past slot_count, children are only counted there.  The head
 * stays zero until the first record. */
struct profrun_offspring {
	uint32_t slot_count; /* records after this head; 0: none yet */
	uint32_t path_size;  /* bytes of paths after the records */
	uint64_t claimed;    /* records claimed (may exceed slot_count) */
	uint64_t path_used;  /* bytes of the path area claimed */
	uint64_t reserved;
};

struct profrun_child {
	int32_t pid;	   /* the child (fork, spawn), or the process that
			  * exec'd (exec); 0: claimed, not written yet */
	uint16_t kind;	   /* enum profrun_child_kind */
	uint16_t reason;   /* enum profrun_child_reason */
	uint32_t flags;	   /* enum profrun_child_flags */
	int32_t status;	   /* its wait status, with PROFRUN_CHILD_F_REAPED */
	uint32_t path_off; /* offset of its image's path from the region's
			    * start, 0 = none (a fork, or no room left) */
	uint32_t reserved;
};

/* One slot of the table of PCs outside the main executable's text. */
struct profrun_pc {
	uint64_t key;	/* PC | generation << 48; 0 = free slot */
	uint64_t count; /* samples at that PC in that generation */
};

/* One loaded object, as seen by a scan of the process's link maps.
 * Records are only appended; an object that goes away keeps its record
 * with gen_unloaded set.  A PC sampled in generation g belongs to the
 * record covering it with gen_loaded <= g < gen_unloaded (0 = never). */
struct profrun_module {
	uint64_t start;	     /* runtime address of its lowest PF_X byte */
	uint64_t end;	     /* runtime end of its highest PF_X segment */
	uint64_t load_bias;  /* runtime address - link-time address */
	uint32_t path_off;   /* file offset of its path in the module strings */
	uint32_t kind;	     /* enum profrun_module_kind */
	uint32_t gen_loaded; /* generation of the scan that found it */
	uint32_t gen_unloaded; /* generation of the scan that missed it, 0 */
	uint32_t build_id_len;
	uint32_t flags; /* enum profrun_module_flags */
	uint8_t build_id[PROFRUN_BUILD_ID_MAX];
};

/* One slot of the carry table for 16-bit wraps of profil's counters. */
struct profrun_wrap {
	uint64_t key;	/* bucket index + 1; 0 = free slot */
	uint64_t wraps; /* times hist[key - 1] wrapped past 65535 */
};

struct profrun_header {
	/* identification */
	uint8_t magic[PROFRUN_MAGIC_LEN]; /* PROFRUN_MAGIC */
	uint16_t version;		  /* PROFRUN_VERSION of the writer */
	uint16_t min_version;		  /* reader must be at least this */
	uint32_t header_size;		  /* PROFRUN_HEADER_SIZE */

	/* layout */
	uint64_t file_size;   /* total bytes; the file is exactly this long */
	uint64_t strings_off; /* string area */
	uint32_t strings_size;
	uint32_t wrap_slots; /* entries in the wrap table */
	uint64_t wraps_off;
	uint64_t hist_off;
	uint64_t nbuckets; /* uint16_t counters at hist_off */

	/* address mapping */
	uint64_t text_start;  /* link-time address of bucket 0 */
	uint64_t text_end;    /* link-time end of the covered range */
	uint64_t load_bias;   /* runtime address - link-time address */
	uint32_t bucket_size; /* bytes of text per bucket: 2, 4, 8, ... */
	uint32_t scale;	      /* profil() scale: 65536 * 2 / bucket_size */

	/* the process */
	int32_t pid;
	int32_t ppid;
	uint32_t exe_off; /* file offset of the executable's absolute path */
	/* file offset of a note on why the profile is incomplete, 0 = none */
	uint32_t note_off;
	uint32_t build_id_len;
	uint32_t tick_hz; /* kernel tick (CONFIG_HZ) at start, 0 = unknown */
	uint8_t build_id[PROFRUN_BUILD_ID_MAX];

	/* timing */
	uint32_t rate_requested; /* Hz asked for */
	uint32_t interval_us;	 /* ITIMER_PROF interval actually armed */
	int64_t start_ns;	 /* CLOCK_REALTIME at start */
	int64_t end_ns;		 /* CLOCK_REALTIME at end, 0 if never ended */
	uint64_t cpu_user_ns;	 /* process CPU time at end (all threads) */
	uint64_t cpu_sys_ns;
	uint64_t cpu_start_ns; /* CPU time already used when profiling began */
	uint64_t reserved1;

	/* live counters, updated by the signal handler */
	uint64_t samples_total;	  /* every SIGPROF the handler saw */
	uint64_t samples_outside; /* of those, PC outside the histogram */
	uint64_t wraps_lost;	  /* wraps not recorded (table full) */

	/* outcome */
	uint32_t state; /* enum profrun_state */
	uint32_t flags; /* enum profrun_flags */
	int32_t exit_code; /* exit status when state == EXITED and known, else -1 */
	/* PROFRUN_REAPED | the wait status the process's parent saw (written
	 * by profrun for the program it started, once it ended), 0 = not
	 * known (appended to version 1) */
	uint32_t reaped;

	/* where the samples outside the main executable fell (appended to
	 * version 1: all zero in files without them) */
	uint64_t pcs_off;     /* struct profrun_pc[pc_slots] */
	uint32_t pc_slots;    /* power of two; 0 = no PC table */
	uint32_t pc_probe;    /* longest probe the writer makes */
	uint64_t pcs_lost;    /* outside samples not in the table */
	uint64_t modules_off; /* struct profrun_module[module_slots] */
	uint32_t module_slots;
	uint32_t module_count; /* records in use */
	uint64_t modstr_off;   /* module paths */
	uint32_t modstr_size;
	uint32_t modules_lost;	 /* objects that found no room */
	uint32_t mod_generation; /* generation of the last scan, >= 1 */
	/* bytes of the vdso image, 0 = none (yet: the shim copies it when a
	 * sample first falls in it; the region list gives its room) */
	uint32_t vdso_size;
	uint64_t vdso_off;
	uint64_t pcs_unmapped; /* outside samples whose PC is no key
				   * (0, or at or above 2^48) */

	/* the threads, each sampled on its own CPU-time clock (appended to
	 * version 1: all zero in files of writers that used one process
	 * timer, ITIMER_PROF, for all threads) */
	uint64_t threads_off;  /* struct profrun_thread[thread_slots] */
	uint32_t thread_slots; /* the last one is the aggregate record */
	uint32_t thread_count; /* slots claimed (may exceed thread_slots-1) */
	uint32_t timer_kind;   /* enum profrun_timer_kind */
	uint32_t interval_ns;  /* per-thread timer interval armed, 0 = none */
	uint64_t regions_off;  /* struct profrun_region[region_count], 0 =
				* none (files of earlier writers) */
	uint32_t region_count;
	/* threads the program started with clone(CLONE_THREAD) itself: no
	 * timer of ours covers them (appended to version 1) */
	uint32_t clone_threads;

	/* how the samples came (appended to version 1: all zero in files of
	 * earlier writers).  A signal of a timer brings 1 + si_overrun
	 * samples at the PC where it lands: the expirations the kernel
	 * merged while it was pending, many when it was delivered late (a
	 * loaded machine).  Shares then vary as much as with
	 * samples_total^2 / samples_sq samples taken one by one. */
	uint64_t signals;    /* signals that brought samples */
	uint64_t samples_sq; /* the sum over them of (samples)^2 */
	uint32_t burst_max;  /* the most samples one signal brought */
	uint32_t reserved4;
};

/* Little-endian hosts only: the histogram is written natively by profil. */
_Static_assert(sizeof(struct profrun_header) <= PROFRUN_HEADER_SIZE,
	       "header overflows its reserved space");
_Static_assert(sizeof(struct profrun_wrap) == 16, "wrap slot size");
_Static_assert(sizeof(struct profrun_pc) == 16, "PC slot size");
_Static_assert(sizeof(struct profrun_module) == 112, "module record size");
_Static_assert(sizeof(struct profrun_thread) == 64, "thread record size");
_Static_assert(sizeof(struct profrun_region) == 24, "region entry size");
_Static_assert(sizeof(struct profrun_stacks) == 64, "stack area header size");
_Static_assert(sizeof(struct profrun_stack_slot) == 200, "stack slot head");
_Static_assert(sizeof(struct profrun_frames) == 48, "frames head size");
_Static_assert(sizeof(struct profrun_frame_record) == 8, "frame record");
_Static_assert(sizeof(struct profrun_pause) == 64, "pause record size");
_Static_assert(sizeof(struct profrun_argv) == 16, "argv head size");
_Static_assert(sizeof(struct profrun_log) == 32, "log head size");
_Static_assert(sizeof(struct profrun_jit) == 64, "JIT head size");
_Static_assert(sizeof(struct profrun_timeline) == 32, "timeline head size");
_Static_assert(sizeof(struct profrun_timeline_entry) == 16, "timeline entry");
_Static_assert(sizeof(struct profrun_offspring) == 32, "offspring head");
_Static_assert(sizeof(struct profrun_child) == 24, "child record size");
_Static_assert(sizeof(struct profrun_wall) == 64, "wall head size");
_Static_assert(sizeof(struct profrun_blocked) == 32, "blocked run size");

/* Bucket i covers link-time [text_start + i*bucket_size,
 * text_start + (i+1)*bucket_size). */
static inline uint64_t
profrun_bucket_addr(const struct profrun_header *h, uint64_t i)
{
	return h->text_start + i * (uint64_t)h->bucket_size;
}

#endif /* PROFRUN_FORMAT_H */

/* SPDX-License-Identifier: MIT */
/*
 * The core of libprofrun.so, the LD_PRELOAD shim, and what every part
 * shares (real_<fn>, EXPORT, the settings' limits); one section per file
 * of the core.  Each part has its header in its folder (interpose.h,
 * sample.h, member.h, arch.h, libc.h) exposing what the others use;
 * docs/architecture.md draws the parts, each file's opening comment says
 * what it owns.
 *
 *   shim.c, target.c, pause.c,   the core: constructor, PROFRUN_* settings,
 *   environ.c, offspring.c       the executable, pausing, the environment
 *                                passed to exec, children and exec'd images
 *   interpose/  every function of the program the shim wraps (the only
 *               exported symbols): fork/exec/spawn, dispositions and
 *               rivals, masks and threads, dl*, sigaltstack
 *   sample/     the SIGPROF handler and timers, what a sample records
 *               (histogram, PC table, log, stacks, threads, wall clock) and
 *               the objects its PCs fall in (modules, maps, JIT code);
 *               collect.h is the handler's pure arithmetic
 *   member/     the member file: its layout, creation and blocks
 *   arch/       what differs between CPUs (arch.h, one header per CPU,
 *               vfork-x86_64.S)
 *   libc/       what differs between C libraries (libc.h, glibc.c, musl.c)
 *
 * Every function states whether it is async-signal-safe.  Functions return
 * 0 (or a descriptor/size) on success and a negative errno on failure.
 * Everything is hidden; only what is marked EXPORT is exported: the
 * interposers in interpose/, musl's __libc_start_main and exit in
 * libc/musl.c, profrun_control in pause.c.
 */
#ifndef PROFRUN_SHIM_H
#define PROFRUN_SHIM_H

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/time.h>
#include <sys/types.h>

#include "sample/collect.h"
#include "profrun/format.h"
#include "sys.h"

#define SHIM_DEFAULT_FREQ   100u    /* profil()'s own rate (USER_HZ) */
#define SHIM_MAX_FREQ	    100000u /* as the CLI: far above any kernel tick */
#define SHIM_NOTE_MAX	    256u    /* bytes reserved for the note string */
#define SHIM_DEFAULT_STACK  8192u   /* stack bytes copied per sample (-g) */
#define SHIM_MAX_STACK	    65536u  /* at most */
#define SHIM_DEFAULT_SLOTS  2048u   /* stacks kept per process image */
#define SHIM_MAX_SLOTS	    1048576u
#define SHIM_DEFAULT_OUTPUT "profrun.prof"

/* ---------------------------------------------------------------- real_<fn>
 * The next definition of each interposed function, from dlsym(RTLD_NEXT).
 * REAL(fn) resolves it on first use; the constructor resolves at startup
 * those that a vfork child, a signal handler or the exec path may call, so
 * that these never enter the dynamic linker (shim.c, resolve_all). */
typedef int (*sigaction_fn)(int, const struct sigaction *, struct sigaction *);
typedef int (*setitimer_fn)(int, const struct itimerval *, struct itimerval *);
typedef int (*getitimer_fn)(int, struct itimerval *);
typedef int (*profil_fn)(unsigned short *, size_t, size_t, unsigned int);
typedef int (*pthread_sigmask_fn)(int, const sigset_t *, sigset_t *);

extern sigaction_fn real_sigaction;
extern setitimer_fn real_setitimer;
extern getitimer_fn real_getitimer;
extern profil_fn real_profil;
extern pthread_sigmask_fn real_pthread_sigmask; /* masks.c */

/* Resolve NAME into *SLOT (not async-signal-safe on first call; afterwards a
 * plain load).  Returns the pointer, or NULL (recursion or not found). */
void *shim_resolve(const char *name, void **slot);
#define REAL(fn)                                                               \
	(real_##fn ? real_##fn                                                 \
		   : (__typeof__(real_##fn))shim_resolve(#fn,                  \
							 (void **)&real_##fn))

/* Call real_<fn>, or fail with ENOSYS if it cannot be found. */
#define CALL_REAL(fn, fail, ...)                                               \
	(REAL(fn) != NULL ? real_##fn(__VA_ARGS__) : (errno = ENOSYS, (fail)))

/* What the shim exports: the interposers and profrun_control (everything
 * else is hidden, -fvisibility=hidden). */
#define EXPORT __attribute__((visibility("default")))

/* X rounded up to a multiple of A (a power of two). */
#define ALIGN_UP(x, a) (((x) + (a)-1) & ~(uint64_t)((a)-1))

/* One step of an xorshift64 generator whose state is *STATE (not 0).
 * Async-signal-safe. */
static inline uint64_t
shim_xorshift64(uint64_t *state)
{
	uint64_t x = *state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	*state = x;
	return x;
}

/* The shim's own syscall(): the instruction itself, inline (sys.h), never
 * the program's syscall(), which is ours and keeps the program's view of
 * SIGPROF (interpose.c).  Async-signal-safe. */
#define syscall(...) sys_call(__VA_ARGS__)

/* The exported syscall()'s own system call, for the program's calls that
 * are not ours to keep (interpose.c).  Async-signal-safe. */
long shim_raw_syscall(long nr, long a0, long a1, long a2, long a3, long a4,
		      long a5);

/* One line "profrun: MSG" on stderr unless PROFRUN_QUIET; errno preserved.
 * Async-signal-safe (one write(2)). */
void shim_warn(const char *msg);

/* ---------------------------------------------------------------- shim.c
 * Process-wide state of the shim, and the steps the interposers take. */
enum shim_state {
	SHIM_OFF = 0,	  /* not profiling (never started, failed, secure) */
	SHIM_ON = 1,	  /* our handler and the threads' timers are live */
	SHIM_STOPPED = 2, /* a rival took over; the file stays as it was */
};

/* True when this process owns a live profile: state ON and not a vfork or
 * raw-clone child sharing the owner's memory.  Async-signal-safe. */
bool shim_owns_profile(void);

/* True in the process whose profile this is (running, stopped or ended),
 * not in a vfork child or a fork child that has none.  Async-signal-safe. */
bool shim_is_owner(void);

/* vfork() failed with -ERR (vfork-ARCH.S): errno, and -1.
 * Async-signal-safe. */
long shim_vfork_failed(long err);

/* First code of a vfork child (vfork-ARCH.S): it is flagged as such and
 * gets the program's view of SIGPROF for real.  Returns 0.
 * Async-signal-safe. */
long shim_vfork_child_start(void);

/* Switch profiling off for good because the program took over SIGPROF,
 * ITIMER_PROF or profil(): FLAG (PROFRUN_F_RIVAL_*) and NOTE go into the
 * file.  Async-signal-safe. */
void shim_rival(uint32_t flag, const char *note);

/* If SIGPROF's action is no longer ours although nothing went through our
 * interposers (profil() called inside libc, as __monstartup's moncontrol
 * does, or a direct system call), stop for good without touching the
 * signal, the timer or profil(): they are the program's now.  Called before
 * fork, before exec and at exit.  Async-signal-safe. */
void shim_check_takeover(void);

/* The program ends by _exit() or _Exit(), which run no exit handlers:
 * finish the profile now, with STATUS.  Async-signal-safe. */
void shim_exit_now(int status);

/* Before an exec: finish the profile (state EXECED) and switch profiling off
 * so that the new image never sees our timer.  Returns true if it did, in
 * which case shim_exec_failed() must follow a failed exec.  Does nothing in
 * a process that does not own the profile (a vfork child).
 * Async-signal-safe. */
bool shim_exec_begin(void);

/* After a failed exec: back to RUNNING and profiling again; errno is
 * preserved.  Async-signal-safe. */
void shim_exec_failed(bool began);

/* Set FLAG (enum profrun_flags) in this process's member, if it has one.
 * Async-signal-safe. */
void shim_note_flag(uint32_t flag);

/* ---------------------------------------------------------------- environ.c */
/* Keep the PROFRUN_* variables of the environment and the shim's own path
 * (EXACT: PROFRUN_EXACT_ENV, never merge).  Not async-signal-safe. */
void environ_snapshot(bool exact);

/* Bytes an exec with ENVP of an image of MUSL's C library (or glibc's)
 * needs for environ_merge (0: ENVP has every
 * variable of ours, or must stay as it is, or would need too much).
 * Async-signal-safe. */
size_t environ_merge_size(char *const *envp, bool musl);

/* Whether the shim for a program of MUSL's C library (or glibc's) is
 * installed: ours, or the other one beside it.  Async-signal-safe. */
bool environ_has_shim(bool musl);

/* Whether the environment the last environ_merge_size() of this thread
 * was given is passed on without our variables (--exact-env).
 * Async-signal-safe. */
bool environ_left_out(void);

/* ENVP with the variables of ours it lacks put back, built in ROOM (SIZE
 * bytes from environ_merge_size); ENVP itself when SIZE is 0.
 * Async-signal-safe. */
char *const *environ_merge(char *const *envp, void *room, size_t size);

/* Declares room on the caller's stack and points ENVP (a variable) at the
 * environment the exec of the image IM (struct offspring_image *) is to
 * pass.  Async-signal-safe. */
#define ENVIRON_FOR_EXEC(envp, im)                                             \
	size_t envp##_room =                                                   \
		environ_merge_size(envp, offspring_image_musl(im));            \
	void *envp##_buf[envp##_room / sizeof(void *) + 1];                    \
	envp = environ_merge(envp, envp##_buf, envp##_room)
/* ---------------------------------------------------------------- offspring.c
 * The children and exec'd images of this image, in its member. */

/* The image an exec begins: PATH relative to DIRFD (AT_FDCWD), searched
 * in $PATH when SEARCH (execvp), or the descriptor FD (fexecve; -1 when
 * none); AT_FLAGS are execveat's. */
struct offspring_image {
	int dirfd;
	const char *path;
	int fd;
	int at_flags;
	bool search;
};

/* Note our own dynamic loader (an exec of it runs a program that is
 * profiled).  Not async-signal-safe; call at start. */
void offspring_init(void);

/* Look up now what the first exec would (the loader's file, the other C
 * library's shim), before a seccomp filter may refuse those calls.
 * Async-signal-safe (stat, access). */
void offspring_look_up(void);

/* Record into the region at offset OFF of the member H (0: none), owned
 * by PID; detach: record nothing more (the member's blocks are given
 * back).  Async-signal-safe. */
void offspring_attach(struct profrun_header *h, uint64_t off, pid_t pid);
void offspring_detach(void);

/* The owner is about to fork: the room of the child's record reserved
 * first.  Async-signal-safe. */
void offspring_prepare_fork(void);

/* The owner forked CHILD, whose own member is expected.
 * Async-signal-safe. */
void offspring_forked(pid_t child);

/* The owner spawned CHILD running FILE (searched in $PATH when SEARCH).
 * Async-signal-safe. */
void offspring_spawned(pid_t child, const char *file, bool search);

/* The owner is about to exec IM: judged, and recorded when it cannot be
 * profiled (one that can is expected from the member's state, replaced
 * by an exec).  Returns the
 * record, for offspring_exec_failed (-1: none).  errno is preserved.
 * Async-signal-safe. */
long offspring_exec(const struct offspring_image *im);

/* True when IM is a musl program (or a script run by one): its exec needs
 * libprofrun-musl.so in LD_PRELOAD.  errno is preserved.
 * Async-signal-safe. */
bool offspring_image_musl(const struct offspring_image *im);
void offspring_exec_failed(long rec);

/* A wait of the owner's returned PID with STATUS: noted in its record.
 * Async-signal-safe. */
void offspring_reaped(pid_t pid, int status);

/* ---------------------------------------------------------------- target.c */
struct target {
	uintptr_t load_bias; /* runtime - link-time */
	uint64_t text_start; /* link-time, bucket 0 */
	uint64_t text_end;   /* link-time end of the covered range */
	uint64_t nbuckets;
	uint32_t bucket_size; /* 2, 4, 8, ... */
	uint32_t scale;	      /* 131072 / bucket_size */
	uint32_t build_id_len;
	uint8_t build_id[PROFRUN_BUILD_ID_MAX];
	char exe[PATH_MAX]; /* absolute path of the executable */
};

/* Size the histogram for link-time text [LO, HI): the smallest bucket size
 * (2, 4, ...) whose bucket count is at most MAX_BUCKETS; fills text_start,
 * text_end, nbuckets, bucket_size, scale.  Pure, async-signal-safe.
 * Returns 0, or -EINVAL for an empty range, -E2BIG if no scale fits. */
int target_size_buckets(struct target *t, uint64_t lo, uint64_t hi,
			uint64_t max_buckets);

/* Describe the main executable of this process (dl_iterate_phdr, PT_NOTE
 * build-id, /proc/self/exe).  Not async-signal-safe. */
int target_find(struct target *t);

/* The GNU build-id among the ELF notes in [P, END) (note alignment ALIGN,
 * 4 or 8) into OUT (PROFRUN_BUILD_ID_MAX bytes); returns its length, or 0
 * when there is none.  Pure, async-signal-safe. */
uint32_t target_note_build_id(const uint8_t *p, const uint8_t *end,
			      size_t align, uint8_t *out);

struct dl_phdr_info;

/* The link-time span [*LO, *HI) of the PF_X PT_LOAD segments of the loaded
 * object INFO, and its build-id from its PT_NOTE segments in memory into
 * BUILD_ID (PROFRUN_BUILD_ID_MAX bytes; *BUILD_ID_LEN 0 when none).
 * Returns false when the object has no executable code.  Async-signal-safe
 * (reads memory only). */
bool target_describe_object(const struct dl_phdr_info *info, uint64_t *lo,
			    uint64_t *hi, uint8_t *build_id,
			    uint32_t *build_id_len);

/* ---------------------------------------------------------------- pause.c */
/* Settings (PROFRUN_START, PROFRUN_TOGGLE_SIGNAL, PROFRUN_DELAY,
 * PROFRUN_DURATION), before the profile starts: START_PAUSED or a DELAY
 * means nothing is counted until a resume.  Not async-signal-safe. */
void pause_configure(bool start_paused, int sig, uint64_t delay_ns,
		     uint64_t duration_ns);

/* The member H is open and R is its pause record (NULL: none): record the
 * state; unless FORKED, install the toggle signal's handler and arm the
 * window; in a fork child, re-arm what was left of the parent's window.
 * Async-signal-safe. */
void pause_attach(struct profrun_header *h, struct profrun_pause *r,
		  bool forked);

/* Is sampling paused now?  And, in the handler, N expirations that came
 * while paused: counted as dropped; returns 0.  Async-signal-safe. */
bool pause_now(void);
uint64_t pause_drop(uint64_t n);

/* Pause (true) or resume the whole process, now.  Async-signal-safe. */
void pause_set(bool pause);

/* The transition lock, taken with every signal blocked (OLD: the mask to
 * restore; NULL before any handler of ours is installed).
 * Async-signal-safe. */
void pause_lock(sigset_t *old);
void pause_unlock(const sigset_t *old);

/* In the SIGPROF handler, on a thread that is running: take the CPU
 * window's edge if it came (its timer sends no signal: a process-directed
 * one would interrupt a sleeping thread's nanosleep or epoll_wait), and
 * the toggle signals pending (blocked in every thread for the same
 * reason).  Async-signal-safe. */
void pause_poll(void);

/* The window's timer is deleted for good (profiling stops).
 * Async-signal-safe. */
void pause_window_stop(void);

/* The toggle signal while it is ours, or 0.  Async-signal-safe. */
int pause_toggle_signal(void);

/* Around fork: note what is left of the window; in the child, forget the
 * parent's lock holder, timer and record.  Async-signal-safe. */
void pause_fork_prepare(void);
void pause_fork_child(void);

/* The image ends: close the pause still open.  Async-signal-safe. */
void pause_finish(void);

/* Interposers for the toggle signal SIG while it is ours: the program's
 * view is SIG_DFL, and an action of its own makes us give the signal back
 * (one line on stderr) before it is applied.  Async-signal-safe. */
bool pause_is_toggle(int sig);
int pause_sigaction(int sig, const struct sigaction *act,
		    struct sigaction *old);
typedef void (*shim_handler_fn)(int); /* sighandler_t, without _GNU_SOURCE */
shim_handler_fn pause_signal(shim_handler_fn (*real_fn)(int, shim_handler_fn),
			     int sig, shim_handler_fn handler);

/* The one entry point of <profrun/profrun.h> (exported).  Async-signal-safe. */
int profrun_control(int op);

#endif /* PROFRUN_SHIM_H */

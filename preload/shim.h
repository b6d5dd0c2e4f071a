/* SPDX-License-Identifier: MIT */
/*
 * Private interfaces of libprofrun.so, the LD_PRELOAD shim.
 *
 *   shim.c    constructor, PROFRUN_* settings, interposers, exit hook
 *   target.c  finds the main executable's text, build-id and path
 *   writer.c  run directory, member file layout, header, notes
 *   reserve.c the member's blocks, reserved as they come to be needed
 *   timer.c   profil(), our SIGPROF handler, ITIMER_PROF rate, stop
 *   modules.c the loaded objects (link maps) and the vdso, in the file
 *   dl.c      dlopen/dlmopen/dlclose hooks that rescan the objects
 *   threads.c a CPU-time timer per thread, and per-thread records
 *   masks.c   pthread_create, and the signal masks as the program sees them
 *   stacks.c  call stacks: registers and stack copied per sample (-g)
 *   altstack.c an alternate signal stack of ours per thread, sigaltstack(),
 *             and where the program's SA_ONSTACK handlers run
 *   vfork-ARCH.S vfork() that flags its child (x86-64)
 *   environ.c our variables put back into environments passed to exec
 *   offspring.c the children and exec'd images of the image, in its member
 *   wall.c    the wall-clock sampler thread: blocked threads read from /proc
 *   collect.h pure bucket, carry and PC-table arithmetic of the handler
 *
 * Every function states whether it is async-signal-safe.  Functions return
 * 0 (or a descriptor/size) on success and a negative errno on failure.
 * Everything is hidden; only the interposers in shim.c are exported.
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

/* The C library's syscall(): the shim exports one of its own (the
 * program's raw rt_sigaction and rt_sigprocmask through it keep the view),
 * so its own system calls go through this pointer, resolved first thing
 * in the constructor (interpose_resolve_syscall).
 * Async-signal-safe. */
long shim_raw_syscall(long nr, long a0, long a1, long a2, long a3, long a4,
		      long a5);
#define syscall_args_(nr, a0, a1, a2, a3, a4, a5, ...)                         \
	shim_raw_syscall((long)(nr), (long)(a0), (long)(a1), (long)(a2),       \
			 (long)(a3), (long)(a4), (long)(a5))
#define syscall(...) syscall_args_(__VA_ARGS__, 0, 0, 0, 0, 0, 0, 0)

/* One line "profrun: MSG" on stderr unless PROFRUN_QUIET; errno preserved.
 * Async-signal-safe (one write(2)). */
void shim_warn(const char *msg);

/* ---------------------------------------------------------------- shim.c
 * Process-wide state of the shim, and the steps the interposers take. */
enum shim_state {
	SHIM_OFF = 0,	  /* not profiling (never started, failed, secure) */
	SHIM_ON = 1,	  /* profil and our handler are live */
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

/* ---------------------------------------------------------------- interpose.c */
/* Resolve the real_<fn> of the interposers that a signal handler, a vfork
 * child or the exec path may call (not __monstartup's, resolved on first
 * use).  Not async-signal-safe. */
void interpose_resolve_all(void);

/* Resolve the C library's syscall() for shim_raw_syscall and our own
 * syscall().  Not async-signal-safe. */
void interpose_resolve_syscall(void);

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

/* ---------------------------------------------------------------- dl.c */
/* Scan the loaded objects now if this process owns a live profile (the
 * hooks around dlopen and dlclose call it).  Not async-signal-safe. */
void shim_modules_changed(void);

/* The same before a fork: the link maps only (the parent of a fork makes
 * no system call for it, as a seccomp sandbox may require; the child
 * starts from these records).  Not async-signal-safe. */
void shim_modules_before_fork(void);

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

/* ---------------------------------------------------------------- timer.c */
/* Start profil() over C's histogram, put our handler in front of profil's
 * and re-arm ITIMER_PROF at FREQ Hz unless it is profil's 100 Hz.  Fills
 * interval_us, rate_requested and RATE_CLIPPED in the header.  On failure
 * profiling is left off.  Async-signal-safe (profil, sigaction, setitimer),
 * but the caller must not run concurrently with another start/stop. */
int timer_start(const struct collect *c, uint32_t freq);

/* Switch profiling off without letting a pending SIGPROF reach a default
 * action: disarm ITIMER_PROF, ignore SIGPROF (discards pending ones),
 * profil(NULL) and restore the action the program believes it has.
 * Async-signal-safe. */
void timer_stop(void);

/* Stop counting: once it returns no handler reads or writes the member
 * (handlers running on other threads are waited for; a handler that
 * comes later returns at once).  The timers and SIGPROF's action stay as
 * they are: enough for a process that ends now.  No system call unless a
 * handler is running on another thread (sched_yield then).
 * Async-signal-safe. */
void timer_close(void);

/* timer_stop() before an exec: the same, but profil()'s state is left
 * (it dies with the image; after a failed exec timer_start() restarts
 * it), which saves its two system calls.  Async-signal-safe. */
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
 * image) and arm its timer if we sample now.  Async-signal-safe. */
void threads_register_self(bool main_thread);

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
 * restore).  Async-signal-safe. */
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

/* ---------------------------------------------------------------- masks.c */
/* Resolve the interposers, make the thread-end key and take over the
 * calling (main) thread's mask.  Not async-signal-safe. */
void masks_init(void);

/* Before an exec (BLOCK) the calling thread's real mask becomes what the
 * program asked for; after a failed exec (!BLOCK) SIGPROF is unblocked
 * again.  Async-signal-safe. */
void masks_apply_view(bool block);

/* The toggle signal SIG becomes ours: blocked for real in the calling
 * thread (threads inherit it), its bit in the view as it was.  When it is
 * given back, the calling thread's real bit is the view's again.
 * Async-signal-safe. */
void masks_hold_toggle(int sig);
void masks_release_toggle(int sig);

/* The calling thread's real bit of the toggle signal becomes the
 * program's view (PROGRAM: before an exec or a spawn, whose image
 * inherits it), or blocked again (after them).  Async-signal-safe. */
void masks_toggle_view(bool program);

/* The calling thread's view: does the program block SIGPROF there?  And
 * set it (sigset's SIG_HOLD).  Async-signal-safe. */
bool masks_view_blocked(void);
void masks_set_view_blocked(bool blocked);

/* A SIGPROF someone sent (SI) arrived while the calling thread's view
 * blocks it: hold it pending for the program (sigpending shows it, and
 * sigwait, sigwaitinfo and sigtimedwait take it) and apply its action when
 * the view unblocks SIGPROF (sigprocmask, sigsuspend).
 * Async-signal-safe. */
void masks_hold_foreign(const siginfo_t *si);

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

/* ---------------------------------------------------------------- altstack.c */
/* Give the calling thread an alternate signal stack of ours for the
 * handler (SA_ONSTACK), unless it has one (the program's wins).
 * Async-signal-safe (system calls only). */
void altstack_thread_start(void);

/* The calling thread ends: take ours down and unmap it.
 * Async-signal-safe. */
void altstack_thread_end(void);

/* In a fork child: only the calling thread lives on.  Async-signal-safe. */
void altstack_fork_child(void);

/* The program's sigaction() for any signal but SIGPROF and the toggle
 * signal: an SA_ONSTACK handler goes in as the file's header says, and
 * the action is reported back as the program set it.  Async-signal-safe
 * as sigaction is. */
int altstack_sigaction(int sig, const struct sigaction *act,
		       struct sigaction *old);

/* SIG's action was set by another entry (signal(), sigset(), ...), with
 * no SA_ONSTACK.  Async-signal-safe. */
void altstack_forget(int sig);

#endif /* PROFRUN_SHIM_H */

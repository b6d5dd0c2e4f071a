/* SPDX-License-Identifier: MIT */
/*
 * libprofrun.so entry: the constructor, the PROFRUN_* settings, the state of
 * this process's profile and the hooks for exit, fork and exec.  The
 * exported interposers live in interpose.c.
 *
 * Whatever happens, the program must behave as without profrun: on any
 * failure profiling is switched off, at most one "profrun: ..." line goes
 * to stderr, and errno is preserved.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "profrun/member-name.h"
#include "libc/libc.h"
#include "shim.h"
#include "interpose/interpose.h"
#include "sample/sample.h"
#include "member/member.h"
#include "sys.h"

sigaction_fn real_sigaction;
setitimer_fn real_setitimer;
getitimer_fn real_getitimer;

/* ---------------------------------------------------------------- settings */
static struct {
	const char *output; /* run directory */
	uint32_t freq;	    /* Hz */
	bool quiet;
	bool stacks;			/* copy call stacks */
	bool wall;			/* sample blocked threads too */
	uint32_t stack_size;		/* bytes per stack */
	uint32_t stack_samples;		/* stacks kept per image */
	bool exact_env;			/* exec environments left as made */
	bool start_paused;		/* PROFRUN_START=paused */
	int toggle_sig;			/* 0 = none */
	uint64_t delay_ns, duration_ns; /* the CPU window, 0 = none */
} cfg = {.freq = SHIM_DEFAULT_FREQ,
	 .stack_size = SHIM_DEFAULT_STACK,
	 .stack_samples = SHIM_DEFAULT_SLOTS};

enum setting_kind {
	SET_STRING,
	SET_FREQ,
	SET_BOOL,
	SET_STACK,
	SET_SLOTS,
	SET_START,
	SET_SIGNAL,
	SET_SECONDS
};

static const struct setting {
	const char *name;
	enum setting_kind kind;
	void *dst;
} settings[] = {
	/* QUIET first: it governs the warnings of the others. */
	{"PROFRUN_QUIET", SET_BOOL, &cfg.quiet},
	{"PROFRUN_OUTPUT", SET_STRING, &cfg.output},
	{"PROFRUN_FREQ", SET_FREQ, &cfg.freq},
	{"PROFRUN_STACKS", SET_BOOL, &cfg.stacks},
	{"PROFRUN_STACK_SIZE", SET_STACK, &cfg.stack_size},
	{"PROFRUN_STACK_SAMPLES", SET_SLOTS, &cfg.stack_samples},
	{"PROFRUN_EXACT_ENV", SET_BOOL, &cfg.exact_env},
	{"PROFRUN_START", SET_START, &cfg.start_paused},
	{"PROFRUN_TOGGLE_SIGNAL", SET_SIGNAL, &cfg.toggle_sig},
	{"PROFRUN_DELAY", SET_SECONDS, &cfg.delay_ns},
	{"PROFRUN_DURATION", SET_SECONDS, &cfg.duration_ns},
	{"PROFRUN_WALL", SET_BOOL, &cfg.wall},
};

/* ---------------------------------------------------------------- state */
/* The small fields first, then the buffers in the order their starts are
 * written: the start touches as few pages of it as it can. */
static struct {
	enum shim_state state;
	pid_t owner;		    /* pid whose profile g.hdr is */
	struct profrun_header *hdr; /* the mapped member file */
	uint32_t vdso_size;	    /* bytes of the vdso image kept */
	bool released; /* the member's zero pages were given back (exec) */
	struct layout layout;
	struct collect col;
	char name[PROFRUN_MEMBER_NAME_MAX]; /* the member's, in g.dir */
	struct shim_argv argv; /* the command line, for every member */
	char dir[PATH_MAX];    /* absolute run directory */
	struct target tgt;
} g;

/* Not async-signal-safe on first call (dlsym). */
void *
shim_resolve(const char *name, void **slot)
{
	static __thread int resolving
		__attribute__((tls_model("initial-exec")));
	void *p;

	if (resolving)
		return NULL;
	resolving = 1;
	p = dlsym(RTLD_NEXT, name);
	resolving = 0;
	__atomic_store_n(slot, p, __ATOMIC_RELEASE);
	return p;
}

/* What fd 2 was when the shim started: messages go there or nowhere (a
 * daemon that closed stderr may have opened its data file on fd 2). */
static struct {
	bool known;
	dev_t dev;
	ino_t ino;
} err_fd;

/* Note what fd 2 is now.  Async-signal-safe. */
static void
remember_stderr(void)
{
	struct stat st;

	err_fd.known = sys_fstat(STDERR_FILENO, &st) == 0;
	err_fd.dev = st.st_dev;
	err_fd.ino = st.st_ino;
}

/* True while fd 2 is still the file it was at start.  Async-signal-safe. */
static bool
stderr_unchanged(void)
{
	struct stat st;

	return err_fd.known && sys_fstat(STDERR_FILENO, &st) == 0 &&
	       st.st_dev == err_fd.dev && st.st_ino == err_fd.ino;
}

/* Async-signal-safe. */
void
shim_warn(const char *msg)
{
	char buf[512];
	size_t len = strlen(msg);
	int saved = errno;

	if (cfg.quiet || !stderr_unchanged())
		return;
	if (len > sizeof(buf) - 11)
		len = sizeof(buf) - 11;
	memcpy(buf, "profrun: ", 9);
	memcpy(buf + 9, msg, len);
	buf[9 + len] = '\n';
	if (write(STDERR_FILENO, buf, 9 + len + 1) < 0)
		(void)0;
	errno = saved;
}

/* "WHAT: PATH: <errno text>" as one warning.  Async-signal-safe
 * (libc_errdesc returns a static string). */
static void
warn_err(const char *what, const char *path, int err)
{
	char buf[480];
	const char *parts[] = {what, path, libc_errdesc(err)};
	size_t len = 0;

	for (size_t i = 0; i < 3; i++) {
		size_t n = parts[i] ? strlen(parts[i]) : 0;

		if (n == 0)
			continue;
		if (len > 0 && len + 2 < sizeof(buf)) {
			memcpy(buf + len, ": ", 2);
			len += 2;
		}
		if (n > sizeof(buf) - 1 - len)
			n = sizeof(buf) - 1 - len;
		memcpy(buf + len, parts[i], n);
		len += n;
	}
	buf[len] = '\0';
	shim_warn(buf);
}

/* A signal the toggle may use: catchable, not SIGPROF, not one the C
 * library keeps for itself. */
static bool
toggle_signal_ok(unsigned long v)
{
	return v >= 1 && v <= (unsigned long)SIGRTMAX && v != SIGKILL &&
	       v != SIGSTOP && v != SIGPROF &&
	       (v < 32 || v >= (unsigned long)SIGRTMIN);
}

/* Seconds as a decimal number ("2", "0.5") into *NS; false if not one. */
static bool
parse_seconds(const char *value, uint64_t *ns)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(value, &end);
	if (errno || end == value || *end || !(v >= 0) || v > 1e9)
		return false;
	*ns = (uint64_t)(v * 1e9 + 0.5);
	return true;
}

/* The settings of pausing (pause.c).  Not async-signal-safe. */
static void
apply_pause_setting(const struct setting *s, const char *value)
{
	char *end;
	unsigned long v;

	switch (s->kind) {
	case SET_START:
		if (strcmp(value, "paused") == 0 ||
		    strcmp(value, "running") == 0)
			*(bool *)s->dst = value[0] == 'p';
		else
			shim_warn(
				"PROFRUN_START is neither 'paused' nor 'running'; starting to sample at once");
		break;
	case SET_SIGNAL:
		errno = 0;
		v = strtoul(value, &end, 10);
		if (errno || end == value || *end || !toggle_signal_ok(v))
			shim_warn(
				"PROFRUN_TOGGLE_SIGNAL is not a signal number profrun can use; no toggle signal");
		else
			*(int *)s->dst = (int)v;
		break;
	default:
		if (!parse_seconds(value, s->dst))
			shim_warn(
				"PROFRUN_DELAY or PROFRUN_DURATION is not a number of seconds; ignored");
		break;
	}
}

/* Parse one setting's VALUE into its destination.  Not async-signal-safe. */
static void
apply_setting(const struct setting *s, const char *value)
{
	char *end;
	unsigned long v;

	switch (s->kind) {
	case SET_STRING:
		*(const char **)s->dst = value;
		break;
	case SET_BOOL:
		*(bool *)s->dst = value[0] != '\0' && strcmp(value, "0") != 0;
		break;
	case SET_FREQ:
		errno = 0;
		v = strtoul(value, &end, 10);
		if (errno || end == value || *end || value[0] == '-' ||
		    v == 0 || v > SHIM_MAX_FREQ)
			shim_warn(
				"PROFRUN_FREQ is not a rate in 1..100000 Hz; using 100");
		else
			*(uint32_t *)s->dst = (uint32_t)v;
		break;
	case SET_STACK:
	case SET_SLOTS:
		errno = 0;
		v = strtoul(value, &end, 10);
		if (errno || end == value || *end || value[0] == '-' ||
		    v < (s->kind == SET_STACK ? 64 : 1) ||
		    v > (s->kind == SET_STACK ? SHIM_MAX_STACK
					      : SHIM_MAX_SLOTS))
			shim_warn(
				s->kind == SET_STACK
					? "PROFRUN_STACK_SIZE is not a size in 64..65536 bytes; using 8192"
					: "PROFRUN_STACK_SAMPLES is not a count in 1..1048576; using 2048");
		else
			*(uint32_t *)s->dst = (uint32_t)v;
		break;
	default:
		apply_pause_setting(s, value);
		break;
	}
}

/* The value of the environment's variable NAME, or NULL: getenv without
 * the C library's page of it (a set-user-ID process, for which
 * secure_getenv would say NULL, reads no settings: startup).  Not
 * async-signal-safe (the environment may change under it). */
static const char *
setting_value(const char *name)
{
	for (char **e = environ; e != NULL && *e != NULL; e++) {
		const char *v = *e, *n = name;

		while (*n != '\0' && *v == *n)
			v++, n++;
		if (*n == '\0' && *v == '=')
			return v + 1;
	}
	return NULL;
}

/* Read the PROFRUN_* table.  Not async-signal-safe. */
static void
read_settings(void)
{
	for (size_t i = 0; i < sizeof(settings) / sizeof(settings[0]); i++) {
		const char *v = setting_value(settings[i].name);

		if (v != NULL)
			apply_setting(&settings[i], v);
	}
}

/* Resolve now every real_<fn> a signal handler, a vfork child or the exec
 * path may call, so that none of them enters the dynamic linker.  The
 * interposers of functions that are not async-signal-safe themselves
 * (dlopen, dlmopen, dlclose, pthread_create, posix_spawn, posix_spawnp,
 * __monstartup) resolve theirs on first use: a dlsym each that most
 * processes never need.  Not async-signal-safe. */
static void
resolve_all(void)
{
	REAL(sigaction);
	REAL(setitimer);
	REAL(getitimer);
	libc_resolve();
	interpose_resolve_all();
}

/* ---------------------------------------------------------------- profile */
/* This process's pid, read at start and in each fork child (pthread_atfork):
 * the interposers of masks and actions, called in hot loops, compare it
 * instead of calling getpid() each time.  A vfork child, which shares our
 * memory and so this variable, is told apart by vfork's flag. */
static pid_t self_pid;

#if SHIM_HAVE_VFORK
/* Set in the vfork child by our vfork() (vfork-ARCH.S): the child runs
 * on the calling thread's memory and TLS, so the flag is seen by the child
 * alone (the parent's thread is suspended) and cleared as vfork() returns
 * in the parent. */
__thread bool shim_vfork_child __attribute__((tls_model("initial-exec")));

/* Async-signal-safe. */
long
shim_vfork_failed(long err)
{
	errno = (int)-err;
	return -1;
}

/* Async-signal-safe. */
long
shim_vfork_child_start(void)
{
	int saved = errno;

	shim_vfork_child = true;
	/* the child's actions and mask are its own (vfork shares memory,
	 * not them): from here on they are what the program set, SIGPROF's
	 * included, and what it does to them goes to the kernel as is */
	if (g.state == SHIM_ON && self_pid == g.owner)
		timer_vfork_child();
	errno = saved;
	return 0;
}
#define IN_VFORK_CHILD() shim_vfork_child
#else
#define IN_VFORK_CHILD() (sys_getpid() != self_pid)
#endif

/* Async-signal-safe. */
bool
shim_owns_profile(void)
{
	return g.state == SHIM_ON && self_pid == g.owner && !IN_VFORK_CHILD();
}

/* Async-signal-safe. */
bool
shim_is_owner(void)
{
	return g.owner != 0 && self_pid == g.owner && !IN_VFORK_CHILD();
}

/* Mark the profile stopped early, with FLAG and NOTE.  Async-signal-safe. */
static void
mark_stopped(uint32_t flag, const char *note)
{
	__atomic_or_fetch(&g.hdr->flags, flag | PROFRUN_F_STOPPED,
			  __ATOMIC_RELAXED);
	writer_set_note(g.hdr, g.layout.note_area, note);
	g.state = SHIM_STOPPED;
}

/* Async-signal-safe. */
void
shim_rival(uint32_t flag, const char *note)
{
	int saved = errno;

	if (sys_getpid() != g.owner)
		return; /* a child of _Fork() or clone(): the file is not its own */
	timer_stop();
	/* SIGPROF is the program's now: the calling thread gets the mask it
	 * asked for (masks.c) */
	masks_apply_view(true);
	mark_stopped(flag, note);
	errno = saved;
}

/* The collector's view of the member file at BASE.  Async-signal-safe. */
static void
set_collect(void *base)
{
	g.hdr = base;
	g.col.hdr = base;
	g.col.hist = (uint16_t *)((char *)base + g.layout.hist_off);
	g.col.wraps =
		(struct profrun_wrap *)((char *)base + g.layout.wraps_off);
	g.col.nbuckets = g.layout.nbuckets;
	g.col.wrap_slots = PROFRUN_WRAP_SLOTS;
	g.col.offset = (uintptr_t)(g.tgt.text_start + g.tgt.load_bias);
	g.col.scale = g.tgt.scale;
	g.col.pcs = (struct profrun_pc *)((char *)base + g.layout.pcs_off);
	g.col.pc_slots = PROFRUN_PC_SLOTS;
	g.col.log = (struct profrun_log *)((char *)base + g.layout.log_off);
	g.col.log_keys = (uint64_t *)(g.col.log + 1);
	g.col.log_slots = PROFRUN_LOG_SLOTS;
	g.col.tl = (struct profrun_timeline *)((char *)base +
					       g.layout.timeline_off +
					       g.layout.timeline_size) -
		   1;
	g.col.tl_slots = PROFRUN_TIMELINE_SLOTS;
	g.col.vdso_room = g.layout.vdso_size;
	g.col.vdso = (uintptr_t)getauxval(AT_SYSINFO_EHDR);
}

/* What reserve_open reserves at start besides the first samples' pages. */
static uint32_t
reserve_flags(void)
{
	bool pausing = cfg.start_paused || cfg.toggle_sig || cfg.delay_ns ||
		       cfg.duration_ns;

	/* --wall's sampler thread writes its area from the start */
	return (pausing ? RESERVE_PAUSE : 0) |
	       (wall_area_size() != 0 ? RESERVE_ALL : 0);
}

/* Create this image's member file and start profiling into it; state ON on
 * success.  The module records start empty, or as those of FROM (the
 * parent's file, in a fork child).  Async-signal-safe (system calls only). */
static int
profile_open(pid_t pid, pid_t ppid, const struct profrun_header *from)
{
	struct proc_info p = {
		pid, ppid, writer_now_ns(), writer_cpu_ns(), cfg.freq, &g.argv};
	void *base;
	int dfd, fd, r;
	bool whole;

	reserve_detach();
	dfd = writer_open_dir(g.dir);
	if (dfd < 0) {
		struct stat st;

		if (lstat(g.dir, &st) == 0 && S_ISLNK(st.st_mode))
			warn_err(
				"refusing a run directory that is a symbolic link",
				g.dir, -dfd);
		else
			warn_err("cannot open run directory", g.dir, -dfd);
		return dfd;
	}
	writer_layout(&g.layout, strlen(g.tgt.exe), g.tgt.nbuckets, g.vdso_size,
		      stacks_area_size(), writer_argv_size(&g.argv));
	writer_layout_wall(&g.layout, wall_area_size());
	/* sized only: reserve_open reserves what the start needs */
	whole = reserve_whole(reserve_flags());
	r = writer_create_member_fd(dfd, pid, g.layout.file_size, whole, &base,
				    g.name, &fd);
	if (r == 0) {
		r = reserve_open(fd, base, &g.layout, g.dir, g.name,
				 reserve_flags() | (whole ? RESERVE_ALL : 0));
		sys_close(fd);
		if (r < 0) {
			sys_munmap(base, g.layout.file_size);
			unlinkat(dfd, g.name, 0);
		}
	}
	sys_close(dfd);
	if (r == -EFBIG) {
		shim_warn(
			"cannot create a profile: it would exceed the file size limit (ulimit -f); running unprofiled");
		return r;
	}
	if (r < 0) {
		warn_err("cannot create a profile in", g.dir, -r);
		return r;
	}
	writer_init(base, &g.layout, &g.tgt, &p);
	set_collect(base);
	g.col.tl_base = writer_mono_ns(); /* with start_ns: the same moment */
	wall_attach(g.hdr, g.layout.wall_off, g.col.tl_base);
	if (from != NULL)
		modules_attach_copy(g.hdr, from);
	else
		modules_attach(g.hdr);
	jit_attach((struct profrun_jit *)((char *)base + g.layout.jit_off),
		   from ? (const struct profrun_jit *)((const char *)from +
						       g.layout.jit_off)
			: NULL);
	g.owner = pid;
	stacks_attach(g.hdr, g.layout.stacks_off);
	offspring_attach(g.hdr, g.layout.offspring_off, pid);
	threads_attach_paused((uint64_t *)((char *)base + g.layout.pause_off +
					   sizeof(struct profrun_pause)));
	threads_attach(g.hdr);
	threads_register_self(true, from == NULL && g.state == SHIM_OFF);
	r = timer_start(&g.col, cfg.freq);
	if (r == -EBUSY) {
		/* a rival came first: stay out of its way, say why */
		mark_stopped(
			PROFRUN_F_RIVAL_SIGNAL,
			"SIGPROF or ITIMER_PROF was already in use when profrun started (another profiler in the program or preloaded before it)");
		return r;
	}
	if (r < 0) {
		warn_err("cannot start the sampling timer", NULL, -r);
		mark_stopped(0, "the sampling timer could not be started");
		return r;
	}
	/* the shim's own set-up (creating and mapping the member) counts as
	 * start-up: profiling begins now */
	g.hdr->cpu_start_ns = writer_cpu_ns();
	g.state = SHIM_ON;
	pause_attach(
		g.hdr,
		(struct profrun_pause *)((char *)base + g.layout.pause_off),
		from != NULL);
	return 0;
}

/* shim_check_takeover() in the owner.  Async-signal-safe. */
static void
check_takeover_owned(void)
{
	if (g.state != SHIM_ON || !timer_taken_over())
		return;
	timer_forget();
	mark_stopped(
		PROFRUN_F_RIVAL_SIGNAL,
		"SIGPROF was taken over without sigaction() or signal() (profil() inside libc, or a direct system call)");
}

/* Async-signal-safe. */
void
shim_check_takeover(void)
{
	if (g.state == SHIM_ON && sys_getpid() == g.owner)
		check_takeover_owned();
}

/* Not async-signal-safe. */
void
shim_modules_changed(void)
{
	int saved = errno;

	if (shim_owns_profile())
		modules_scan(g.tgt.exe, true);
	errno = saved;
}

/* Not async-signal-safe. */
void
shim_modules_before_fork(void)
{
	int saved = errno;

	if (shim_owns_profile())
		if (shim_owns_profile())
			modules_scan(g.tgt.exe, false);
	errno = saved;
}

/* ---------------------------------------------------------------- exit */
/* The exit paths make as few system calls as they can, for programs in a
 * seccomp sandbox (README, Limits): getpid once, one rt_sigaction query
 * (was SIGPROF taken over behind our back?), clock_gettime on each live
 * thread's CPU clock, getrusage, and mincore and madvise(MADV_REMOVE) to
 * give back the member's unused blocks.  The timers are not deleted:
 * counting is closed (timer_close) and the process ends. */
static void finish_owned(int status, bool names);
static void release_owned(void);

/* Whether the owner's profile holds a sample of any kind.
 * Async-signal-safe. */
static bool
sampled_any(void)
{
	return __atomic_load_n(&g.hdr->samples_total, __ATOMIC_RELAXED) != 0 ||
	       wall_sampled();
}

/* Exit hook (libc_on_exit), registered before anything of the program's, so the
 * last of exit()'s handlers: after the program's own, and after the
 * destructors (run by the dynamic linker's exit handler, registered after
 * ours), whose samples are all in by now.  Record the objects loaded now
 * (libc's own dlopens, as for NSS, go through no hook), finish the
 * profile, close counting and give back the unused blocks.  Not
 * async-signal-safe (neither is exit). */
static void
on_exit_hook(int status)
{
	int saved = errno;
	bool sampled;

	if (g.state == SHIM_OFF || sys_getpid() != g.owner)
		return;
	/* a process that took no sample has no PC to name: the objects,
	 * the runtime's maps and the threads' names are not looked for */
	sampled = sampled_any();
	if (g.state == SHIM_ON && sampled)
		modules_scan(g.tgt.exe, true);
	if (sampled)
		jit_copy_out(g.dir, g.name, g.owner, g.hdr->start_ns);
	finish_owned(status, sampled);
	release_owned();
	errno = saved;
}

/* Shells end with _exit(), and so do many fork children.  No module scan
 * here: _exit() may be called from a signal handler, and the scan takes
 * the dynamic linker's lock.  A vfork or raw-clone child, which shares the
 * owner's memory but is not the owner, leaves the profile alone.
 * Async-signal-safe. */
void
shim_exit_now(int status)
{
	int saved = errno;

	if (g.state == SHIM_OFF || sys_getpid() != g.owner)
		return;
	finish_owned(status, false);
	release_owned();
	errno = saved;
}

/* Give back the zero pages of what was reserved (only those: the rest
 * has no blocks to give).  Async-signal-safe. */
static void
release_held(void)
{
	struct extent x[RESERVE_MAX];

	writer_release_in(g.hdr, x, reserve_held(x));
}

/* The owner is done: counting closed (handlers in flight drained), the
 * member's unused blocks given back, and nothing of ours touches it
 * again.  Async-signal-safe. */
static void
release_owned(void)
{
	if (g.state == SHIM_ON)
		timer_close();
	g.state = SHIM_OFF;
	offspring_detach();
	release_held();
}

/* Finish the owner's profile with STATUS; NAMES: read the live threads'
 * names (exit(), not _exit(): fewer system calls there).
 * Async-signal-safe. */
static void
finish_owned(int status, bool names)
{
	wall_hold(true);
	check_takeover_owned();
	threads_finish(names);
	pause_finish();
	writer_finish(g.hdr, PROFRUN_STATE_EXITED, status & 0xff);
}

/* ---------------------------------------------------------------- fork */
static __thread bool fork_from_owner __attribute__((tls_model("initial-exec")));

/* pthread_atfork prepare: record the objects loaded now (the child starts
 * from these records), note whether the profile's owner is forking (not a
 * vfork or raw-clone child sharing its memory).  Not async-signal-safe
 * (the scan), as fork is not either once it has atfork handlers. */
static void
on_fork_prepare(void)
{
	shim_modules_before_fork();
	shim_check_takeover();
	pause_fork_prepare();
	fork_from_owner = g.state != SHIM_OFF && sys_getpid() == g.owner;
	if (fork_from_owner)
		offspring_prepare_fork();
}

/* pthread_atfork child: the parent's file and timer are not ours.  Start a
 * member file of our own (ppid = parent) at the same rate; the timer is not
 * inherited, so nothing counts until it is re-armed here.
 * Async-signal-safe (system calls only). */
static void
on_fork_child(void)
{
	struct profrun_header *old = g.hdr;
	uint64_t old_size = g.layout.file_size;
	enum shim_state was = g.state;
	int saved = errno; /* fork() returns 0 to the child with errno as is */

	self_pid = sys_getpid();
	timer_fork_child();
	threads_fork_child();
	stacks_fork_child();
	pause_fork_child();
	altstack_fork_child();
	wall_fork_child();
	offspring_detach();
	g.state = SHIM_OFF;
	if (was == SHIM_ON && fork_from_owner) {
		if (profile_open(self_pid, g.owner, old) < 0)
			timer_stop();
		else
			wall_start(); /* the parent's sampler is not here */
		if (g.hdr == old)
			g.hdr = NULL;
		sys_munmap(old, old_size);
	}
	errno = saved;
}

/* ---------------------------------------------------------------- exec */
/* Async-signal-safe. */
bool
shim_exec_begin(void)
{
	if (g.state == SHIM_OFF || sys_getpid() != g.owner)
		return false;
	wall_hold(true);
	check_takeover_owned();
	if (g.state == SHIM_ON) {
		timer_stop_exec();
		masks_apply_view(true);
	}
	masks_toggle_view(true);
	threads_finish(false);
	stacks_seal();
	pause_finish();
	/* as at exit: an image that took no sample has no PC to name (a
	 * shell's fork child that execs at once reads no maps) */
	if (sampled_any()) {
		modules_scan_maps();
		jit_copy_out(g.dir, g.name, g.owner, g.hdr->start_ns);
	}
	writer_finish(g.hdr, PROFRUN_STATE_EXECED, -1);
	/* the image ends here unless the exec fails: keep only what it
	 * wrote, as at exit (shim_exec_failed reserves the rest again).
	 * Not with other threads alive: one of them could store into a
	 * page given back (a module record at a dlopen, the record of a
	 * thread it starts) before a failed exec reserves it again, and
	 * meet SIGBUS on a full disk. */
	g.released = threads_alone();
	if (g.released) {
		offspring_detach();
		release_held();
	}
	return true;
}

/* Async-signal-safe. */
void
shim_note_flag(uint32_t flag)
{
	if (g.hdr != NULL && g.state != SHIM_OFF)
		__atomic_or_fetch(&g.hdr->flags, flag, __ATOMIC_RELAXED);
}

/* Async-signal-safe. */
void
shim_exec_failed(bool began)
{
	int saved = errno;

	if (!began)
		return;
	if (g.released && reserve_again() < 0) {
		/* the blocks given back cannot be had again (a full disk): a
		 * store into them would raise SIGBUS.  Profiling ends here,
		 * with the member as it was at the exec, and the process
		 * stores into memory of its own from now on. */
		timer_stop();
		writer_set_note(
			g.hdr, g.layout.note_area,
			"profiling stopped after a failed exec: no disk space to go on");
		writer_detach(g.hdr);
		reserve_detach();
		g.released = false;
		g.state = SHIM_OFF;
		errno = saved;
		return;
	}
	g.released = false;
	masks_toggle_view(false);
	offspring_attach(g.hdr, g.layout.offspring_off, g.owner);
	g.hdr->end_ns = 0;
	g.hdr->cpu_user_ns = 0;
	g.hdr->cpu_sys_ns = 0;
	__atomic_store_n(&g.hdr->state, PROFRUN_STATE_RUNNING,
			 __ATOMIC_RELEASE);
	if (g.state == SHIM_ON)
		masks_apply_view(false);
	if (g.state == SHIM_ON && timer_start(&g.col, cfg.freq) < 0)
		mark_stopped(0,
			     "profiling could not restart after a failed exec");
	wall_hold(false);
	errno = saved;
}

/* ---------------------------------------------------------------- startup */
/* The run directory, absolute, exported so that descendants join the same
 * run.  Not async-signal-safe. */
static int
resolve_output(void)
{
	const char *out = cfg.output ? cfg.output : SHIM_DEFAULT_OUTPUT;
	int r = writer_absolute(out, g.dir, sizeof(g.dir));

	if (r < 0) {
		warn_err("bad PROFRUN_OUTPUT", out, -r);
		return r;
	}
	if (cfg.output == NULL || strcmp(cfg.output, g.dir) != 0)
		setenv("PROFRUN_OUTPUT", g.dir, 1);
	return 0;
}

/* Everything the constructor does, with the command line it received.
 * Not async-signal-safe. */
static void
startup(int argc, char **argv)
{
	int r;

	if (getauxval(AT_SECURE))
		return;
	self_pid = sys_getpid();
	writer_capture_argv(&g.argv, argc, argv);
	remember_stderr();
	read_settings();
	resolve_all();
	r = target_find(&g.tgt);
	if (r < 0) {
		warn_err("cannot locate the program's text", NULL, -r);
		return;
	}
	if (resolve_output() < 0)
		return;
	g.vdso_size = modules_vdso_size();
	offspring_init();
	stacks_configure(cfg.stacks ? cfg.stack_size : 0, cfg.stack_samples);
	stacks_thread_start();
	wall_configure(cfg.wall);
	if (threads_init() < 0)
		return;
	pause_configure(cfg.start_paused, cfg.toggle_sig, cfg.delay_ns,
			cfg.duration_ns);
	altstack_thread_start(); /* before the first sample */
	profile_open(self_pid, sys_getppid(), NULL);
	if (g.state != SHIM_ON)
		altstack_thread_end();
	if (g.hdr == NULL)
		return;
	masks_init();
	environ_snapshot(cfg.exact_env);
	/* the objects the link maps show; /proc/self/maps shows nothing else
	 * before the program runs (it is read at exit, dlopen, dlclose) */
	modules_scan(g.tgt.exe, false);
	libc_on_exit(on_exit_hook);
	pthread_atfork(on_fork_prepare, NULL, on_fork_child);
	if (g.state == SHIM_ON)
		wall_start();
}

/* The C library passes a preloaded object's constructors the program's
 * argc, argv and environment. */
__attribute__((constructor)) static void
profrun_init(int argc, char **argv, char **envp)
{
	int saved = errno;

	(void)envp;
	libc_command_line(&argc, &argv);
	startup(argc, argv);
	errno = saved;
}

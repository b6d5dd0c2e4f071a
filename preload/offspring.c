/* SPDX-License-Identifier: MIT */
/*
 * The processes an image starts and the images it execs, recorded in its
 * member (region PROFRUN_REGION_OFFSPRING): each fork child and posix_spawn
 * child by pid, each exec by the image it begins, with the reason when
 * that image cannot be profiled (judged from the file before the exec:
 * set-user-ID or set-group-ID for another owner, file capabilities, no
 * PT_INTERP, a musl loader, another machine's ELF, a missing interpreter;
 * a #! script by its interpreter), and the wait status of each child the
 * program waits for.  The report matches the records against the members
 * of the run: a profilable child without a member is missing, and an
 * image that cannot be profiled is named.
 *
 * Only the owner of the member writes it, into pages reserved with the
 * file, never a vfork or raw-clone child sharing its memory (the owner's
 * blocks may have been given back by then).  Everything here is
 * async-signal-safe: system calls and atomics on the mapping.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "arch/arch.h"
#include "shim.h"
#include "member/member.h"
#include "sys.h"

#define NATIVE_MACHINE ARCH_ELF_MACHINE

#define SCRIPT_DEPTH 4	 /* #! interpreters followed, as the kernel does */
#define PHDR_CHUNK   16u /* program headers read at a time */
#define PHDR_MAX     256u

static struct profrun_offspring *head; /* NULL: nothing recorded */
/* Set by judge_elf: the image judged last in this thread is a musl
 * program (offspring_image_musl) */
static __thread bool t_musl __attribute__((tls_model("initial-exec")));
static struct profrun_child *recs;
static char *paths;
static pid_t owner;

/* Our own dynamic loader, which an exec of `ld.so PROGRAM` runs: its
 * path (the executable's PT_INTERP, in memory) from the start, its file
 * asked for at the first exec of a program without one (loader_is). */
static struct {
	const char *path;
	int known; /* 0 not yet asked, 1 dev and ino set, -1 no such file */
	dev_t dev;
	ino_t ino;
} loader;

/* Not async-signal-safe (getauxval); call at start. */
void
offspring_init(void)
{
	const ElfW(Phdr) *ph = (const void *)getauxval(AT_PHDR);
	size_t n = getauxval(AT_PHNUM);
	uintptr_t bias = 0;

	if (ph == NULL || loader.path != NULL)
		return;
	for (size_t i = 0; i < n; i++)
		if (ph[i].p_type == PT_PHDR)
			bias = (uintptr_t)ph - ph[i].p_vaddr;
	for (size_t i = 0; i < n; i++)
		if (ph[i].p_type == PT_INTERP)
			loader.path = (const char *)(bias + ph[i].p_vaddr);
}

/* Whether ST is our own loader's file.  Threads asking at once each look
 * and store the same answer.  Async-signal-safe (stat). */
static bool
loader_is(const struct stat *st)
{
	struct stat ls;
	int saved = errno;

	if (loader.path != NULL && loader.known == 0) {
		if (stat(loader.path, &ls) == 0) {
			loader.dev = ls.st_dev;
			loader.ino = ls.st_ino;
			__atomic_store_n(&loader.known, 1, __ATOMIC_RELEASE);
		} else {
			__atomic_store_n(&loader.known, -1, __ATOMIC_RELEASE);
		}
		errno = saved;
	}
	return __atomic_load_n(&loader.known, __ATOMIC_ACQUIRE) == 1 &&
	       st->st_dev == loader.dev && st->st_ino == loader.ino;
}

/* Async-signal-safe. */
void
offspring_look_up(void)
{
	struct stat none = {0};

	(void)loader_is(&none);
	(void)environ_has_shim(true);
}

/* Async-signal-safe. */
void
offspring_attach(struct profrun_header *h, uint64_t off, pid_t pid)
{
	head = off ? (struct profrun_offspring *)((char *)h + off) : NULL;
	recs = head ? (struct profrun_child *)(head + 1) : NULL;
	paths = recs ? (char *)(recs + PROFRUN_OFFSPRING_SLOTS) : NULL;
	owner = pid;
}

/* Async-signal-safe. */
void
offspring_detach(void)
{
	head = NULL;
}

/* The region, when the calling process owns it.  Async-signal-safe. */
static struct profrun_offspring *
mine(void)
{
	return head != NULL && sys_getpid() == owner ? head : NULL;
}

/* ---------------------------------------------------------------- judging */
/* Does the file system of FD honour set-user-ID bits and capabilities,
 * and does this process let them apply?  Async-signal-safe. */
static bool
privileges_apply(int fd)
{
	struct statfs sfs;

	if (prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) == 1)
		return false;
	return fstatfs(fd, &sfs) != 0 || !(sfs.f_flags & ST_NOSUID);
}

/* The privileges an exec of the file ST (open as FD) would gain: secure
 * execution, where the loader ignores LD_PRELOAD.  Async-signal-safe. */
static int
judge_privileges(int fd, const struct stat *st, bool readable)
{
	if (!(st->st_mode & (S_ISUID | S_ISGID)) && !readable)
		return PROFRUN_CHILD_PROFILED;
	if ((st->st_mode & S_ISUID) && st->st_uid != getuid() &&
	    privileges_apply(fd))
		return PROFRUN_CHILD_SETUID;
	if ((st->st_mode & S_ISGID) && (st->st_mode & S_IXGRP) &&
	    st->st_gid != getgid() && privileges_apply(fd))
		return PROFRUN_CHILD_SETGID;
	if (readable && getuid() != 0 &&
	    fgetxattr(fd, "security.capability", NULL, 0) > 0 &&
	    privileges_apply(fd))
		return PROFRUN_CHILD_CAPS;
	return PROFRUN_CHILD_PROFILED;
}

static int judge_at(int dirfd, const char *path, int oflags, int depth,
		    uint32_t *flags);

/* The PT_INTERP of the native ELF file FD (header E) into OUT; false when
 * it has none.  Async-signal-safe. */
static bool
elf_interp(int fd, const ElfW(Ehdr) * e, char *out, size_t outsz)
{
	ElfW(Phdr) ph[PHDR_CHUNK];
	unsigned n = e->e_phnum < PHDR_MAX ? e->e_phnum : PHDR_MAX;

	if (e->e_phentsize != sizeof(ElfW(Phdr)))
		return false;
	for (unsigned i = 0; i < n; i += PHDR_CHUNK) {
		unsigned k = n - i < PHDR_CHUNK ? n - i : PHDR_CHUNK;
		ssize_t got = pread(fd, ph, k * sizeof(ph[0]),
				    (off_t)(e->e_phoff + i * sizeof(ph[0])));

		if (got != (ssize_t)(k * sizeof(ph[0])))
			return false;
		for (unsigned j = 0; j < k; j++) {
			size_t len = ph[j].p_filesz;

			if (ph[j].p_type != PT_INTERP)
				continue;
			if (len == 0 || len >= outsz ||
			    pread(fd, out, len, (off_t)ph[j].p_offset) !=
				    (ssize_t)len)
				return false;
			out[len] = '\0';
			return true;
		}
	}
	return false;
}

/* An ELF image (its first LEN bytes in BUF): another machine's, static,
 * a musl program, or one whose loader is missing.  Async-signal-safe. */
static int
judge_elf(int fd, const struct stat *st, const char *buf, ssize_t len)
{
	const ElfW(Ehdr) *e = (const void *)buf;
	char interp[PATH_MAX];
	struct stat ist;

	if (len < (ssize_t)sizeof(*e) ||
	    e->e_ident[EI_CLASS] !=
		    (sizeof(void *) == 8 ? ELFCLASS64 : ELFCLASS32) ||
	    e->e_ident[EI_DATA] != ELFDATA2LSB ||
	    (NATIVE_MACHINE != EM_NONE && e->e_machine != NATIVE_MACHINE))
		return PROFRUN_CHILD_FOREIGN;
	if (!elf_interp(fd, e, interp, sizeof(interp))) {
		/* our own loader, run as a program (`ld.so PROGRAM`),
		 * loads the preload too */
		if (e->e_type == ET_DYN && loader_is(st))
			return PROFRUN_CHILD_PROFILED;
		return PROFRUN_CHILD_STATIC;
	}
	if (stat(interp, &ist) != 0 && errno == ENOENT)
		return PROFRUN_CHILD_NO_INTERP;
	/* profiled with libprofrun-musl.so where it is installed */
	if (strstr(interp, "ld-musl") != NULL) {
		t_musl = true;
		if (!environ_has_shim(true))
			return PROFRUN_CHILD_MUSL;
	}
	return PROFRUN_CHILD_PROFILED;
}

/* A "#!" script (its first LEN bytes in BUF): judged by its interpreter.
 * Async-signal-safe. */
static int
judge_script(char *buf, ssize_t len, int depth, uint32_t *flags)
{
	ssize_t i = 2, j;

	*flags |= PROFRUN_CHILD_F_SCRIPT;
	while (i < len && (buf[i] == ' ' || buf[i] == '\t'))
		i++;
	for (j = i; j < len && buf[j] != ' ' && buf[j] != '\t' &&
		    buf[j] != '\n' && buf[j] != '\0';
	     j++)
		;
	if (j == i || j >= len)
		return PROFRUN_CHILD_PROFILED; /* the kernel refuses it */
	buf[j] = '\0';
	return judge_at(AT_FDCWD, buf + i, 0, depth + 1, flags);
}

/* Judge the open file FD.  Async-signal-safe. */
static int
judge_fd(int fd, int depth, uint32_t *flags)
{
	char buf[256];
	struct stat st;
	ssize_t len;
	int why;

	if (sys_fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
		return PROFRUN_CHILD_PROFILED; /* the exec fails */
	len = pread(fd, buf, sizeof(buf), 0);
	if (len >= 2 && buf[0] == '#' && buf[1] == '!') {
		/* the kernel ignores set-user-ID bits on scripts */
		if (depth >= SCRIPT_DEPTH)
			return PROFRUN_CHILD_PROFILED;
		return judge_script(buf, len, depth, flags);
	}
	why = judge_privileges(fd, &st, true);
	if (why != PROFRUN_CHILD_PROFILED)
		return why;
	if (len >= SELFMAG && memcmp(buf, ELFMAG, SELFMAG) == 0)
		return judge_elf(fd, &st, buf, len);
	return PROFRUN_CHILD_PROFILED;
}

/* Judge the file PATH (relative to DIRFD) an exec would run.  DEPTH > 0:
 * an interpreter, which must exist.  Only a regular file is opened (a
 * device's open may act; the exec fails on it anyway).
 * Async-signal-safe. */
static int
judge_at(int dirfd, const char *path, int oflags, int depth, uint32_t *flags)
{
	struct stat st;
	int fd, why;

	if (fstatat(dirfd, path, &st,
		    oflags & O_NOFOLLOW ? AT_SYMLINK_NOFOLLOW : 0) != 0)
		return depth > 0 && errno == ENOENT ? PROFRUN_CHILD_NO_INTERP
						    : PROFRUN_CHILD_PROFILED;
	if (!S_ISREG(st.st_mode))
		return PROFRUN_CHILD_PROFILED; /* the exec fails */
	fd = sys_openat(dirfd, path,
			O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC | oflags);
	if (fd < 0) {
		/* execute-only: its mode still says what it gains */
		fd = sys_openat(dirfd, path, O_PATH | O_CLOEXEC | oflags);
		why = fd >= 0 ? judge_privileges(fd, &st, false)
			      : PROFRUN_CHILD_PROFILED;
		if (fd >= 0)
			sys_close(fd);
		return why;
	}
	why = judge_fd(fd, depth, flags);
	sys_close(fd);
	return why;
}

/* The file execvp() would run for FILE (searched in $PATH when it has no
 * slash) into OUT.  False when there is none.  Async-signal-safe (reads
 * the environment without locking). */
static bool
search_path(const char *file, char *out, size_t outsz)
{
	extern char **environ;
	const char *p = "/bin:/usr/bin"; /* glibc's default */
	size_t flen = strlen(file);

	if (strchr(file, '/') != NULL || flen == 0) {
		if (flen >= outsz)
			return false;
		memcpy(out, file, flen + 1);
		return flen > 0;
	}
	for (char **e = environ; e != NULL && *e != NULL; e++)
		if (strncmp(*e, "PATH=", 5) == 0)
			p = *e + 5;
	while (true) {
		const char *end = strchr(p, ':');
		size_t dlen = end ? (size_t)(end - p) : strlen(p);
		struct stat st;

		if (dlen == 0) {
			out[0] = '.';
			dlen = 1;
		} else if (dlen < outsz) {
			memcpy(out, p, dlen);
		}
		if (dlen + 1 + flen < outsz) {
			out[dlen] = '/';
			memcpy(out + dlen + 1, file, flen + 1);
			if (access(out, X_OK) == 0 && stat(out, &st) == 0 &&
			    S_ISREG(st.st_mode))
				return true;
		}
		if (end == NULL)
			return false;
		p = end + 1;
	}
}

/* ---------------------------------------------------------------- records */
/* The offset of PATH in the region's path area (an equal path already
 * there is shared), or 0 when there is no room.  Async-signal-safe. */
static uint32_t
keep_path(struct profrun_offspring *o, const char *path)
{
	size_t len = strlen(path) + 1;
	uint64_t used = __atomic_load_n(&o->path_used, __ATOMIC_ACQUIRE), at;
	uint32_t base = (uint32_t)((char *)paths - (char *)o);

	for (uint64_t i = 0; i < used && used <= PROFRUN_OFFSPRING_PATHS;) {
		size_t n = strnlen(paths + i, used - i);

		if (n + 1 == len && memcmp(paths + i, path, len) == 0)
			return base + (uint32_t)i;
		i += n + 1;
	}
	if (len > PROFRUN_OFFSPRING_PATHS)
		return 0;
	at = __atomic_fetch_add(&o->path_used, len, __ATOMIC_ACQ_REL);
	if (at + len > PROFRUN_OFFSPRING_PATHS)
		return 0;
	memcpy(paths + at, path, len);
	return base + (uint32_t)at;
}

/* Claim and fill a record: PID, KIND, REASON, FLAGS, the image PATH
 * (NULL: none).  Returns its index, or -1 (not the owner, or only
 * counted: no room).  Async-signal-safe. */
static long
add_record(pid_t pid, uint16_t kind, int reason, uint32_t flags,
	   const char *path)
{
	struct profrun_offspring *o = mine();
	uint64_t n;
	struct profrun_child *c;

	if (o == NULL || !reserve_room(o, sizeof(*o), true))
		return -1;
	o->slot_count = PROFRUN_OFFSPRING_SLOTS;
	o->path_size = PROFRUN_OFFSPRING_PATHS;
	n = __atomic_fetch_add(&o->claimed, 1, __ATOMIC_ACQ_REL);
	if (n >= PROFRUN_OFFSPRING_SLOTS)
		return -1;
	c = &recs[n];
	c->kind = kind;
	c->reason = (uint16_t)reason;
	c->flags = flags;
	c->path_off = path != NULL ? keep_path(o, path) : 0;
	__atomic_store_n(&c->pid, pid, __ATOMIC_RELEASE);
	return (long)n;
}

/* Async-signal-safe. */
void
offspring_prepare_fork(void)
{
	struct profrun_offspring *o = mine();

	/* the page of the first records, before a child can take the
	 * disk's last blocks for its own member */
	if (o != NULL)
		reserve_room(o, sizeof(*o) + sizeof(struct profrun_child),
			     true);
}

/* Async-signal-safe. */
void
offspring_forked(pid_t child)
{
	int saved = errno;

	if (child > 0 && shim_owns_profile())
		add_record(child, PROFRUN_CHILD_FORK, 0, 0, NULL);
	errno = saved;
}

/* Judge FILE (searched in $PATH when SEARCH) into *REASON and *FLAGS, its
 * path into OUT.  False when there is no such file.  Async-signal-safe. */
static bool
judge_file(const char *file, bool search, char *out, size_t outsz, int *reason,
	   uint32_t *flags)
{
	*flags = 0;
	if (search ? !search_path(file, out, outsz)
		   : strlen(file) >= outsz || file[0] == '\0')
		return false;
	if (!search)
		memcpy(out, file, strlen(file) + 1);
	*reason = judge_at(AT_FDCWD, out, 0, 0, flags);
	return true;
}

/* Async-signal-safe. */
bool
offspring_image_musl(const struct offspring_image *im)
{
	char path[PATH_MAX];
	uint32_t flags = 0;
	int saved = errno, why;

	t_musl = false;
	if (im->fd >= 0 ||
	    (im->path && im->at_flags & AT_EMPTY_PATH && !im->path[0]))
		judge_fd(im->fd >= 0 ? im->fd : im->dirfd, 0, &flags);
	else if (im->path && im->dirfd != AT_FDCWD && im->path[0] != '/')
		judge_at(im->dirfd, im->path,
			 im->at_flags & AT_SYMLINK_NOFOLLOW ? O_NOFOLLOW : 0, 0,
			 &flags);
	else if (im->path)
		judge_file(im->path, im->search, path, sizeof(path), &why,
			   &flags);
	errno = saved;
	return t_musl;
}

/* Async-signal-safe. */
void
offspring_spawned(pid_t child, const char *file, bool search)
{
	char path[PATH_MAX];
	uint32_t flags;
	int saved = errno, why;

	if (child > 0 && mine() != NULL &&
	    judge_file(file, search, path, sizeof(path), &why, &flags)) {
		if (why == PROFRUN_CHILD_PROFILED && environ_left_out())
			why = PROFRUN_CHILD_ENV_LEFT;
		add_record(child, PROFRUN_CHILD_SPAWN, why, flags, path);
	}
	errno = saved;
}

/* The path /proc/self/fd/FD names into OUT ("" when it cannot be read).
 * Async-signal-safe. */
static void
fd_path(int fd, char *out, size_t outsz)
{
	char link[32] = "/proc/self/fd/", num[12];
	int k = 14, d = 0;
	ssize_t n;

	do
		num[d++] = (char)('0' + fd % 10);
	while ((fd /= 10) > 0 && d < 11);
	while (d > 0)
		link[k++] = num[--d];
	link[k] = '\0';
	n = sys_readlink(link, out, outsz - 1);
	out[n > 0 ? n : 0] = '\0';
}

/* An image that can be profiled gets no record: the member's state
 * (replaced by an exec) says that its successor is expected, and the
 * page of the records is written only by processes that start others or
 * exec what cannot be profiled.  Async-signal-safe. */
long
offspring_exec(const struct offspring_image *im)
{
	char path[PATH_MAX];
	uint32_t flags = 0;
	int saved = errno, why = PROFRUN_CHILD_PROFILED;
	long r = -1;

	path[0] = '\0';
	if (mine() == NULL || im->path == NULL)
		return -1;
	if (im->fd >= 0 || (im->at_flags & AT_EMPTY_PATH && !im->path[0])) {
		/* fexecve(), execveat(fd, "", AT_EMPTY_PATH): the file is
		 * the descriptor, named by its link in /proc */
		int fd = im->fd >= 0 ? im->fd : im->dirfd;

		why = judge_fd(fd, 0, &flags);
		if (why != PROFRUN_CHILD_PROFILED)
			fd_path(fd, path, sizeof(path));
	} else if (im->dirfd != AT_FDCWD && im->path[0] != '/') {
		why = judge_at(im->dirfd, im->path,
			       im->at_flags & AT_SYMLINK_NOFOLLOW ? O_NOFOLLOW
								  : 0,
			       0, &flags);
		if (strlen(im->path) < sizeof(path))
			memcpy(path, im->path, strlen(im->path) + 1);
		else
			path[0] = '\0';
	} else if (!judge_file(im->path, im->search, path, sizeof(path), &why,
			       &flags)) {
		why = PROFRUN_CHILD_PROFILED;
	}
	if (why == PROFRUN_CHILD_PROFILED && environ_left_out()) {
		why = PROFRUN_CHILD_ENV_LEFT;
		if (path[0] == '\0' && strlen(im->path) < sizeof(path))
			memcpy(path, im->path, strlen(im->path) + 1);
	}
	if (why != PROFRUN_CHILD_PROFILED)
		r = add_record(sys_getpid(), PROFRUN_CHILD_EXEC, why, flags,
			       path[0] ? path : NULL);
	errno = saved;
	return r;
}

/* Async-signal-safe. */
void
offspring_exec_failed(long rec)
{
	int saved = errno;

	if (rec >= 0 && mine() != NULL)
		__atomic_or_fetch(&recs[rec].flags, PROFRUN_CHILD_F_FAILED,
				  __ATOMIC_RELEASE);
	errno = saved;
}

/* Async-signal-safe. */
void
offspring_reaped(pid_t pid, int status)
{
	struct profrun_offspring *o = mine();
	uint64_t n;

	/* no record was claimed before the region was reserved */
	if (o == NULL || pid <= 0 ||
	    !(WIFEXITED(status) || WIFSIGNALED(status)) ||
	    !reserve_has(o, sizeof(*o)))
		return;
	n = __atomic_load_n(&o->claimed, __ATOMIC_ACQUIRE);
	if (n > PROFRUN_OFFSPRING_SLOTS)
		n = PROFRUN_OFFSPRING_SLOTS;
	/* the latest child of that pid (pids are reused) */
	while (n-- > 0) {
		struct profrun_child *c = &recs[n];

		if (__atomic_load_n(&c->pid, __ATOMIC_ACQUIRE) != pid ||
		    c->kind == PROFRUN_CHILD_EXEC)
			continue;
		c->status = status;
		__atomic_or_fetch(&c->flags, PROFRUN_CHILD_F_REAPED,
				  __ATOMIC_RELEASE);
		return;
	}
}

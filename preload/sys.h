/* SPDX-License-Identifier: MIT */
/*
 * The shim's own system calls, made with the instruction itself
 * (arch_syscall6) rather than through the C library's wrappers: each
 * wrapper the shim called cost a process its first call through the PLT
 * (a symbol lookup) and, in a program that does not call it, a page fault
 * on the C library's page that holds it, at every start.  Same arguments,
 * results and errno as the wrappers; async-signal-safe.  (shim.h's
 * syscall() is sys_call, for the calls with no wrapper here.)  Calls whose wrappers
 * do more than the system call (sigaction's restorer, the POSIX timers'
 * ids, the handler's read of the monotonic clock through the vdso) stay
 * the C library's.
 */
#ifndef PROFRUN_SHIM_SYS_H
#define PROFRUN_SHIM_SYS_H

#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "arch/arch.h"

/* The system call NR made with the instruction itself: its result, or -1
 * with errno set.  Async-signal-safe. */
static inline long
sys_call6(long nr, long a0, long a1, long a2, long a3, long a4, long a5)
{
	long ret = arch_syscall6(nr, a0, a1, a2, a3, a4, a5);

	if (ret < 0 && ret > -4096) {
		errno = (int)-ret;
		return -1;
	}
	return ret;
}
#define sys_call_(nr, a0, a1, a2, a3, a4, a5, ...)                             \
	sys_call6((long)(nr), (long)(a0), (long)(a1), (long)(a2), (long)(a3),  \
		  (long)(a4), (long)(a5))
#define sys_call(...) sys_call_(__VA_ARGS__, 0, 0, 0, 0, 0, 0, 0)

static inline pid_t
sys_getpid(void)
{
	return (pid_t)sys_call(SYS_getpid);
}

static inline pid_t
sys_getppid(void)
{
	return (pid_t)sys_call(SYS_getppid);
}

/* readlink where the CPU has it (x86-64): the call the C library's
 * wrapper makes, and the one the README's seccomp lists name */
static inline ssize_t
sys_readlink(const char *path, char *buf, size_t size)
{
#ifdef SYS_readlink
	return sys_call(SYS_readlink, path, buf, size);
#else
	return sys_call(SYS_readlinkat, AT_FDCWD, path, buf, size);
#endif
}

/* open(PATH, FLAGS[, MODE]) and openat(DFD, PATH, FLAGS[, MODE]) */
static inline int
sys_openat_mode(int dfd, const char *path, int flags, mode_t mode)
{
	return (int)sys_call(SYS_openat, dfd, path, flags, mode);
}
#define sys_open_(path, flags, mode, ...)                                      \
	sys_openat_mode(AT_FDCWD, path, flags, mode)
#define sys_open(...) sys_open_(__VA_ARGS__, 0, 0)
#define sys_openat_(dfd, path, flags, mode, ...)                               \
	sys_openat_mode(dfd, path, flags, mode)
#define sys_openat(...) sys_openat_(__VA_ARGS__, 0, 0)

/* EINTR is success: Linux has released the descriptor either way (as
 * musl's close says) */
static inline int
sys_close(int fd)
{
	int saved = errno;

	if (sys_call(SYS_close, fd) < 0 && errno != EINTR)
		return -1;
	errno = saved;
	return 0;
}

/* fstatat(FD, "", AT_EMPTY_PATH), as the C library's fstat makes it; a
 * negative FD (AT_FDCWD among them) is refused as the wrapper refuses it */
static inline int
sys_fstat(int fd, struct stat *st)
{
	if (fd < 0) {
		errno = EBADF;
		return -1;
	}
	return (int)sys_call(SYS_newfstatat, fd, "", st, AT_EMPTY_PATH);
}

static inline int
sys_ftruncate(int fd, off_t size)
{
	return (int)sys_call(SYS_ftruncate, fd, size);
}

static inline int
sys_fallocate(int fd, int mode, off_t off, off_t len)
{
	return (int)sys_call(SYS_fallocate, fd, mode, off, len);
}

static inline void *
sys_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	return (void *)sys_call(SYS_mmap, addr, len, prot, flags, fd, off);
}

static inline int
sys_munmap(void *addr, size_t len)
{
	return (int)sys_call(SYS_munmap, addr, len);
}

static inline int
sys_mprotect(void *addr, size_t len, int prot)
{
	return (int)sys_call(SYS_mprotect, addr, len, prot);
}

static inline int
sys_madvise(void *addr, size_t len, int advice)
{
	return (int)sys_call(SYS_madvise, addr, len, advice);
}

static inline int
sys_mincore(void *addr, size_t len, unsigned char *vec)
{
	return (int)sys_call(SYS_mincore, addr, len, vec);
}

/* Every clock by the system call: at start and at exit the vdso's page,
 * its data page and the C library's wrapper would be three page faults
 * (CPU clocks are a system call even through the vdso); the handler's
 * own reads of the monotonic clock keep the vdso. */
static inline int
sys_clock_gettime(clockid_t clk, struct timespec *ts)
{
	return (int)sys_call(SYS_clock_gettime, clk, ts);
}

static inline int
sys_clock_getres(clockid_t clk, struct timespec *ts)
{
	return (int)sys_call(SYS_clock_getres, clk, ts);
}

static inline int
sys_getitimer(int which, struct itimerval *it)
{
	return (int)sys_call(SYS_getitimer, which, it);
}

static inline int
sys_getrusage(int who, struct rusage *ru)
{
	return (int)sys_call(SYS_getrusage, who, ru);
}

static inline int
sys_getrlimit(int resource, struct rlimit *rl)
{
	return (int)sys_call(SYS_prlimit64, 0, resource, NULL, rl);
}

#endif /* PROFRUN_SHIM_SYS_H */

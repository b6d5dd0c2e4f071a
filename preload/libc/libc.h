/* SPDX-License-Identifier: MIT */
/*
 * What differs between the C libraries the shim is built for: glibc
 * (libprofrun.so, libc/glibc.c) and musl (libprofrun-musl.so, built with
 * musl-gcc and -DSHIM_LIBC_MUSL=1, libc/musl.c).
 *
 *   glibc: constructors receive argc and argv; on_exit() hands the exit
 *          status over;
 *          the interposers also cover glibc's own entries (__sigaction,
 *          sysv_signal, sigvec, dlmopen, profil, __monstartup ...).
 *   musl:  no profil() (not needed: on both, timer.c's handler counts into
 *          the histogram itself); constructors receive no arguments and
 *          atexit() no status, so both come from __libc_start_main, which
 *          the program's start-up code calls through the dynamic linker;
 *          only functions musl itself exports are interposed.
 */
#ifndef PROFRUN_LIBC_H
#define PROFRUN_LIBC_H

#include <signal.h>
#include <stdbool.h>

#ifndef SHIM_LIBC_MUSL
#define SHIM_LIBC_MUSL 0
#endif
#define SHIM_LIBC_GLIBC (!SHIM_LIBC_MUSL)

#if SHIM_LIBC_MUSL
typedef int __itimer_which_t; /* glibc's name for setitimer's WHICH */
#endif
#ifndef sigev_notify_thread_id /* musl names it, glibc 2.36 does not */
#define sigev_notify_thread_id _sigev_un._tid
#endif

struct collect;

/* Resolve the C library's functions the interposers call (glibc: profil),
 * so that a signal handler never enters the dynamic linker.  Not
 * async-signal-safe. */
void libc_resolve(void);

/* The program's command line: the constructor's ARGC and ARGV on glibc,
 * what __libc_start_main was given on musl.  Not async-signal-safe. */
void libc_command_line(int *argc, char ***argv);

/* Register FN to run at exit() after the program's own handlers, with
 * the exit status.  Not async-signal-safe. */
void libc_on_exit(void (*fn)(int status));

/* Text of errno ERR, a static string.  Async-signal-safe. */
const char *libc_errdesc(int err);

#endif

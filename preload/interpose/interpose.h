/* SPDX-License-Identifier: MIT */
/*
 * interpose/: the functions of the program the shim wraps (the only exported
 * symbols) and what the other parts ask of them; each function below says
 * whether it is async-signal-safe.
 */
#ifndef PROFRUN_INTERPOSE_H
#define PROFRUN_INTERPOSE_H

#include "shim.h"

/* ---------------------------------------------------------------- interpose.c */
/* Resolve the real_<fn> of the interposers that a signal handler, a vfork
 * child or the exec path may call (not __monstartup's, resolved on first
 * use).  Not async-signal-safe. */
void interpose_resolve_all(void);

/* ---------------------------------------------------------------- dl.c */
/* Scan the loaded objects now if this process owns a live profile (the
 * hooks around dlopen and dlclose call it).  Not async-signal-safe. */
void shim_modules_changed(void);

/* The same before a fork: the link maps only (the parent of a fork makes
 * no system call for it, as a seccomp sandbox may require; the child
 * starts from these records).  Not async-signal-safe. */
void shim_modules_before_fork(void);

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

#endif /* PROFRUN_INTERPOSE_H */

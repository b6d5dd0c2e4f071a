/* SPDX-License-Identifier: MIT */
/*
 * <profrun/profrun.h>: pause and resume profrun's sampling from inside the
 * program, to profile only the part that matters.
 *
 *	#include <profrun/profrun.h>
 *
 *	setup();
 *	profrun_resume();   // with `profrun --start-paused`
 *	measured_part();
 *	profrun_pause();
 *	teardown();
 *
 * Nothing to link: the functions are static inline and look the profrun
 * shim up at run time (dlsym(RTLD_DEFAULT), once per file that uses them).
 * Without profrun they do nothing and the queries return 0, so the same
 * binary runs unchanged with and without it.
 *
 * Under profrun a pause or a resume takes effect at once for the whole
 * process, every thread, whichever thread calls it; CPU time used while
 * paused is reported as paused, not sampled.  The calls do not nest: the
 * last one wins.  They are thread-safe, and async-signal-safe once any of
 * them has been called outside a signal handler (the first call in a file
 * runs dlsym).  A fork
 * child starts in its parent's state; an exec'd program starts as
 * `profrun` was told (running, or paused with --start-paused).
 *
 * With glibc older than 2.34, dlsym lives in libdl: link with -ldl there.
 */
#ifndef PROFRUN_PROFRUN_H
#define PROFRUN_PROFRUN_H

#include <dlfcn.h>

/* The one entry point the shim exports: OP is one of these; returns 1 when
 * sampling is paused after it, 0 when it runs, -1 when this process is not
 * being profiled. */
#define PROFRUN_CONTROL_SYMBOL "profrun_control"
#define PROFRUN_CONTROL_QUERY  0
#define PROFRUN_CONTROL_PAUSE  1
#define PROFRUN_CONTROL_RESUME 2

#ifdef RTLD_DEFAULT
#define PROFRUN_RTLD_DEFAULT_ RTLD_DEFAULT
#else
#define PROFRUN_RTLD_DEFAULT_ ((void *)0) /* glibc's, without _GNU_SOURCE */
#endif

typedef int (*profrun_control_fn_)(int);

/* The shim's entry point, or NULL without profrun; looked up once. */
static inline profrun_control_fn_
profrun_control_fn_get_(void)
{
	static void *fn; /* 0 = not looked up yet, (void *)1 = not there */
	void *p = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);

	if (p == 0) {
		p = dlsym(PROFRUN_RTLD_DEFAULT_, PROFRUN_CONTROL_SYMBOL);
		if (p == 0)
			p = (void *)1;
		__atomic_store_n(&fn, p, __ATOMIC_RELEASE);
	}
	if (p == (void *)1)
		return (profrun_control_fn_)0;
	{
		union { /* object to function pointer, as ISO C allows */
			void *obj;
			profrun_control_fn_ fn;
		} u;

		u.obj = p;
		return u.fn;
	}
}

static inline int
profrun_control_(int op)
{
	profrun_control_fn_ f = profrun_control_fn_get_();

	return f ? f(op) : -1;
}

/* Stop counting samples, in every thread of the process, now. */
static inline void
profrun_pause(void)
{
	(void)profrun_control_(PROFRUN_CONTROL_PAUSE);
}

/* Count samples again, in every thread of the process, from now on. */
static inline void
profrun_resume(void)
{
	(void)profrun_control_(PROFRUN_CONTROL_RESUME);
}

/* 1 while profrun profiles this process and sampling is paused, else 0. */
static inline int
profrun_paused(void)
{
	return profrun_control_(PROFRUN_CONTROL_QUERY) == 1;
}

/* 1 while profrun profiles this process and samples it now, else 0. */
static inline int
profrun_active(void)
{
	return profrun_control_(PROFRUN_CONTROL_QUERY) == 0;
}

#endif /* PROFRUN_PROFRUN_H */

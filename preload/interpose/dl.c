/* SPDX-License-Identifier: MIT */
/*
 * Hooks that keep the module records current: dlopen, dlmopen and
 * dlclose rescan the loaded objects (modules.c).
 *
 * dlopen and dlmopen look at their caller's return address to choose the
 * object whose RUNPATH, $ORIGIN and namespace apply.  An ordinary wrapper
 * would make the shim that caller, so a program's dlopen("libplugin.so")
 * resolved through its own RUNPATH would fail under profrun.  They are
 * therefore small trampolines that scan first and then jump (not call)
 * to the real function, which sees the program's return address and
 * returns straight to it.
 *
 * The object a dlopen loads is recorded when it returns whenever glibc
 * does not look at the caller for that call: a path with a '/' and no
 * '$' (no search, no $ORIGIN), from a caller in the base namespace
 * without a DT_RPATH of its own (which its library's dependencies would
 * search).  The trampoline then jumps to dlopen_then_scan, which calls
 * the real dlopen and scans, so a process that ends by _exit, a kill or a
 * crash right after still has the object's samples.  Otherwise (a bare
 * name searched through the caller's RUNPATH, $ORIGIN) the object is
 * recorded by the next scan: the next dlopen or dlclose, a fork, or the
 * exit; PCs sampled in it before then carry an older generation, which
 * the reader resolves to the record found next at that address
 * (docs/format.md), and a process that dies first has them [unknown].
 *
 * dlclose has no such dependence: it scans before (the object is still
 * mapped) and after (it may be gone).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <link.h>
#include <stddef.h>
#include <string.h>

#include "libc/libc.h"
#include "arch/arch.h"
#include "shim.h"
#include "interpose/interpose.h"

typedef void *(*dlopen_fn)(const char *, int);
#if SHIM_LIBC_GLIBC
typedef void *(*dlmopen_fn)(Lmid_t, const char *, int);
#endif
typedef int (*dlclose_fn)(void *);

static dlopen_fn real_dlopen;
#if SHIM_LIBC_GLIBC
static dlmopen_fn real_dlmopen;
#endif
static dlclose_fn real_dlclose;

#if SHIM_LIBC_GLIBC
/* Stand-ins when the real function cannot be found. */
static void *
no_dlopen(const char *file, int mode)
{
	return NULL;
}

static void *
no_dlmopen(Lmid_t ns, const char *file, int mode)
{
	return NULL;
}

/* True when glibc's dlopen (NS_OF_CALLER) or dlmopen of FILE depends on
 * its caller at CALLER: a search (no '/'), a $ORIGIN or other '$' token,
 * the caller's namespace, a DT_RPATH of the caller that the new object's
 * dependencies would search (the main executable's is searched anyway).
 * Not async-signal-safe (dladdr1, dlinfo). */
static bool
caller_matters(const char *file, const void *caller, bool ns_of_caller)
{
	struct link_map *lm = NULL;
	Lmid_t ns = LM_ID_BASE;
	Dl_info info;

	if (file == NULL || strchr(file, '/') == NULL ||
	    strchr(file, '$') != NULL)
		return true;
	/* no object at CALLER: glibc takes the main program's */
	if (dladdr1(caller, &info, (void **)&lm, RTLD_DL_LINKMAP) == 0 ||
	    lm == NULL)
		return false;
	if (ns_of_caller &&
	    (dlinfo(lm, RTLD_DI_LMID, &ns) != 0 || ns != LM_ID_BASE))
		return true;
	if (lm->l_name == NULL || lm->l_name[0] == '\0' || lm->l_ld == NULL)
		return false; /* the main executable */
	for (const ElfW(Dyn) *d = lm->l_ld; d->d_tag != DT_NULL; d++)
		if (d->d_tag == DT_RPATH)
			return true;
	return false;
}

/* The real dlopen or dlmopen called from here, then a scan: the object
 * is recorded before the program goes on.  Reached by a jump from the
 * trampoline, so it returns to the program.  Not async-signal-safe. */
static void *
dlopen_then_scan(const char *file, int mode)
{
	void *h = REAL(dlopen) ? real_dlopen(file, mode) : NULL;

	shim_modules_changed(); /* errno and dlerror() kept */
	return h;
}

static void *
dlmopen_then_scan(Lmid_t ns, const char *file, int mode)
{
	void *h = REAL(dlmopen) ? real_dlmopen(ns, file, mode) : NULL;

	shim_modules_changed();
	return h;
}

/* What the trampolines call before jumping, with dlopen's FILE and the
 * program's return address CALLER: the function to jump to, either the
 * real one after a scan (glibc needs to see the program as its caller) or
 * one that scans after it.  Not async-signal-safe (neither is dlopen). */
void *shim_dlopen_target(const char *file, const void *caller);
void *shim_dlmopen_target(const char *file, const void *caller);

__attribute__((used)) void *
shim_dlopen_target(const char *file, const void *caller)
{
	if (shim_owns_profile() && !caller_matters(file, caller, true))
		return (void *)dlopen_then_scan;
	shim_modules_changed();
	return REAL(dlopen) ? (void *)real_dlopen : (void *)no_dlopen;
}

__attribute__((used)) void *
shim_dlmopen_target(const char *file, const void *caller)
{
	if (shim_owns_profile() && !caller_matters(file, caller, false))
		return (void *)dlmopen_then_scan;
	shim_modules_changed();
	return REAL(dlmopen) ? (void *)real_dlmopen : (void *)no_dlmopen;
}

/* dlopen and dlmopen through the CPU's trampoline (arch.h), which hands
 * shim_<fn>_target the file and the caller's address */
#if defined(ARCH_TRAMPOLINE)
ARCH_TRAMPOLINE(dlopen, ARCH_DLOPEN_FILE);
ARCH_TRAMPOLINE(dlmopen, ARCH_DLMOPEN_FILE);
#else
/* Elsewhere an ordinary wrapper: the caller's RUNPATH is not seen. */
EXPORT void *
dlopen(const char *file, int mode)
{
	return ((dlopen_fn)shim_dlopen_target(
		file, __builtin_return_address(0)))(file, mode);
}

EXPORT void *
dlmopen(Lmid_t ns, const char *file, int mode)
{
	return ((dlmopen_fn)shim_dlmopen_target(
		file, __builtin_return_address(0)))(ns, file, mode);
}
#endif
#else
/* musl's dlopen searches as for the main program whoever calls it, and has
 * no namespaces: an ordinary wrapper that scans after it.  Not
 * async-signal-safe (neither is dlopen). */
EXPORT void *
dlopen(const char *file, int mode)
{
	void *h = REAL(dlopen) ? real_dlopen(file, mode) : NULL;

	shim_modules_changed(); /* errno and dlerror() kept */
	return h;
}
#endif

/* Not async-signal-safe (neither is dlclose). */
EXPORT int
dlclose(void *handle)
{
	int r;

	shim_modules_changed();
	if (REAL(dlclose) == NULL)
		return -1;
	r = real_dlclose(handle);
	shim_modules_changed();
	return r;
}

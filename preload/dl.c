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
 * returns straight to it.  The object a dlopen loads is recorded by the
 * next scan: the next dlopen or dlclose, a fork, or the exit; PCs sampled
 * in it before then carry an older generation, which the reader resolves
 * to the record found next at that address (docs/format.md).
 *
 * dlclose has no such dependence: it scans before (the object is still
 * mapped) and after (it may be gone).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stddef.h>

#include "shim.h"

#define EXPORT __attribute__((visibility("default")))

typedef void *(*dlopen_fn)(const char *, int);
typedef void *(*dlmopen_fn)(Lmid_t, const char *, int);
typedef int (*dlclose_fn)(void *);

static dlopen_fn real_dlopen;
static dlmopen_fn real_dlmopen;
static dlclose_fn real_dlclose;

/* Not async-signal-safe (dlsym). */
void
dl_resolve_all(void)
{
	REAL(dlopen);
	REAL(dlmopen);
	REAL(dlclose);
}

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

/* What the trampolines call before jumping: scan, then the address of the
 * real function.  Not async-signal-safe (neither is dlopen). */
void *shim_dlopen_target(void);
void *shim_dlmopen_target(void);

__attribute__((used)) void *
shim_dlopen_target(void)
{
	shim_modules_changed();
	return REAL(dlopen) ? (void *)real_dlopen : (void *)no_dlopen;
}

__attribute__((used)) void *
shim_dlmopen_target(void)
{
	shim_modules_changed();
	return REAL(dlmopen) ? (void *)real_dlmopen : (void *)no_dlmopen;
}

/* TRAMPOLINE(fn): save the argument registers, call shim_<fn>_target,
 * restore them, jump to the address it returned. */
#if defined(__x86_64__)
#ifdef __CET__
#define LANDING "endbr64\n"
#else
#define LANDING ""
#endif
#define TRAMPOLINE(fn)                                                         \
	__asm__(".text\n"                                                      \
		".globl " #fn "\n"                                             \
		".type " #fn ", @function\n"                                   \
		".p2align 4\n" #fn ":\n"                                       \
		".cfi_startproc\n" LANDING                                     \
		"push %rdi\n.cfi_adjust_cfa_offset 8\n"                        \
		"push %rsi\n.cfi_adjust_cfa_offset 8\n"                        \
		"push %rdx\n.cfi_adjust_cfa_offset 8\n"                        \
		"call shim_" #fn "_target\n"                                   \
		"pop %rdx\n.cfi_adjust_cfa_offset -8\n"                        \
		"pop %rsi\n.cfi_adjust_cfa_offset -8\n"                        \
		"pop %rdi\n.cfi_adjust_cfa_offset -8\n"                        \
		"jmp *%rax\n"                                                  \
		".cfi_endproc\n"                                               \
		".size " #fn ", . - " #fn "\n")
#elif defined(__aarch64__)
#ifdef __ARM_FEATURE_BTI_DEFAULT
#define LANDING "bti c\n"
#else
#define LANDING ""
#endif
#define TRAMPOLINE(fn)                                                         \
	__asm__(".text\n"                                                      \
		".globl " #fn "\n"                                             \
		".type " #fn ", %function\n"                                   \
		".p2align 4\n" #fn ":\n"                                       \
		".cfi_startproc\n" LANDING "stp x29, x30, [sp, -48]!\n"        \
		".cfi_def_cfa_offset 48\n"                                     \
		".cfi_offset 29, -48\n.cfi_offset 30, -40\n"                   \
		"mov x29, sp\n"                                                \
		"stp x0, x1, [sp, 16]\n"                                       \
		"str x2, [sp, 32]\n"                                           \
		"bl shim_" #fn "_target\n"                                     \
		"mov x16, x0\n"                                                \
		"ldp x0, x1, [sp, 16]\n"                                       \
		"ldr x2, [sp, 32]\n"                                           \
		"ldp x29, x30, [sp], 48\n"                                     \
		".cfi_def_cfa_offset 0\n"                                      \
		"br x16\n"                                                     \
		".cfi_endproc\n"                                               \
		".size " #fn ", . - " #fn "\n")
#endif

#ifdef TRAMPOLINE
TRAMPOLINE(dlopen);
TRAMPOLINE(dlmopen);
#else
/* Elsewhere an ordinary wrapper: the caller's RUNPATH is not seen. */
EXPORT void *
dlopen(const char *file, int mode)
{
	return ((dlopen_fn)shim_dlopen_target())(file, mode);
}

EXPORT void *
dlmopen(Lmid_t ns, const char *file, int mode)
{
	return ((dlmopen_fn)shim_dlmopen_target())(ns, file, mode);
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

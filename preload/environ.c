/* SPDX-License-Identifier: MIT */
/*
 * Cleared environments.  A program that execs with an environment of its
 * own making (env -i, execve with its own envp, posix_spawn with an
 * explicit envp, clearenv() then exec) would start an image without
 * LD_PRELOAD and the PROFRUN_* settings: unprofiled, and unseen.  The
 * settings this process started with are kept here, and the exec
 * interposers put back those the new environment lacks (as uftrace's
 * libmcount does in merge_envp): the shim added to an LD_PRELOAD that
 * lacks it, each PROFRUN_* variable whose name is missing, and (when this
 * process had it) the ASAN_OPTIONS flag that lets a program built with
 * -fsanitize=address start with the shim preloaded.  With
 * PROFRUN_EXACT_ENV (profrun --exact-env) the environment is left as the
 * program made it.  LD_PRELOAD gets the shim of the C library of the image
 * the exec begins (libprofrun.so for glibc, libprofrun-musl.so beside it for
 * musl: a loader exits on a preload built for the other), and loses the
 * other one; without a shim for its C library, none of ours.  Either way the member records what happened
 * (PROFRUN_F_ENV_RESTORED, PROFRUN_F_ENV_LEFT).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arch/arch.h"
#include "libc/libc.h"
#include "shim.h"

#define ENV_MAX_VARS   32
#define ASAN_FLAG_NAME "verify_asan_link_order="
#define ASAN_FLAG      ASAN_FLAG_NAME "0"

#define ENV_MAX_ROOM (256u * 1024) /* stack bytes a merge may take */

extern char **environ;

/* The strings are packed into buf one after the other: a process touches
 * only the pages they take (a page fault each at start), not a page for
 * each path's full size. */
static struct {
	bool on;	 /* variables kept: merging (or noting) is possible */
	bool exact;	 /* PROFRUN_EXACT_ENV: note, never merge */
	bool asan_flag;	 /* ASAN_OPTIONS held ASAN_FLAG at start */
	int other_there; /* 0 not yet looked for, 1 there, -1 not */
	size_t n;
	const char *vars[ENV_MAX_VARS]; /* "NAME=value", in buf */
	const char *shim;		/* our own path, in buf */
	const char *other; /* the other C library's, in buf, or NULL */
	char buf[6 * PATH_MAX];
} ev ARCH_LARGE_SECTION;

/* File names of the two shims, which are installed side by side. */
#define GLIBC_SHIM "libprofrun.so"
#define MUSL_SHIM  "libprofrun-musl.so"

/* The shim the image an exec begins needs in LD_PRELOAD (NULL: none), and
 * the one it must not have (NULL: none), set by environ_merge_size. */
static __thread const char *t_item __attribute__((tls_model("initial-exec")));
static __thread const char *t_drop __attribute__((tls_model("initial-exec")));
/* --exact-env: only the shim in LD_PRELOAD swapped (a loader would refuse
 * the other C library's), nothing put back */
static __thread bool t_swap_only __attribute__((tls_model("initial-exec")));

/* A (A_LEN bytes) then B (B_LEN) into ev.buf at *USED, NUL-terminated;
 * NULL when they do not fit.  Async-signal-safe. */
static const char *
keep(const char *a, size_t a_len, const char *b, size_t b_len, size_t *used)
{
	char *d = ev.buf + *used;

	if (a_len + b_len + 1 > sizeof(ev.buf) - *used)
		return NULL;
	memcpy(d, a, a_len);
	memcpy(d + a_len, b, b_len);
	d[a_len + b_len] = '\0';
	*used += a_len + b_len + 1;
	return d;
}

/* The path the other C library's shim has beside our own at SELF into
 * ev.other (ev.buf at *USED); whether it is there is asked at the first
 * exec that needs it (other_shim), not by every process at start.
 * Async-signal-safe. */
static void
find_other(const char *self, size_t *used)
{
	const char *base = strrchr(self, '/') + 1;
	const char *other = strcmp(base, MUSL_SHIM) == 0    ? GLIBC_SHIM
			    : strcmp(base, GLIBC_SHIM) == 0 ? MUSL_SHIM
							    : NULL;

	ev.other = other == NULL ? NULL
				 : keep(self, (size_t)(base - self), other,
					strlen(other), used);
}

/* The other C library's shim, or NULL when it is not installed beside
 * ours.  Threads (and a vfork child) that ask at once each look and
 * store the same answer.  Async-signal-safe (access). */
static const char *
other_shim(void)
{
	int there = __atomic_load_n(&ev.other_there, __ATOMIC_RELAXED);

	if (ev.other == NULL)
		return NULL;
	if (there == 0) {
		int saved = errno;

		there = access(ev.other, R_OK) == 0 ? 1 : -1;
		errno = saved;
		__atomic_store_n(&ev.other_there, there, __ATOMIC_RELAXED);
	}
	return there > 0 ? ev.other : NULL;
}

/* Async-signal-safe. */
bool
environ_has_shim(bool musl)
{
	return musl == SHIM_LIBC_MUSL || other_shim() != NULL;
}

/* Not async-signal-safe (dladdr). */
void
environ_snapshot(bool exact)
{
	Dl_info info;
	size_t used = 0;
	const char *opts;

	if (dladdr((void *)environ_snapshot, &info) == 0 ||
	    info.dli_fname == NULL || info.dli_fname[0] != '/' ||
	    strlen(info.dli_fname) >= PATH_MAX || strpbrk(info.dli_fname, ": "))
		return;
	ev.shim = keep(info.dli_fname, strlen(info.dli_fname), "", 0, &used);
	find_other(ev.shim, &used);
	for (char **e = environ; e && *e && ev.n < ENV_MAX_VARS; e++) {
		const char *kept;

		if (strncmp(*e, "PROFRUN_", 8) != 0)
			continue;
		kept = keep(*e, strlen(*e), "", 0, &used);
		if (kept != NULL)
			ev.vars[ev.n++] = kept;
	}
	opts = getenv("ASAN_OPTIONS");
	ev.asan_flag = opts && strstr(opts, ASAN_FLAG) != NULL;
	ev.exact = exact;
	ev.on = true;
}

/* Length of the name of VAR ("NAME=value").  Async-signal-safe. */
static size_t
name_len(const char *var)
{
	const char *eq = strchr(var, '=');

	return eq ? (size_t)(eq - var) : strlen(var);
}

/* The entry of ENVP named like VAR, or NULL.  Async-signal-safe. */
static const char *
find(char *const *envp, const char *var)
{
	size_t n = name_len(var);

	for (; envp && *envp; envp++)
		if (strncmp(*envp, var, n) == 0 && (*envp)[n] == '=')
			return *envp;
	return NULL;
}

/* True when the list LIST (':' or ' ' separated) holds ITEM.
 * Async-signal-safe. */
static bool
list_has(const char *list, const char *item)
{
	size_t n = strlen(item);

	for (const char *p = list; *p;) {
		size_t len = strcspn(p, ": ");

		if (len == n && strncmp(p, item, n) == 0)
			return true;
		p += len;
		p += *p != '\0';
	}
	return false;
}

/* True when the sanitizer options OPTS set FLAG ("name=value") to
 * anything: a choice of the program's.  Async-signal-safe. */
static bool
option_set(const char *opts, const char *flag)
{
	return strstr(opts, flag) != NULL;
}

/* The list variables an environment must hold an item of ours in: the
 * shim in LD_PRELOAD; in ASAN_OPTIONS, when the process started with it,
 * the flag that lets an ASan runtime start after the shim. */
enum { LIST_PRELOAD, LIST_ASAN, LIST_COUNT };

static const struct list_var {
	const char *prefix; /* "NAME=" */
	bool (*has)(const char *value, const char *item);
} lists[LIST_COUNT] = {
	[LIST_PRELOAD] = {"LD_PRELOAD=", list_has},
	[LIST_ASAN] = {"ASAN_OPTIONS=", option_set},
};

/* The item of list I to put in, or NULL when it needs none.
 * Async-signal-safe. */
static const char *
list_item(int i)
{
	if (i == LIST_PRELOAD)
		return t_item;
	return ev.asan_flag ? ASAN_FLAG : NULL;
}

/* Bytes of the new entry of list I that ENVP needs, or 0 when none.
 * Async-signal-safe. */
static size_t
list_lacking(char *const *envp, int i)
{
	const char *item = list_item(i), *old;
	size_t plen = strlen(lists[i].prefix);

	old = find(envp, lists[i].prefix);
	if (i == LIST_PRELOAD && t_drop && old && list_has(old + plen, t_drop))
		return strlen(old) + 1 + (item ? strlen(item) + 1 : 0);
	if (item == NULL)
		return 0;
	if (old == NULL || old[plen] == '\0')
		return plen + strlen(item) + 1;
	if (lists[i].has(old + plen, i == LIST_PRELOAD ? item : ASAN_FLAG_NAME))
		return 0;
	return strlen(old) + 1 + strlen(item) + 1;
}

/* The bytes of new list entries ENVP needs (one length each into LEN),
 * and how many PROFRUN_* variables it lacks into *MISSING.
 * Async-signal-safe. */
static size_t
lacking(char *const *envp, size_t len[LIST_COUNT], size_t *missing)
{
	size_t total = 0;

	*missing = 0;
	for (size_t i = 0; i < ev.n; i++)
		*missing += find(envp, ev.vars[i]) == NULL;
	for (int i = 0; i < LIST_COUNT; i++)
		total += len[i] = list_lacking(envp, i);
	return total;
}

/* True when the LD_PRELOAD of ENVP holds one of our shims.
 * Async-signal-safe. */
static bool
preload_has(char *const *envp, const char *shim)
{
	const char *old = find(envp, lists[LIST_PRELOAD].prefix);

	return old && shim &&
	       list_has(old + strlen(lists[LIST_PRELOAD].prefix), shim);
}

static bool
preload_has_ours(char *const *envp)
{
	return preload_has(envp, ev.shim) || preload_has(envp, other_shim());
}

/* Whether the last environ_merge_size() of this thread left an
 * environment without our variables (--exact-env): the exec it was for
 * begins an image that is not profiled.  Async-signal-safe. */
static __thread bool t_left __attribute__((tls_model("initial-exec")));

bool
environ_left_out(void)
{
	return t_left;
}

/* Async-signal-safe. */
size_t
environ_merge_size(char *const *envp, bool musl)
{
	size_t len[LIST_COUNT], missing, bytes, count = 0, room;

	t_left = false;
	if (!ev.on)
		return 0;
	t_item = musl == SHIM_LIBC_MUSL ? ev.shim : other_shim();
	t_drop = t_item == ev.shim ? other_shim() : ev.shim;
	t_swap_only = false;
	bytes = lacking(envp, len, &missing);
	if (bytes == 0 && missing == 0)
		return 0;
	if (ev.exact) {
		if (missing > 0 || len[LIST_ASAN] > 0 ||
		    !preload_has_ours(envp)) {
			shim_note_flag(PROFRUN_F_ENV_LEFT);
			t_left = true;
		}
		if (!preload_has(envp, t_drop))
			return 0;
		t_swap_only = true;
		missing = 0;
		bytes = len[LIST_PRELOAD];
	}
	while (envp && envp[count])
		count++;
	room = (count + missing + LIST_COUNT + 1) * sizeof(char *) + bytes;
	return room <= ENV_MAX_ROOM ? room : 0;
}

/* The new entry of list I into AT (LEN bytes): the old value OLD (NULL:
 * none) with ITEM appended.  Async-signal-safe. */
static char *
list_entry(char *at, int i, const char *old)
{
	size_t plen = strlen(lists[i].prefix);
	const char *item = list_item(i);

	strcpy(at, lists[i].prefix);
	if (i == LIST_PRELOAD && old) {
		/* the old items but the other C library's shim */
		for (const char *p = old + plen; *p;) {
			size_t len = strcspn(p, ": ");

			if (len > 0 && !(len == strlen(t_drop ? t_drop : "") &&
					 strncmp(p, t_drop, len) == 0)) {
				if (at[plen])
					strcat(at, ":");
				strncat(at, p, len);
			}
			p += len;
			p += *p != '\0';
		}
	} else if (old && old[plen])
		strcpy(at, old);
	if (item == NULL || (i == LIST_PRELOAD && list_has(at + plen, item)))
		return at;
	if (at[plen])
		strcat(at, ":");
	strcat(at, item);
	return at;
}

/* True when E is the entry of a list that gets a new one.
 * Async-signal-safe. */
static bool
replaced(const char *e, char *const *envp, const size_t len[LIST_COUNT])
{
	for (int i = 0; i < LIST_COUNT; i++)
		if (len[i] && e == find(envp, lists[i].prefix))
			return true;
	return false;
}

/* Async-signal-safe. */
char *const *
environ_merge(char *const *envp, void *room, size_t size)
{
	char **out = room, *at = (char *)room + size;
	size_t len[LIST_COUNT], missing, n = 0;

	if (size == 0)
		return envp;
	lacking(envp, len, &missing);
	if (t_swap_only) {
		missing = 0;
		for (int i = 0; i < LIST_COUNT; i++)
			len[i] = i == LIST_PRELOAD ? len[i] : 0;
	}
	for (char *const *e = envp; e && *e; e++)
		if (!replaced(*e, envp, len))
			out[n++] = *e;
	for (size_t i = 0; i < ev.n && !t_swap_only; i++)
		if (find(envp, ev.vars[i]) == NULL)
			out[n++] = (char *)ev.vars[i];
	for (int i = 0; i < LIST_COUNT; i++) {
		if (len[i] == 0)
			continue;
		at -= len[i];
		out[n++] = list_entry(at, i, find(envp, lists[i].prefix));
	}
	out[n] = NULL;
	/* only our shim swapped for the other C library's: nothing of ours
	 * was missing */
	if (!t_swap_only &&
	    (missing > 0 || len[LIST_ASAN] > 0 || !preload_has_ours(envp)))
		shim_note_flag(PROFRUN_F_ENV_RESTORED);
	return out;
}

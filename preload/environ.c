/* SPDX-License-Identifier: MIT */
/*
 * Cleared environments.  A program that execs with an environment of its
 * own making (env -i, execve with its own envp, posix_spawn with an
 * explicit envp, clearenv() then exec) would start an image without
 * LD_PRELOAD and the PROFRUN_* settings: unprofiled, and unseen.  The
 * settings this process started with are kept here, and the exec
 * interposers put back those the new environment lacks (as uftrace's
 * libmcount does in merge_envp): the shim added to an LD_PRELOAD that
 * lacks it, each PROFRUN_* variable whose name is missing.  With
 * PROFRUN_EXACT_ENV (profrun --exact-env) the environment is left as the
 * program made it.  Either way the member records what happened
 * (PROFRUN_F_ENV_RESTORED, PROFRUN_F_ENV_LEFT).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <string.h>

#include "shim.h"

#define ENV_MAX_VARS 32
#define ENV_MAX_ROOM (256u * 1024) /* stack bytes a merge may take */

extern char **environ;

static struct {
	bool on;    /* variables kept: merging (or noting) is possible */
	bool exact; /* PROFRUN_EXACT_ENV: note, never merge */
	size_t n;
	const char *vars[ENV_MAX_VARS]; /* "NAME=value", in buf */
	char shim[PATH_MAX];		/* our own path */
	char buf[4 * PATH_MAX];
} ev;

/* Not async-signal-safe (dladdr). */
void
environ_snapshot(bool exact)
{
	Dl_info info;
	size_t used = 0;

	if (dladdr((void *)environ_snapshot, &info) == 0 ||
	    info.dli_fname == NULL || info.dli_fname[0] != '/' ||
	    strlen(info.dli_fname) >= sizeof(ev.shim) ||
	    strpbrk(info.dli_fname, ": "))
		return;
	strcpy(ev.shim, info.dli_fname);
	for (char **e = environ; e && *e && ev.n < ENV_MAX_VARS; e++) {
		size_t len = strlen(*e) + 1;

		if (strncmp(*e, "PROFRUN_", 8) != 0 ||
		    used + len > sizeof(ev.buf))
			continue;
		memcpy(ev.buf + used, *e, len);
		ev.vars[ev.n++] = ev.buf + used;
		used += len;
	}
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

/* True when the list LIST (':' or ' ' separated) holds PATH.
 * Async-signal-safe. */
static bool
list_has(const char *list, const char *path)
{
	size_t n = strlen(path);

	for (const char *p = list; *p;) {
		size_t len = strcspn(p, ": ");

		if (len == n && strncmp(p, path, n) == 0)
			return true;
		p += len;
		p += *p != '\0';
	}
	return false;
}

/* Bytes of the new LD_PRELOAD entry ENVP needs (0: none), and how many
 * PROFRUN_* variables it lacks into *MISSING.  Async-signal-safe. */
static size_t
lacking(char *const *envp, size_t *missing)
{
	const char *pre = find(envp, "LD_PRELOAD=");

	*missing = 0;
	for (size_t i = 0; i < ev.n; i++)
		*missing += find(envp, ev.vars[i]) == NULL;
	if (pre == NULL || pre[11] == '\0')
		return 11 + strlen(ev.shim) + 1;
	if (list_has(pre + 11, ev.shim))
		return 0;
	return strlen(pre) + 1 + strlen(ev.shim) + 1;
}

/* Async-signal-safe. */
size_t
environ_merge_size(char *const *envp)
{
	size_t missing, pre, count = 0, room;

	if (!ev.on)
		return 0;
	pre = lacking(envp, &missing);
	if (pre == 0 && missing == 0)
		return 0;
	if (ev.exact) {
		shim_note_flag(PROFRUN_F_ENV_LEFT);
		return 0;
	}
	while (envp && envp[count])
		count++;
	room = (count + missing + 2) * sizeof(char *) + pre;
	return room <= ENV_MAX_ROOM ? room : 0;
}

/* Async-signal-safe. */
char *const *
environ_merge(char *const *envp, void *room, size_t size)
{
	char **out = room, *pre;
	const char *old = find(envp, "LD_PRELOAD=");
	size_t missing, n = 0, pre_len;

	if (size == 0)
		return envp;
	pre_len = lacking(envp, &missing);
	for (char *const *e = envp; e && *e; e++)
		if (*e != old || pre_len == 0)
			out[n++] = *e;
	for (size_t i = 0; i < ev.n; i++)
		if (find(envp, ev.vars[i]) == NULL)
			out[n++] = (char *)ev.vars[i];
	if (pre_len) {
		pre = (char *)room + size - pre_len;
		if (old && old[11])
			strcpy(pre, old);
		else
			strcpy(pre, "LD_PRELOAD=");
		if (pre[11])
			strcat(pre, ":");
		strcat(pre, ev.shim);
		out[n++] = pre;
	}
	out[n] = NULL;
	shim_note_flag(PROFRUN_F_ENV_RESTORED);
	return out;
}

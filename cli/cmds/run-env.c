/* SPDX-License-Identifier: MIT */
/* The program's LD_PRELOAD: what the user preloaded is meant for the
 * program, not for profrun (gperftools' libprofiler with CPUPROFILE would
 * profile profrun, rename the program's profile and write profrun's over
 * it).  Before any preloaded constructor runs (from .preinit_array, which
 * the dynamic linker calls first), profrun starts again without it,
 * keeping it for the program; a profrun shim in it (a run inside a
 * profiled one) stays, so that the outer run still profiles profrun.
 *
 * Sanitized programs: the ASan runtime refuses to start unless it comes
 * first in the library list, and the shim comes before it.  Putting the
 * runtime first in LD_PRELOAD would load it into every process of the run
 * (LeakSanitizer then reports the leaks of a shell that exits, changing
 * its output and status), so instead ASAN_OPTIONS gets ASan's own flag for
 * it, verify_asan_link_order=0, which the shim keeps in the environments
 * the program passes on (preload/environ.c). */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "run-env.h"

#define ASIDE_PRELOAD  "_PROFRUN_CLI_USER_PRELOAD"
#define ASIDE_PID      "_PROFRUN_CLI_USER_PRELOAD_PID"
#define SHIM_NAME      "libprofrun.so"
#define ASAN_FLAG_NAME "verify_asan_link_order="

/* The user's LD_PRELOAD, set aside for the program; NULL: none. */
static char *user_preload;

/* The entries of the LD_PRELOAD list PRE (':' or ' ' separated) that are
 * a profrun shim, ':' separated, into OUT (at least as long as PRE). */
static void
shims_of(const char *pre, char *out)
{
	size_t n = 0, len, base;

	for (const char *p = pre; *p; p += len + (p[len] != '\0')) {
		len = strcspn(p, ": ");
		for (base = len; base > 0 && p[base - 1] != '/'; base--)
			;
		if (len - base != strlen(SHIM_NAME) ||
		    memcmp(p + base, SHIM_NAME, len - base) != 0)
			continue;
		if (n > 0)
			out[n++] = ':';
		memcpy(out + n, p, len);
		n += len;
	}
	out[n] = '\0';
}

void
run_env_restart(char **argv)
{
	const char *pre = getenv("LD_PRELOAD");
	char pid[32];
	size_t len;

	if (pre == NULL || *pre == '\0' || getenv(ASIDE_PID) != NULL)
		return;
	len = strlen(pre);
	char shims[len + 1];

	shims_of(pre, shims);
	if (strcmp(shims, pre) == 0)
		return; /* nothing of the user's */
	snprintf(pid, sizeof(pid), "%ld", (long)getpid());
	if (setenv(ASIDE_PRELOAD, pre, 1) != 0 ||
	    setenv(ASIDE_PID, pid, 1) != 0 ||
	    (*shims ? setenv("LD_PRELOAD", shims, 1) : unsetenv("LD_PRELOAD")))
		return;
	execv("/proc/self/exe", argv);
	/* no /proc: profrun runs with the preload, as the program will */
}

void
run_env_take_aside(void)
{
	const char *aside = getenv(ASIDE_PID), *pre = getenv(ASIDE_PRELOAD);
	char pid[32];

	snprintf(pid, sizeof(pid), "%ld", (long)getpid());
	if (aside && pre && strcmp(aside, pid) == 0)
		user_preload = strdup(pre);
	unsetenv(ASIDE_PRELOAD);
	unsetenv(ASIDE_PID);
}

int
run_env_sanitizers(void)
{
	const char *old = getenv("ASAN_OPTIONS");

	if (old && strstr(old, ASAN_FLAG_NAME))
		return 0; /* the user's choice */
	return run_env_append("ASAN_OPTIONS", old, ASAN_FLAG_NAME "0");
}

int
run_env_append(const char *name, const char *old, const char *item)
{
	char *value;
	int r;

	if (old && *old)
		r = asprintf(&value, "%s:%s", old, item);
	else
		r = asprintf(&value, "%s", item);
	if (r < 0)
		return -1;
	r = setenv(name, value, 1);
	free(value);
	return r;
}

const char *
run_env_user_preload(void)
{
	const char *pre = getenv("LD_PRELOAD");

	if (user_preload)
		return user_preload;
	return pre && *pre ? pre : NULL;
}

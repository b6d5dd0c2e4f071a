/* SPDX-License-Identifier: MIT */
/*
 * The processes of a report ranked by CPU time (highest first), each
 * with its command line shortened to what tells it apart from the other
 * processes of its executable: "which compile was slowest?" is answered
 * by the first line, not found among hundreds of sections in pid order.
 * The full command line stays in the JSON report.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "outside.h"
#include "report.h"
#include "strmap.h"

/* Bytes of a shortened command line, and of one argument in it. */
#define COMMAND_MAX 72
#define ARG_MAX	    32

/* The key under which an executable's processes are counted. */
#define PROCS_KEY "\1"

/* By CPU time (unknown last), then samples, then run order. */
static int
cmp_cpu(const void *a, const void *b, void *arg)
{
	const struct proc *v = arg;
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	double x = profile_cpu_seconds(v[i].p), y = profile_cpu_seconds(v[j].p);

	if (x != y)
		return x > y ? -1 : 1;
	if (v[i].samples != v[j].samples)
		return v[i].samples > v[j].samples ? -1 : 1;
	return (i > j) - (i < j);
}

static const char *
base(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash && slash[1] ? slash + 1 : path;
}

/* The key of argument A of a process of EXE: "exe\1arg". */
static char *
arg_key(const char *exe, const char *a)
{
	char *k;

	return asprintf(&k, "%s\1%s", exe, a) < 0 ? NULL : k;
}

/* Count, per executable, the processes that have each argument (once a
 * process) and the processes of each executable, into ARGS. */
static int
count_args(const struct report *r, struct strmap *args)
{
	for (size_t i = 0; i < r->nprocs; i++) {
		const struct profile *p = r->procs[i].p;
		struct strmap_slot *s;
		char *k;

		for (size_t a = 0; a <= p->argc; a++) {
			bool again = false;

			/* a == 0: the process itself, under PROCS_KEY */
			for (size_t b = 1; a > 0 && b < a && !again; b++)
				again = strcmp(p->argv[a - 1],
					       p->argv[b - 1]) == 0;
			if (again)
				continue;
			k = arg_key(p->exe,
				    a == 0 ? PROCS_KEY : p->argv[a - 1]);
			s = k ? strmap_get(args, k) : NULL;
			free(k);
			if (s == NULL)
				return -1;
			s->value = (void *)((uintptr_t)s->value + 1);
		}
	}
	return 0;
}

/* How many processes of EXE have argument A (0 when out of memory). */
static uintptr_t
arg_count(struct strmap *args, const char *exe, const char *a)
{
	char *k = arg_key(exe, a);
	struct strmap_slot *s = k ? strmap_get(args, k) : NULL;

	free(k);
	return s ? (uintptr_t)s->value : 0;
}

/* Append " A" to BUF (LEN used of COMMAND_MAX + 1), elided. */
static void
append_arg(char *buf, size_t *len, const char *a)
{
	char cut[ARG_MAX + 1];
	size_t n = strlen(a);

	if (n > ARG_MAX) {
		/* the end of a long argument tells most: the file name */
		snprintf(cut, sizeof(cut), "..%s", a + n - (ARG_MAX - 2));
		a = cut;
	}
	if (*len + 1 + strlen(a) > COMMAND_MAX) {
		if (*len + 4 <= COMMAND_MAX &&
		    strcmp(buf + *len - 3, "...") != 0)
			*len += (size_t)snprintf(buf + *len, 5, " ...");
		return;
	}
	*len += (size_t)snprintf(buf + *len, COMMAND_MAX + 1 - *len, "%s%s",
				 *len ? " " : "", a);
}

/* Whether argument A of P tells nothing: said before in the line, or a
 * temporary file (a compiler's /tmp/ccXXXXXX.s differs every time). */
static bool
idle_arg(const struct profile *p, size_t a)
{
	for (size_t b = 1; b < a; b++)
		if (strcmp(p->argv[a], p->argv[b]) == 0)
			return true;
	return strstr(p->argv[a], "/tmp/") != NULL;
}

/* P's command line shortened: its program's name, then the arguments
 * not shared by every process of its executable. */
static char *
shorten(struct strmap *args, const struct profile *p)
{
	char buf[COMMAND_MAX + 1] = "";
	size_t len = 0;
	uintptr_t all = arg_count(args, p->exe, PROCS_KEY);

	append_arg(buf, &len, base(p->argc ? p->argv[0] : p->exe));
	for (size_t a = 1; a < p->argc; a++)
		if ((all < 2 || arg_count(args, p->exe, p->argv[a]) < all) &&
		    !idle_arg(p, a))
			append_arg(buf, &len, p->argv[a]);
	cli_printable(buf, len, false); /* one line, whatever the arguments */
	return strdup(buf);
}

int
report_processes(struct report *r)
{
	struct strmap args = {0};
	int ret = 0;

	r->by_cpu = calloc(r->nprocs ? r->nprocs : 1, sizeof(*r->by_cpu));
	if (r->by_cpu == NULL)
		return -1;
	for (size_t i = 0; i < r->nprocs; i++)
		r->by_cpu[i] = i;
	qsort_r(r->by_cpu, r->nprocs, sizeof(*r->by_cpu), cmp_cpu, r->procs);
	if (count_args(r, &args))
		ret = -1;
	for (size_t i = 0; i < r->nprocs && ret == 0; i++) {
		r->procs[i].command = shorten(&args, r->procs[i].p);
		if (r->procs[i].command == NULL)
			ret = -1;
	}
	strmap_fini(&args, NULL);
	return ret;
}

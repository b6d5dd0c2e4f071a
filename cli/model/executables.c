/* SPDX-License-Identifier: MIT */
/*
 * The run by executable: processes, CPU time and samples of each program
 * the run started.  CPU time comes from the kernel's own accounting of
 * each process, so a build's split among its compilers is exact even where
 * sampling falls short (short processes under CPU contention: README,
 * Limits).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

static struct exe_total *
exe_of(struct report *r, const char *exe)
{
	for (size_t i = 0; i < r->nexes; i++)
		if (strcmp(r->exes[i].exe, exe) == 0)
			return &r->exes[i];
	r->exes[r->nexes] = (struct exe_total){.exe = exe};
	return &r->exes[r->nexes++];
}

static int
cmp_exe(const void *a, const void *b)
{
	const struct exe_total *x = a, *y = b;

	if (x->cpu != y->cpu)
		return x->cpu > y->cpu ? -1 : 1;
	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	return strcmp(x->exe, y->exe);
}

int
report_executables(struct report *r)
{
	r->exes = calloc(r->nprocs ? r->nprocs : 1, sizeof(*r->exes));
	if (!r->exes)
		return -1;
	for (size_t i = 0; i < r->nprocs; i++) {
		const struct profile *p = r->procs[i].p;
		struct exe_total *e = exe_of(r, p->exe);
		double cpu = profile_cpu_seconds(p);

		e->processes++;
		e->samples += r->procs[i].samples;
		if (cpu >= 0)
			e->cpu += cpu;
		else
			e->cpu_unknown++;
	}
	qsort(r->exes, r->nexes, sizeof(*r->exes), cmp_exe);
	return 0;
}

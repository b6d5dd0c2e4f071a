/* SPDX-License-Identifier: MIT */
/* The text report's tables by executable and by process (the model:
 * model/executables.c, model/processes.c). */
#include <inttypes.h>
#include <stdio.h>

#include "text.h"

void
report_text_executables(const struct report *r, FILE *out)
{
	if (r->nexes < 2)
		return;
	fprintf(out, "\nby executable (CPU time as the kernel counted it):\n");
	fprintf(out, "%7s %9s %7s %10s %9s  %s\n", "cpu %", "cpu s", "%",
		"samples", "processes", "executable");
	for (size_t i = 0; i < r->nexes; i++) {
		const struct exe_total *e = &r->exes[i];

		fprintf(out, "%7.2f %9.3f %7.2f %10" PRIu64 " %9zu  %s%s\n",
			r->cpu_known > 0 ? 100.0 * e->cpu / r->cpu_known : 0.0,
			e->cpu, report_percent(r, e->samples), e->samples,
			e->processes, module_display(e->exe),
			e->cpu_unknown ? " (some cut short)" : "");
	}
}

void
report_text_processes(const struct report *r, FILE *out)
{
	size_t n = r->nprocs;

	if (!r->opts->processes || n == 0)
		return;
	if (r->opts->top > 0 && (size_t)r->opts->top < n)
		n = (size_t)r->opts->top;
	fprintf(out, "\nprocesses by CPU time:\n");
	fprintf(out, "%4s %9s %7s %10s %8s  %s\n", "#", "cpu s", "cpu %",
		"samples", "pid", "command");
	for (size_t i = 0; i < n; i++) {
		const struct proc *pr = &r->procs[r->by_cpu[i]];
		double cpu = profile_cpu_seconds(pr->p);

		if (cpu >= 0)
			fprintf(out, "%4zu %9.3f %7.2f ", i + 1, cpu,
				r->cpu_known > 0 ? 100.0 * cpu / r->cpu_known
						 : 0.0);
		else
			fprintf(out, "%4zu %9s %7s ", i + 1, "?", "?");
		fprintf(out, "%10" PRIu64 " %8d  %s\n", pr->samples,
			pr->p->hdr.pid, pr->command);
	}
	if (n < r->nprocs)
		fprintf(out,
			"... %zu more processes: --top N shows more, --top all every one\n",
			r->nprocs - n);
}

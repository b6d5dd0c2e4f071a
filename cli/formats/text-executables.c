/* SPDX-License-Identifier: MIT */
/* The text report's table by executable (the model: model/executables.c). */
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

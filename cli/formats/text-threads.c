/* SPDX-License-Identifier: MIT */
/* The text report's table of threads (--by-thread, --tid). */
#include <inttypes.h>
#include <stdio.h>

#include "text.h"

static void
print_thread(FILE *out, const struct profile_thread *t, uint64_t total)
{
	char tid[16] = "-";

	if (t->tid > 0)
		snprintf(tid, sizeof(tid), "%d", t->tid);
	fprintf(out, "  %8s  %-16s %7.2f %10" PRIu64 " %9.3f%s\n", tid,
		t->tid > 0 ? t->name : "[other threads]",
		total ? 100.0 * (double)t->samples / (double)total : 0.0,
		t->samples, (double)t->cpu_ns / 1e9,
		t->flags & PROFRUN_THREAD_MAIN ? "  main" : "");
}

static void
print_process_threads(FILE *out, const struct report *r,
		      const struct profile *p)
{
	fprintf(out, "threads of pid %d (%s):\n", p->hdr.pid,
		module_display(p->exe));
	if (!p->has_threads) {
		fprintf(out,
			"  not recorded (a profile of an older profrun, or merged)\n");
		return;
	}
	fprintf(out, "  %8s  %-16s %7s %10s %9s\n", "tid", "name", "%",
		"samples", "cpu s");
	for (size_t i = 0; i < p->nthreads; i++) {
		const struct profile_thread *t = &p->threads[i];

		if (r->opts->tid && t->tid != r->opts->tid)
			continue;
		print_thread(out, t, p->main + p->outside);
	}
}

void
report_text_threads(const struct report *r, FILE *out)
{
	if (!r->opts->by_thread)
		return;
	for (size_t i = 0; i < r->nprocs; i++) {
		fprintf(out, "\n");
		print_process_threads(out, r, r->procs[i].p);
	}
	if (r->opts->tid)
		fprintf(out,
			"the functions below are the whole process's: samples are counted per process\n");
}

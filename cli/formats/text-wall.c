/* SPDX-License-Identifier: MIT */
/*
 * The wall-clock part of the text report (profrun --wall): the clock
 * line, and each thread's blocked time by system call.
 */
#include <inttypes.h>
#include <stdio.h>

#include "text.h"

void
report_text_clock(const struct report *r, FILE *out)
{
	const struct report_wall *w = &r->wall;
	uint64_t on = r->total > w->blocked ? r->total - w->blocked : 0;

	if (!w->present)
		return;
	fprintf(out,
		"clock: wall (threads blocked in a system call sampled too, from /proc, without a signal): %.2f s off the CPU (%.1f%% of the samples), %.2f s on it\n",
		w->blocked_seconds, report_percent(r, w->blocked),
		report_seconds(r, on));
	if (w->lost > 0)
		fprintf(out,
			"  unlocated: %" PRIu64
			" blocked samples found no record (the wall region was full) and are in no row\n",
			w->lost);
}

/* "read", or "syscall 512" when the number has no name here. */
static const char *
call_name(int nr, char *buf, size_t len)
{
	const char *name = wall_syscall_name(nr);

	if (nr < 0)
		return "(no system call)";
	if (name)
		return name;
	snprintf(buf, len, "syscall %d", nr);
	return buf;
}

void
report_text_wall(const struct report *r, FILE *out)
{
	const struct report_wall *w = &r->wall;
	char buf[32];

	if (!w->present || w->nrows == 0)
		return;
	fprintf(out, "\nblocked time by thread and system call:\n");
	fprintf(out, "%8s %8s  %-16s %-24s %9s %7s\n", "pid", "tid", "thread",
		"system call", "seconds", "%");
	for (size_t i = 0; i < w->nrows; i++) {
		const struct wall_row *v = &w->rows[i];

		fprintf(out, "%8d %8d  %-16s %-24s %9.3f %7.2f\n",
			v->p->hdr.pid, v->tid, v->thread[0] ? v->thread : "-",
			call_name(v->nr, buf, sizeof(buf)), v->seconds,
			report_percent(r, v->samples));
	}
}

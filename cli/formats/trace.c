/* SPDX-License-Identifier: MIT */
/*
 * Chrome's trace event format (JSON object form), as Perfetto,
 * chrome://tracing and speedscope read it: a lane per thread of each
 * process (named by "process_name" and "thread_name" metadata events),
 * and in it a complete event ("ph":"X") per run of consecutive samples
 * of one function at one depth of the stack: with call stacks (profrun
 * -g) the runs nest into a flame chart over time; without, each run is
 * of the function the samples fell in.  A run ends at the next sample
 * that differs, or one sample's time after its last sample when the
 * thread ran no more (it was off the CPU, or ended).  Times are in whole
 * microseconds since the run's start: a slice that ends where the next
 * begins ends there exactly for a viewer that adds "ts" and "dur" in
 * floating point (with fractions the sum can pass the next start, and
 * speedscope then nests the next slice inside it); a run shorter than a
 * microsecond is left out.  A slice's category is its
 * function's module (viewers that show arguments take them for part of
 * the name).
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats.h"
#include "json.h"
#include "stack-graph.h"

#define MAX_DEPTH 4096

/* The open runs of a lane: the functions root first, and their start. */
struct runs {
	uint32_t fn[MAX_DEPTH];
	double start[MAX_DEPTH];
	size_t n;
	const struct tl_lane *lane;
	size_t events;
};

static void
put_meta(FILE *out, const char *what, int32_t pid, int32_t tid,
	 const char *name, bool first)
{
	fprintf(out,
		"%s\n{\"ph\":\"M\",\"name\":\"%s\",\"pid\":%" PRId32
		",\"tid\":%" PRId32 ",\"args\":{\"name\":",
		first ? "" : ",", what, pid, tid);
	json_put_string(out, name);
	fputs("}}", out);
}

/* Close the open runs of R down to depth KEEP, at END µs. */
static void
close_runs(FILE *out, const struct report_stacks *s, struct runs *r,
	   size_t keep, double end)
{
	while (r->n > keep) {
		const struct stack_fn *f = &s->fns[r->fn[--r->n]];

		if (end - r->start[r->n] < 1)
			continue;
		fputs(",\n{\"ph\":\"X\",\"name\":", out);
		json_put_string(out, f->name);
		fputs(",\"cat\":", out);
		json_put_string(out, f->module);
		fprintf(out,
			",\"pid\":%" PRId32 ",\"tid\":%" PRId32
			",\"ts\":%.0f,\"dur\":%.0f}",
			r->lane->pid, r->lane->tid, r->start[r->n],
			end - r->start[r->n]);
		r->events++;
	}
}

/* The sample X at AT µs: the runs it does not continue closed, its own
 * opened. */
static void
step(FILE *out, const struct report_stacks *s, struct runs *r,
     const struct stack_trace *t, double at)
{
	uint32_t fn[MAX_DEPTH];
	size_t first, i, n = 0, same = 0;

	stack_trace_span(s, t, &first, &i);
	while (i-- > first && n < MAX_DEPTH)
		fn[n++] = s->frames[i].fn;
	while (same < n && same < r->n && r->fn[same] == fn[same])
		same++;
	close_runs(out, s, r, same, at);
	for (; r->n < n; r->n++) {
		r->fn[r->n] = fn[r->n];
		r->start[r->n] = at;
	}
}

/* Lane L's runs.  A gap of more than twice a sample's weight between two
 * samples is time the thread did not run: its runs end one sample's
 * time after the last. */
static void
put_lane(FILE *out, const struct report_timeline *t, struct runs *r)
{
	const struct tl_lane *l = r->lane;
	double end = 0;

	r->n = 0;
	for (size_t i = 0; i < l->n; i++) {
		const struct tl_sample *x = &t->samples[l->first + i];
		double at = (double)((x->t_ns + 500) / 1000),
		       w = round(x->weight * 1e6);

		if (i > 0 && at > end + w)
			close_runs(out, &t->stacks, r, 0, end);
		step(out, &t->stacks, r, &t->stacks.traces[x->trace], at);
		end = at + w;
	}
	close_runs(out, &t->stacks, r, 0, end);
}

static int
report_trace(const struct report *r, FILE *out)
{
	const struct report_timeline *t = &r->timeline;
	struct runs *runs;

	if (timeline_usable(r, "trace"))
		return -1;
	runs = calloc(1, sizeof(*runs));
	if (runs == NULL) {
		cli_error("%s: out of memory", r->run->path);
		return -1;
	}
	fputs("{\"displayTimeUnit\":\"ms\",\"otherData\":{\"source\":", out);
	json_put_string(out, r->run->path);
	fputs(",\"exporter\":\"profrun\"},\"traceEvents\":[", out);
	for (size_t i = 0; i < t->nlanes; i++) {
		const struct tl_lane *l = &t->lanes[i];
		const char *exe = strrchr(l->p->exe, '/');

		if (i == 0 || t->lanes[i - 1].p != l->p) {
			put_meta(out, "process_name", l->pid, 0,
				 exe ? exe + 1 : l->p->exe, i == 0);
		}
		put_meta(out, "thread_name", l->pid, l->tid,
			 l->name[0] ? l->name : "thread", false);
		runs->lane = l;
		put_lane(out, t, runs);
	}
	fputs("\n]}\n", out);
	free(runs);
	return 0;
}

REPORT_FORMAT_TIMED(
	trace,
	"Chrome's trace events (Perfetto): each thread's samples over time",
	report_trace);

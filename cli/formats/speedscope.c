/* SPDX-License-Identifier: MIT */
/*
 * speedscope's file format (https://www.speedscope.app/file-format-schema.json):
 * one "sampled" profile per thread of each process, its samples in time
 * order, each weighted by the seconds it stands for (of CPU time, or with
 * --wall for a blocked thread's sample the wall sampler's interval); the
 * frames shared by all profiles (a function and its module).  With call stacks
 * (profrun -g) a sample is its whole stack, root first; without, the
 * function it fell in.  Written piece by piece: a timeline holds up to
 * 65536 samples a process.
 */
#include <inttypes.h>
#include <stdio.h>

#include "formats.h"
#include "json.h"
#include "stack-graph.h"

#define SCHEMA "https://www.speedscope.app/file-format-schema.json"

/* Trace T's functions, root first, as a JSON array. */
static void
put_stack(FILE *out, const struct report_stacks *s, const struct stack_trace *t)
{
	size_t first, i;

	stack_trace_span(s, t, &first, &i);
	fputc('[', out);
	for (size_t n = 0; i-- > first; n++)
		fprintf(out, "%s%" PRIu32, n ? "," : "", s->frames[i].fn);
	fputc(']', out);
}

static void
put_profile(FILE *out, const struct report_timeline *t, const struct tl_lane *l)
{
	char label[256];

	fputs("{\"type\":\"sampled\",\"name\":", out);
	json_put_string(out, timeline_lane_label(l, label, sizeof(label)));
	fprintf(out, ",\"unit\":\"seconds\",\"startValue\":0,\"endValue\":%.6f",
		l->seconds);
	fputs(",\"samples\":[", out);
	for (size_t i = 0; i < l->n; i++) {
		const struct tl_sample *x = &t->samples[l->first + i];

		if (i)
			fputc(',', out);
		put_stack(out, &t->stacks, &t->stacks.traces[x->trace]);
	}
	fputs("],\"weights\":[", out);
	for (size_t i = 0; i < l->n; i++)
		fprintf(out, "%s%.9g", i ? "," : "",
			t->samples[l->first + i].weight);
	fputs("]}", out);
}

static int
report_speedscope(const struct report *r, FILE *out)
{
	const struct report_timeline *t = &r->timeline;
	const struct report_stacks *s = &t->stacks;
	size_t shown = 0;

	if (timeline_usable(r, "speedscope"))
		return -1;
	fprintf(out, "{\"$schema\":\"%s\",\"exporter\":\"profrun\",", SCHEMA);
	fputs("\"name\":", out);
	json_put_string(out, r->run->path);
	fputs(",\"activeProfileIndex\":0,\"shared\":{\"frames\":[", out);
	for (size_t i = 0; i < s->nfns; i++) {
		fputs(i ? ",{\"name\":" : "{\"name\":", out);
		json_put_string(out, s->fns[i].name);
		fputs(",\"file\":", out);
		json_put_string(out, s->fns[i].module);
		fputc('}', out);
	}
	fputs("]},\"profiles\":[", out);
	for (size_t i = 0; i < t->nlanes; i++) {
		if (t->lanes[i].n == 0)
			continue;
		if (shown++)
			fputc(',', out);
		put_profile(out, t, &t->lanes[i]);
	}
	fputs("]}\n", out);
	return 0;
}

REPORT_FORMAT_TIMED(speedscope,
		    "speedscope's format: each thread's samples in time order",
		    report_speedscope);

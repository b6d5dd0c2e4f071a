/* SPDX-License-Identifier: MIT */
/*
 * The data of the flame graph page's timeline (html.h): the report's
 * samples in time order (cli/model/timeline.c), as "timeline": its own
 * "names", "modules" and "module_of" (as the page's), "traces" (each a
 * stack, root first, of function * 2 + inlined), "lanes" (each thread's
 * label and span of the samples), then per sample "t" (ms since the run's
 * start), "tr" (its trace) and "w" (the samples it stands for); "end" the
 * run's last ms.  A timeline of more than HTML_MAX_SAMPLES samples is
 * left out (null), as is one the report has not.
 */
#include <inttypes.h>
#include <stdio.h>

#include "html.h"
#include "stack-graph.h"

#define HTML_MAX_SAMPLES 400000

static void
write_traces(FILE *out, const struct report_stacks *s)
{
	fputs("\"traces\":[", out);
	for (size_t t = 0; t < s->ntraces; t++) {
		size_t first, i, n = 0;

		stack_trace_span(s, &s->traces[t], &first, &i);
		fputs(t ? ",[" : "[", out);
		while (i-- > first)
			fprintf(out, "%s%" PRIu32, n++ ? "," : "",
				2 * s->frames[i].fn + s->frames[i].inlined);
		fputc(']', out);
	}
	fputs("],\n", out);
}

static void
write_lanes(FILE *out, const struct report_timeline *t)
{
	char label[256];

	fputs("\"lanes\":[", out);
	for (size_t i = 0; i < t->nlanes; i++) {
		fputs(i ? ",{\"name\":" : "{\"name\":", out);
		html_json_string(out, timeline_lane_label(&t->lanes[i], label,
							  sizeof(label)));
		fprintf(out, ",\"first\":%zu,\"n\":%zu}", t->lanes[i].first,
			t->lanes[i].n);
	}
	fputs("],\n", out);
}

/* One number per sample, by FN. */
static void
write_column(FILE *out, const char *key, const struct report_timeline *t,
	     double (*fn)(const struct tl_sample *x, double per), double per,
	     int digits)
{
	fprintf(out, "\"%s\":[", key);
	for (size_t i = 0; i < t->nsamples; i++) {
		fputs(i ? (i % 16 ? "," : ",\n") : "", out);
		fprintf(out, "%.*g", digits, fn(&t->samples[i], per));
	}
	fputs("],\n", out);
}

static double
ms_of(const struct tl_sample *x, double per)
{
	(void)per;
	return (double)x->t_ns / 1e6;
}

static double
trace_of(const struct tl_sample *x, double per)
{
	(void)per;
	return x->trace;
}

static double
samples_of(const struct tl_sample *x, double per)
{
	return x->weight / per;
}

void
html_write_timeline(FILE *out, const struct report *r)
{
	const struct report_timeline *t = &r->timeline;
	double per = report_seconds(r, 1);

	fputs(",\n\"timeline\":", out);
	if (t->nsamples == 0 || t->nsamples > HTML_MAX_SAMPLES || per <= 0) {
		fputs("null", out);
		return;
	}
	fputc('{', out);
	html_write_names(out, &t->stacks);
	if (html_write_modules(out, &t->stacks) < 0) {
		fputs("\"lanes\":[]}", out); /* out of memory: no lanes */
		return;
	}
	write_traces(out, &t->stacks);
	write_lanes(out, t);
	write_column(out, "t", t, ms_of, per, 10);
	write_column(out, "tr", t, trace_of, per, 10);
	write_column(out, "w", t, samples_of, per, 4);
	fprintf(out, "\"end\":%.3f}", (double)t->end_ns / 1e6);
}

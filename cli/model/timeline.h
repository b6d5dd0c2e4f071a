/* SPDX-License-Identifier: MIT */
/*
 * The samples of a report in time order (timeline.c), for the views that
 * show time (speedscope, Chrome's trace events, the html page's
 * timeline): one lane per thread of each selected process, its samples
 * sorted by time, each naming a trace of its own set of stacks.  With
 * call stacks (profrun -g) a sample is a copied stack (the stacks are a
 * uniform sample of the samples: each is weighted by what it stands
 * for); without, it is a sample of the timeline and its trace is the
 * function it fell in (STACK_LEAF).
 */
#ifndef PROFRUN_CLI_TIMELINE_H
#define PROFRUN_CLI_TIMELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "stacks.h"

struct profile;
struct report;
struct symbolizer;

/* One sample: when, on which lane, which trace, and for how long. */
struct tl_sample {
	uint64_t t_ns;	/* since the run's start */
	uint32_t lane;	/* index into report_timeline.lanes */
	uint32_t trace; /* index into report_timeline.stacks.traces */
	double weight;	/* seconds it stands for: of CPU, or blocked */
	bool blocked;	/* a blocked thread's (--wall), not on the CPU */
};

/* One thread of one process. */
struct tl_lane {
	const struct profile *p;
	size_t proc; /* index of p in report.procs */
	int32_t pid;
	int32_t tid;	   /* 0 when not known */
	char name[16];	   /* the thread's name, "" when not known */
	size_t first, n;   /* its samples: samples[first .. first + n) */
	uint64_t start_ns; /* its process's start, since the run's */
	double seconds;	   /* the sum of its samples' weights */
};

struct report_timeline {
	bool present;		     /* some selected process kept times */
	bool with_stacks;	     /* traces are whole stacks (profrun -g) */
	struct report_stacks stacks; /* the traces the samples name */
	struct tl_sample *samples;   /* by lane, then time */
	size_t nsamples;
	struct tl_lane *lanes; /* by process in run order, then the main
				* thread, the others by id, the threads
				* without a record last */
	size_t nlanes;
	int64_t start_ns;  /* the run's start: its first process's */
	uint64_t end_ns;   /* its last sample's or process end, since */
	uint64_t left_out; /* samples the timelines had no room for */
	size_t untimed;	   /* selected processes without times */
};

/* Fill R->timeline from R's processes.  Returns 0, or -1 after printing
 * an error. */
int report_timeline_build(struct report *r, struct symbolizer *sz);

/* "EXE (pid N): NAME (tid T)" of lane L into BUF (LEN bytes), the
 * executable by its file name. */
const char *timeline_lane_label(const struct tl_lane *l, char *buf, size_t len);

/* Whether R's timeline has samples for the format WHAT: 0 (with a
 * warning when samples were left out of it), or -1 after an error. */
int timeline_usable(const struct report *r, const char *what);

void timeline_fini(struct report_timeline *t);

#endif /* PROFRUN_CLI_TIMELINE_H */

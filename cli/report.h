/* SPDX-License-Identifier: MIT */
/* The report model: selected processes, merged functions, totals. */
#ifndef PROFRUN_CLI_REPORT_H
#define PROFRUN_CLI_REPORT_H

#include <stdio.h>

#include "cli.h"
#include "profile.h"
#include "symbolize.h"

/* One executable of the run (executables.c). */
struct exe_total {
	const char *exe; /* the processes' path */
	size_t processes;
	size_t cpu_unknown; /* of them, cut short: CPU time unknown */
	double cpu;	    /* CPU seconds while profiled, of the others */
	uint64_t samples;
};

/* One process of the report. */
struct proc {
	const struct profile *p;
	struct func_list funcs; /* filled only with opts->by_process */
	struct func_list lines; /* likewise, and only with opts->lines */
};

struct report {
	const struct run *run;
	const struct report_opts *opts;
	struct proc *procs; /* selected members, in run order */
	size_t nprocs;
	struct func_list funcs; /* all selected processes, merged */
	struct func_list lines; /* with opts->lines: by source line and
				 * function (KEY_LINE), and by symbol too
				 * (KEY_LINE_CALLER) with lines_by_caller */

	uint64_t total, main, outside; /* total = main + outside */
	uint64_t kernel; /* of the functions' samples, taken right after a
			  * system call: time in the kernel */
	double cpu_seconds;	       /* -1 when unknown for any process */
	double cpu_known;	       /* of the processes that finished */
	double cpu_startup;   /* CPU used before profiling began (loader,
			       * constructors), all processes */
	double cpu_unsampled; /* of cpu_known, covered by no timer of ours */
	bool threaded;	      /* some process has thread records */
	double rate_cpu;	       /* of those, profiled to the end */
	size_t cut_short;	       /* processes without known CPU time */
	double rate_hz;		       /* effective, or armed when unknown */
	bool rate_measured;	       /* rate_hz comes from CPU time */
	double requested_hz;
	double armed_hz;
	bool clipped;	 /* requested rate above what the kernel delivers */
	double tick_hz;	 /* the kernel's tick, the cap on the rate; 0 unknown */
	size_t stopped;	 /* processes whose profiling stopped early */
	bool complete;	 /* every process ended cleanly */
	size_t idle;	 /* processes without a single sample */
	size_t nmodules; /* modules with samples among the entries shown */

	/* the outside samples split (all 0 with --main-only) */
	uint64_t in_libs, in_vdso; /* in shared libraries, in the vdso */
	uint64_t in_unknown;	   /* in no known module, or not recorded */
	struct module_total *mods; /* every module's samples, before
				    * --module filters the entries */
	size_t nmods;
	struct exe_total *exes; /* by CPU time, most first */
	size_t nexes;
};

/* Select, symbolize and merge RUN's members as OPTS asks.  Returns 0, or
 * -1 after printing an error. */
int report_build(struct report *r, const struct run *run,
		 const struct report_opts *opts);
void report_fini(struct report *r);

/* How OPTS asks for symbols to be found and named. */
struct sym_opts report_sym_opts(const struct report_opts *opts);

/* Seconds represented by SAMPLES at the report's rate. */
double report_seconds(const struct report *r, uint64_t samples);

/* Percent of all samples (inside and outside the executables). */
double report_percent(const struct report *r, uint64_t samples);

/* Why profiling of P stopped before the process ended; NULL when it did
 * not stop. */
const char *report_stop_why(const struct profile *p);

/* Why profiling of P stopped before the process ended, as one line
 * ("profile incomplete: ..."), into BUF; NULL when it did not stop. */
const char *report_stop_reason(const struct profile *p, char *buf, size_t len);

/* One-line descriptions of what went wrong in P (its state if WITH_STATE,
 * why profiling stopped early, lost counts); calls FN once per line. */
void report_problems(const struct profile *p, bool with_state,
		     void (*fn)(void *ctx, const char *line), void *ctx);

int report_text(const struct report *r, FILE *out);

/* Fill R->exes from R->procs.  Returns 0, or -1 when out of memory. */
int report_executables(struct report *r);

/* The table by executable, when the run holds several. */
void report_text_executables(const struct report *r, FILE *out);

/* With --by-thread: each process's threads (report-threads.c). */
void report_text_threads(const struct report *r, FILE *out);
int report_json(const struct report *r, FILE *out);

#endif /* PROFRUN_CLI_REPORT_H */

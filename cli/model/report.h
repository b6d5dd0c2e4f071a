/* SPDX-License-Identifier: MIT */
/* The report model: selected processes, merged functions, totals. */
#ifndef PROFRUN_CLI_REPORT_H
#define PROFRUN_CLI_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "cli.h"
#include "run.h"
#include "stacks.h"
#include "symbolize.h"
#include "timeline.h"
#include "wall.h"

/* One executable of the run (executables.c). */
struct exe_total {
	const char *exe; /* the processes' path */
	size_t processes;
	size_t cpu_unknown; /* of them, cut short: CPU time unknown */
	double cpu;	    /* CPU seconds while profiled, of the others */
	uint64_t samples;
};

/* What a report shows, and how (`report`'s options, and the report
 * printed after a run). */
struct report_opts {
	const char *format; /* "text" (default), "json", "csv", ... */
	int top;	    /* at most this many functions; 0 = all */
	bool force;	    /* report even when the binary's build-id changed */
	bool by_process;    /* one section per process */
	long pid;	    /* only this process; 0 = all */
	bool by_thread;	    /* a table of each process's threads */
	long tid;	    /* only the process of this thread; 0 = all */
	bool lines;	    /* also the profile by source line */
	bool inlines;	    /* split functions among their inlined callees */
	bool lines_by_caller;	 /* keep lines of different callers apart */
	bool no_demangle;	 /* raw symbol names */
	const char **debug_dirs; /* --debug-dir, in order */
	size_t ndebug_dirs;
	bool main_only;	    /* only the main executables, as profil sees */
	const char *module; /* only this module's entries; NULL = all */
	/* views of the call stacks, shown instead of the flat table */
	const char *callers; /* --callers FUNC: who calls FUNC; NULL = no */
	const char *callees; /* --callees FUNC: whom FUNC calls */
	bool call_graph;     /* --call-graph: gprof's call graph */
	bool sort_total;     /* --sort total: functions by inclusive samples,
			      * every function on a stack listed */
	bool processes;	     /* --processes: a table of the processes by
			      * CPU time */
	bool timeline;	     /* build the samples in time order */
	/* --time: only the samples of this window, in seconds after each
	 * process's start (or the run's, with time_from_run) */
	bool windowed;
	double time_lo, time_hi; /* time_hi < 0: to the end */
	bool time_from_run;
};

/* True when OPTS asks for a view of the call stacks. */
static inline bool
report_opts_calls(const struct report_opts *opts)
{
	return opts->callers || opts->callees || opts->call_graph;
}

/* One process of the report. */
struct proc {
	const struct profile *p;
	struct func_list funcs; /* filled only with opts->by_process */
	struct func_list lines; /* likewise, and only with opts->lines */
	char *command;		/* its command line, shortened to what tells
				 * it apart from its executable's others */
	uint64_t samples;	/* the program's: its own, less those in
				 * profrun's shim (overhead) */
	uint64_t overhead;	/* those in profrun's shim */
};

struct report {
	const struct run *run;
	const struct report_opts *opts;
	struct proc *procs; /* selected members, in run order */
	size_t nprocs;
	size_t *by_cpu; /* indices of procs by CPU time, highest first */
	struct func_list funcs; /* all selected processes, merged */
	struct func_list lines; /* with opts->lines: by source line and
				 * function (KEY_LINE), and by symbol too
				 * (KEY_LINE_CALLER) with lines_by_caller */

	uint64_t total, main, outside; /* total = main + outside */
	/* how the CPU samples came (format.h): in SIGNALS signals, at most
	 * BURST_MAX by one; a share varies as with TOTAL / DEFF samples
	 * taken one by one (DEFF = 1 when not known: BURSTS_KNOWN false) */
	uint64_t signals;
	uint32_t burst_max;
	double deff;
	bool bursts_known;
	uint64_t overhead;     /* in profrun's own shim: the cost of profiling,
			    * left out of the samples above and the rows */
	uint64_t kernel;       /* of the functions' samples, taken right after a
			  * system call: time in the kernel */
	double cpu_seconds;    /* -1 when unknown for any process */
	double cpu_known;      /* of the processes that finished */
	double cpu_startup;    /* CPU used before profiling began (loader,
			       * constructors), all processes */
	double cpu_unsampled;  /* of cpu_known, covered by no timer of ours */
	double thread_startup; /* of cpu_unsampled, threads' start-up before
				* their timers (measured) */
	uint64_t threads_started; /* threads started through our hooks */
	uint64_t clone_threads;	  /* threads started by clone() itself */
	double cpu_paused;  /* of cpu_known, used while sampling was paused;
			       * the rest was profiled */
	bool paused_any;    /* some process was paused, or set up to be */
	bool threaded;	    /* some process has thread records */
	double rate_cpu;    /* of those, profiled to the end */
	size_t cut_short;   /* processes without known CPU time */
	double rate_hz;	    /* effective, or armed when unknown */
	bool rate_measured; /* rate_hz comes from CPU time */
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
	uint64_t in_jit;	   /* in code a runtime compiled, named */
	uint64_t in_jit_no_map;	   /* in such code that nothing names */
	char *jit_problem; /* why a copy of JIT names was left out, or NULL */
	struct module_total *mods; /* every module's samples, before
				    * --module filters the entries */
	size_t nmods;
	struct exe_total *exes; /* by CPU time, most first */
	size_t nexes;

	struct report_stacks stacks;	 /* call stacks (profrun -g) */
	struct report_timeline timeline; /* with opts->timeline */
	struct report_wall wall;	 /* wall-clock profiles (--wall) */
};

/* Select, symbolize and merge RUN's members as OPTS asks.  Returns 0, or
 * -1 after printing an error. */
int report_build(struct report *r, const struct run *run,
		 const struct report_opts *opts);
void report_fini(struct report *r);

/* How OPTS asks for symbols to be found and named. */
struct sym_opts report_sym_opts(const struct report_opts *opts);

/* Why R's unsampled CPU time was not sampled: "thread_edges" (starting
 * and ending threads, outside their timers), "clone_threads" (threads
 * the program started with clone()) or "uncovered_threads" (threads no
 * hook of ours saw start). */
const char *report_unsampled_cause(const struct report *r);

/* Seconds represented by SAMPLES at the report's rate. */
double report_seconds(const struct report *r, uint64_t samples);

/* Seconds represented by SAMPLES of which OFFCPU are blocked samples of a
 * wall profile: those at the wall sampler's interval, the rest at the
 * report's rate (which is of samples per CPU second). */
double report_seconds_split(const struct report *r, uint64_t samples,
			    uint64_t offcpu);

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

/* Unwind, name and merge the stacks of R's processes into R->stacks, and
 * set each function's inclusive count.  Returns 0, or -1 after printing an
 * error.  (stacks-build.c) */
int report_stacks_build(struct report *r, struct symbolizer *sz);

/* Sort the entries of L from index FIRST on by inclusive samples (most
 * first), then samples, name and module.  (stacks-build.c) */
void report_sort_by_inclusive(struct func_list *l, size_t first);

/* The entries of L a table shows (before --top): every one with --sort
 * total, else those with samples of their own (the functions on stacks
 * without any come last, for JSON and CSV). */
size_t report_rows(const struct report *r, const struct func_list *l);

/* Whether the rows of L (report_rows) are of several modules with samples
 * (with --sort total: of several modules): a table's module column. */
bool report_modules(const struct report *r, const struct func_list *l);

/* Rank R's processes by CPU time into R->by_cpu and shorten their
 * command lines.  Returns 0, or -1 when out of memory.  (processes.c) */
int report_processes(struct report *r);

/* Fill R->exes from R->procs.  Returns 0, or -1 when out of memory.
 * (executables.c) */
int report_executables(struct report *r);

/* Samples in bursts that make the shares this much noisier (their
 * variance) are said in the reports read by people. */
#define REPORT_BURSTS_NOTED 2.0

/* R's effective samples: as many taken one by one as vary as much as its
 * own (its total when they did not come in bursts, or that is not known). */
uint64_t report_effective(const struct report *r);

/* Whether R's samples came in bursts that the reports should say. */
bool report_bursts_noted(const struct report *r);

#endif /* PROFRUN_CLI_REPORT_H */

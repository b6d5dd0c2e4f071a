/* SPDX-License-Identifier: MIT */
/* The text report: a short header, then a flat profile table. */
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "calls.h"
#include "formats.h"
#include "text.h"

#define NAME_WIDTH_MAX	 40
#define MODULE_WIDTH_MAX 20

/* Effective rate below this share of the armed rate is worth a line. */
#define RATE_SHORTFALL 0.75
/* ... but only with enough CPU time for the shortfall to mean something. */
#define RATE_MIN_CPU 0.2

struct line_ctx {
	FILE *out;
	const char *prefix;
};

static void
print_problem(void *ctx, const char *line)
{
	struct line_ctx *c = ctx;

	fprintf(c->out, "%s%s\n", c->prefix, line);
}

static void
print_process_line(FILE *out, const struct profile *p, const char *lead)
{
	fprintf(out, "%s%s (pid %d, %s", lead, p->exe[0] ? p->exe : "?",
		p->hdr.pid, profile_state_text(p));
	if (p->hdr.state == PROFRUN_STATE_EXITED && p->hdr.exit_code >= 0)
		fprintf(out, ", exit %d", p->hdr.exit_code);
	else if (profile_raw_exit(p) >= 0)
		fprintf(out, ", exit %d", profile_raw_exit(p));
	else if (profile_end_signal(p) > 0)
		fprintf(out, ", signal %d", profile_end_signal(p));
	fprintf(out, ")\n");
}

static void
print_run_line(FILE *out, const struct report *r)
{
	size_t i, ok = 0, raw = 0;

	for (i = 0; i < r->nprocs; i++) {
		ok += profile_complete(r->procs[i].p);
		raw += profile_raw_exit(r->procs[i].p) >= 0;
	}
	fprintf(out, "profrun: %s: %zu processes (%zu complete", r->run->path,
		r->nprocs, ok);
	if (raw > 0)
		fprintf(out, ", %zu exited not through libc", raw);
	if (ok + raw < r->nprocs)
		fprintf(out, ", %zu cut short", r->nprocs - ok - raw);
	fprintf(out, ")");
	if (r->idle > 0)
		fprintf(out, ", %zu without samples", r->idle);
	fprintf(out, "\n");
}

/* Shown by name in the header; the JSON report lists them all. */
#define UNREADABLE_SHOWN 10

/* The members of the run left out: the report is partial. */
static void
print_unreadable(FILE *out, const struct run *run)
{
	const struct run_unreadable *u;
	size_t i, shown = run->nunreadable < UNREADABLE_SHOWN
				  ? run->nunreadable
				  : UNREADABLE_SHOWN;

	if (run->skipped == 0)
		return;
	fprintf(out,
		"  unreadable: %zu member%s left out, the report is partial\n",
		run->skipped, run->skipped == 1 ? "" : "s");
	for (i = 0; i < shown; i++) {
		u = &run->unreadable[i];
		fprintf(out, "    %s: %s\n", u->path ? u->path : "?",
			u->reason ? u->reason : "?");
	}
	if (run->skipped > shown)
		fprintf(out, "    and %zu more\n", run->skipped - shown);
}

/* Shown by pid in the header; the JSON report lists them all. */
#define MISSING_SHOWN 10

/* The processes of the run that left no member: the report is partial. */
static void
print_missing(FILE *out, const struct run *run)
{
	size_t shown =
		run->nmissing < MISSING_SHOWN ? run->nmissing : MISSING_SHOWN;

	if (run->nmissing == 0)
		return;
	fprintf(out,
		"  missing: %zu process%s left no profile (the disk full, the run directory out of its reach, or an environment without the shim), the report is partial\n",
		run->nmissing, run->nmissing == 1 ? "" : "es");
	for (size_t i = 0; i < shown; i++) {
		const struct run_missing *m = &run->missing[i];

		if (m->kind == PROFRUN_CHILD_EXEC)
			fprintf(out,
				"    pid %d (the image it exec'd; parent pid %d)\n",
				m->pid, m->ppid);
		else
			fprintf(out, "    pid %d (%s by pid %d%s%s)\n", m->pid,
				run_child_how(m->kind), m->ppid,
				m->path ? ": " : "", m->path ? m->path : "");
	}
	if (run->nmissing > shown)
		fprintf(out, "    and %zu more\n", run->nmissing - shown);
}

/* The images the run started that could not be profiled, by path. */
static void
print_not_profiled(FILE *out, const struct run *run)
{
	size_t total = 0;

	if (run->nnot_profiled == 0)
		return;
	for (size_t i = 0; i < run->nnot_profiled; i++)
		total += run->not_profiled[i].count;
	fprintf(out, "  not profiled: %zu process%s:", total,
		total == 1 ? "" : "es");
	for (size_t i = 0; i < run->nnot_profiled; i++) {
		const struct run_not_profiled *n = &run->not_profiled[i];

		fprintf(out, "%s %s (%s%s)", i ? "," : "", n->path,
			n->script ? "its interpreter: " : "",
			run_child_reason(n->reason));
		if (n->count > 1)
			fprintf(out, " x%zu", n->count);
	}
	fprintf(out, "\n");
}

/* What the run holds besides its members' own lines. */
static void
print_run_members(FILE *out, const struct run *run)
{
	print_unreadable(out, run);
	print_missing(out, run);
	print_not_profiled(out, run);
	if (run->children_unrecorded > 0)
		fprintf(out,
			"  %llu more children were only counted (past the records a process keeps): not checked\n",
			(unsigned long long)run->children_unrecorded);
}

/* First lines: who ran and what went wrong. */
static void
print_identity(FILE *out, const struct report *r)
{
	struct line_ctx c = {out, "  "};
	char prefix[64];
	size_t i;

	if (r->nprocs == 1) {
		print_process_line(out, r->procs[0].p, "profrun: ");
		report_problems(r->procs[0].p, false, print_problem, &c);
		print_run_members(out, r->run);
		return;
	}
	print_run_line(out, r);
	for (i = 0; i < r->nprocs; i++) {
		const struct profile *p = r->procs[i].p;

		snprintf(prefix, sizeof(prefix), "  pid %d: ", p->hdr.pid);
		c.prefix = prefix;
		/* how a process without samples ended is in the run line's
		 * counts already: a line each would bury the rest */
		report_problems(p, p->main + p->outside > 0, print_problem, &c);
	}
	print_run_members(out, r->run);
}

static const char *
main_name(const struct report *r)
{
	const char *exe = r->procs[0].p->exe;
	size_t i;

	for (i = 1; i < r->nprocs; i++)
		if (strcmp(r->procs[i].p->exe, exe) != 0)
			return "the executables";
	return module_display(exe);
}

/* The outside samples by where they fell. */
static void
print_split(FILE *out, const struct report *r)
{
	const struct {
		uint64_t n;
		const char *what;
	} part[] = {
		{r->in_libs, "in libraries"},
		{r->in_vdso, "in the vdso"},
		{r->in_jit, "in JIT code"},
		{r->in_jit_no_map, "in JIT code without a map"},
		{r->in_unknown, "unknown"},
	};

	for (size_t i = 0; i < sizeof(part) / sizeof(part[0]); i++)
		if (part[i].n > 0)
			fprintf(out, ", %" PRIu64 " %s (%.1f%%)", part[i].n,
				part[i].what, report_percent(r, part[i].n));
}

/* How to have JIT code named, when some is not; why a copy of names was
 * left out. */
static void
print_jit_hint(FILE *out, const struct report *r)
{
	if (r->in_jit_no_map > 0)
		fprintf(out,
			"JIT: %.1f%% of the samples are in code a runtime compiled without a map naming it (start node with --perf-basic-prof or --perf-prof, python 3.12+ with -X perf, java with -XX:+UnlockDiagnosticVMOptions -XX:+DumpPerfMapAtExit)\n",
			report_percent(r, r->in_jit_no_map));
	if (r->jit_problem)
		fprintf(out, "JIT: names left out: %s\n", r->jit_problem);
}

static void
print_samples(FILE *out, const struct report *r)
{
	const char *name = main_name(r);

	fprintf(out, "samples: %" PRIu64 " total, %" PRIu64 " in %s (%.1f%%)",
		r->total, r->main, name, report_percent(r, r->main));
	if (r->outside > 0 && r->opts->main_only)
		fprintf(out,
			", %" PRIu64
			" outside (%.1f%%: shared libraries, vdso, kernel)",
			r->outside, report_percent(r, r->outside));
	else if (r->outside > 0)
		print_split(out, r);
	fprintf(out, "\n");
	print_jit_hint(out, r);
	report_text_clock(r, out);
	if (r->kernel > 0)
		fprintf(out,
			"kernel: %.1f%% of the samples were in system calls\n",
			report_percent(r, r->kernel));
	if (r->overhead > 0)
		fprintf(out,
			"overhead: %" PRIu64
			" samples (%.1f%% of all) in profrun's own code, left out of the rows\n",
			r->overhead,
			100.0 * (double)r->overhead /
				(double)(r->total + r->overhead));
}

static void
print_rate_line(FILE *out, const struct report *r)
{
	char clip[80] = "", end[64] = "the end";

	if (r->opts->windowed) {
		if (r->opts->time_hi >= 0)
			snprintf(end, sizeof(end), "%.3f s", r->opts->time_hi);
		fprintf(out,
			"window: the samples from %.3f s to %s after %s start\n",
			r->opts->time_lo, end,
			r->opts->time_from_run ? "the run's"
					       : "each process's");
	}
	if (r->clipped && r->tick_hz > 0)
		snprintf(clip, sizeof(clip),
			 ", above the kernel's %.0f Hz tick", r->tick_hz);
	else if (r->clipped)
		snprintf(clip, sizeof(clip),
			 ", above what the kernel delivers");
	if (!r->rate_measured) {
		fprintf(out,
			"rate: %s; seconds assume the armed %.1f Hz (requested %.0f Hz%s)\n",
			r->cut_short ? "CPU time unknown (cut short)"
			: r->stopped == 0 && r->paused_any
				? "not measured (paused throughout)"
				: "not measured (profiling stopped early)",
			r->armed_hz, r->requested_hz, clip);
		return;
	}
	fprintf(out, "rate: %.1f Hz effective (requested %.0f Hz%s), ",
		r->rate_hz, r->requested_hz, clip);
	if (r->cut_short == 0)
		fprintf(out, "CPU time %.2f s", r->cpu_seconds);
	else
		fprintf(out,
			"CPU time %.2f s in the %zu processes that finished (unknown for %zu cut short)",
			r->cpu_known, r->nprocs - r->cut_short, r->cut_short);
	if (r->cpu_startup >= 0.005)
		fprintf(out,
			" (+%.2f s before profiling began: loading, relocation, constructors)",
			r->cpu_startup);
	fprintf(out, "\n");
	if (r->paused_any)
		fprintf(out,
			"  paused: %.2f s profiled, %.2f s paused (the rate and the seconds below are over the profiled CPU time only)\n",
			r->cpu_known - r->cpu_paused, r->cpu_paused);
}

/* CPU time no timer of ours covered, when it is more than clock noise,
 * and why. */
static void
print_unsampled(FILE *out, const struct report *r, double cap)
{
	double floor = cap > 0 ? 2.0 / cap : 0.02;
	const char *cause = report_unsampled_cause(r);

	if (r->cpu_unsampled <= floor ||
	    r->cpu_unsampled <= 0.02 * r->cpu_known)
		return;
	fprintf(out, "  unsampled: %.2f s of the CPU time (%.0f%%) ",
		r->cpu_unsampled, 100.0 * r->cpu_unsampled / r->cpu_known);
	if (strcmp(cause, "thread_edges") == 0)
		fprintf(out,
			"went to starting and ending %" PRIu64
			" thread%s, outside their timers (%.3f s of it before the timers began)",
			r->threads_started, r->threads_started == 1 ? "" : "s",
			r->thread_startup);
	else if (strcmp(cause, "clone_threads") == 0)
		fprintf(out,
			"ran in %" PRIu64
			" thread%s the program started with clone() itself, which no timer of ours covers",
			r->clone_threads, r->clone_threads == 1 ? "" : "s");
	else
		fprintf(out,
			"ran in threads no timer of ours covered (not started by pthread_create or thrd_create: the C library's own threads for SIGEV_THREAD timers and aio, a raw clone system call), or whose timer could not be made");
	fprintf(out, ": no row below stands for it\n");
}

/* Processes that used less than two ticks' worth of CPU time. */
static size_t
short_processes(const struct report *r, double hz)
{
	size_t n = 0;

	for (size_t i = 0; i < r->nprocs; i++) {
		double c = profile_cpu_seconds(r->procs[i].p);

		n += c >= 0 && c * hz < 2;
	}
	return n;
}

/* Rate line, then one line for each significant shortfall.  The rate to
 * expect is the armed one, or the kernel's tick when that is lower (and
 * known): what is missing beyond that was lost, mostly to profiling
 * signals of concurrent threads coalescing (README, Limits). */
static void
print_rate(FILE *out, const struct report *r)
{
	double expected, got, cap = r->armed_hz;

	print_rate_line(out, r);
	if (report_bursts_noted(r))
		fprintf(out,
			"  samples came in bursts: %" PRIu64
			" samples in %" PRIu64 " signals, up to %" PRIu32
			" at once (a signal that comes late, after a long system call or on a loaded machine, brings every interval since at one PC); shares vary as with %" PRIu64
			" samples taken one by one\n",
			r->total + r->overhead, r->signals, r->burst_max,
			report_effective(r));
	if (r->armed_hz > 0 && r->armed_hz < r->requested_hz * 0.9 &&
	    !(r->clipped && r->tick_hz > 0 && r->armed_hz >= r->tick_hz * 0.99))
		fprintf(out,
			"  the kernel armed the timer at %.1f Hz, below the requested %.0f Hz\n",
			r->armed_hz, r->requested_hz);
	if (r->tick_hz > 0 && r->tick_hz < cap)
		cap = r->tick_hz;
	else if (r->clipped)
		return; /* capped, but by how much is not known */
	if (r->rate_measured)
		print_unsampled(out, r, cap);
	if (!r->rate_measured || r->rate_cpu < RATE_MIN_CPU || cap <= 0)
		return;
	expected = r->rate_cpu * cap;
	got = r->rate_hz * r->rate_cpu;
	if (got >= expected * RATE_SHORTFALL)
		return;
	if (r->threaded)
		fprintf(out,
			"  shortfall: %.0f samples, only %.0f%% of the %.0f expected from the sampled threads' CPU time x %.0f Hz: CPU timers fire on the kernel's tick, and a thread or process that runs less than a tick between two ticks is missed (%zu of %zu processes used less than 2 ticks of CPU); the seconds are scaled to the rate measured%s\n",
			got, 100.0 * got / expected, expected, cap,
			short_processes(r, cap), r->nprocs,
			r->nexes > 1
				? ", the table by executable has each program's exact CPU time"
				: "");
	else
		fprintf(out,
			"  shortfall: %.0f samples, only %.0f%% of the %.0f expected from CPU time x %.0f Hz: recorded with one process timer, whose signals coalesce under concurrent threads, miss threads that block SIGPROF and processes shorter than one interval; shares stay fair, the seconds are scaled to the rate measured\n",
			got, 100.0 * got / expected, expected, cap);
}

/* ---------------------------------------------------------------- table */

/* Bytes of a cell's name: room enough for the longest name shown. */
#define CELL_MAX 4096

/* The width of the module column: its longest name, elided beyond
 * MODULE_WIDTH_MAX; 0 without one. */
static int
module_width(const struct func_list *l, size_t rows, bool modules)
{
	size_t i, w = 6, len;

	if (!modules)
		return 0;
	for (i = 0; i < rows; i++) {
		len = strlen(module_display(l->v[i].module));
		if (len > w)
			w = len;
	}
	return w > MODULE_WIDTH_MAX ? MODULE_WIDTH_MAX : (int)w;
}

static int
name_width(const struct func_list *l, size_t rows, bool modules)
{
	char buf[CELL_MAX];
	size_t i, w = 8, len;

	for (i = 0; i < rows; i++) {
		len = strlen(
			cell_function(&l->v[i], modules, buf, sizeof(buf)));
		if (len > w)
			w = len;
	}
	return w > NAME_WIDTH_MAX ? NAME_WIDTH_MAX : (int)w;
}

static const char *
base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* The columns every row starts with; "kernel" (the share of the row's
 * samples taken in system calls) when the report has any. */
/* Whether the table's rows split their share on and off the CPU: the
 * merged functions of a wall profile. */
static bool
split_columns(const struct report *r)
{
	return r->wall.present && !r->opts->by_process;
}

static void
print_counts(FILE *out, const struct report *r, const struct func *f,
	     uint64_t total, int modw, bool inclusive, bool split)
{
	fprintf(out, "%7.2f ",
		total ? 100.0 * (double)f->samples / (double)total : 0);
	if (inclusive)
		fprintf(out, "%7.2f ",
			total ? 100.0 * (double)f->inclusive / (double)total
			      : 0);
	else if (r->stacks.present)
		fprintf(out, "%7s ", "");
	fprintf(out, "%10" PRIu64 " %9.3f  ", f->samples,
		report_seconds_split(r, f->samples, f->offcpu));
	if (r->kernel > 0 && f->kernel > 0)
		fprintf(out, "%5.0f%%  ",
			100.0 * (double)f->kernel / (double)f->samples);
	else if (r->kernel > 0)
		fprintf(out, "%6s  ", "");
	if (split_columns(r) && split && total)
		fprintf(out, "%7.2f %7.2f  ",
			100.0 * (double)(f->samples - f->offcpu) /
				(double)total,
			100.0 * (double)f->offcpu / (double)total);
	else if (split_columns(r))
		fprintf(out, "%7s %7s  ", "", "");
	if (modw > 0) {
		char buf[MODULE_WIDTH_MAX + 1];

		fprintf(out, "%-*s ", modw,
			cell_elide(module_display(f->module), (size_t)modw, buf,
				   sizeof(buf)));
	}
}

static void
print_row(FILE *out, const struct report *r, const struct func *f,
	  uint64_t total, int modw, int width)
{
	char buf[CELL_MAX], cut[NAME_WIDTH_MAX + 1];
	const char *name = cell_function(f, modw > 0, buf, sizeof(buf));

	/* per process, functions have no inclusive count: blank */
	print_counts(out, r, f, total, modw,
		     r->stacks.present && f->inclusive > 0, true);
	/* a name followed by its place is cut to its column */
	if (f->file)
		name = cell_elide(name, (size_t)width, cut, sizeof(cut));
	fprintf(out, "%-*s", f->file ? width : 0, name);
	if (f->file)
		fprintf(out, "  %s:%d", base_name(f->file), f->line);
	fprintf(out, "\n");
}

/* The "file:line" column: the file's base name. */
static int
place_width(const struct func_list *l, size_t rows, bool modules)
{
	size_t i, w = 9;
	int len;

	(void)modules;
	for (i = 0; i < rows; i++) {
		len = l->v[i].file
			      ? snprintf(NULL, 0, "%s:%d",
					 base_name(l->v[i].file), l->v[i].line)
			      : 1;
		if ((size_t)len > w)
			w = (size_t)len;
	}
	return w > NAME_WIDTH_MAX ? NAME_WIDTH_MAX : (int)w;
}

static void
print_line_row(FILE *out, const struct report *r, const struct func *f,
	       uint64_t total, int modw, int width)
{
	char place[PATH_MAX + 16], cut[NAME_WIDTH_MAX + 1];

	print_counts(out, r, f, total, modw, false, false);
	if (f->file)
		snprintf(place, sizeof(place), "%s:%d", base_name(f->file),
			 f->line);
	else
		snprintf(place, sizeof(place), "?");
	fprintf(out, "%-*s  %s\n", width,
		cell_elide(place, (size_t)width, cut, sizeof(cut)), f->name);
}

/* How a table shows its entries: functions, or source lines. */
struct table_kind {
	const char *header;	    /* line before the table, or "" */
	const char *first, *second; /* column titles after the counts */
	const char *what;	    /* "functions", "lines" */
	int (*width)(const struct func_list *l, size_t rows, bool modules);
	void (*row)(FILE *out, const struct report *r, const struct func *f,
		    uint64_t total, int modw, int width);
};

static const struct table_kind function_table = {
	"", "function", "file:line", "functions", name_width, print_row,
};

static const struct table_kind line_table = {
	"\nby source line:\n", "file:line",    "function", "lines",
	place_width,	       print_line_row,
};

static void
print_table(FILE *out, const struct report *r, const struct func_list *l,
	    uint64_t total, const struct table_kind *k)
{
	size_t listed = report_rows(r, l), rows = listed, i;
	bool modules = report_modules(r, l);
	int width, modw;

	if (listed == 0)
		return;
	if (r->opts->top > 0 && (size_t)r->opts->top < rows)
		rows = (size_t)r->opts->top;
	width = k->width(l, rows, modules);
	modw = module_width(l, rows, modules);
	fprintf(out, "%s%7s ", k->header, "%");
	if (r->stacks.present)
		fprintf(out, "%7s ", k->row == print_row ? "total" : "");
	fprintf(out, "%10s %9s  ", "samples", "seconds");
	if (r->kernel > 0)
		fprintf(out, "%6s  ", "kernel");
	if (split_columns(r))
		fprintf(out, "%7s %7s  ", "on-CPU", "off-CPU");
	if (modw > 0)
		fprintf(out, "%-*s ", modw, "module");
	fprintf(out, "%-*s  %s\n", width, k->first, k->second);
	for (i = 0; i < rows; i++)
		k->row(out, r, &l->v[i], total, modw, width);
	if (rows < listed)
		fprintf(out,
			"... %zu more %s (%" PRIu64
			" samples): --top N shows more, --top all every one\n",
			listed - rows, k->what, func_list_samples(l, rows));
}

/* Why there is not a single sample, as far as the figures tell. */
static void
print_no_samples(FILE *out, const struct report *r, const struct proc *pr)
{
	double cpu = pr ? profile_cpu_seconds(pr->p) : r->cpu_seconds;
	double unsampled =
		pr ? profile_unsampled_seconds(pr->p) : r->cpu_unsampled;
	double interval = r->armed_hz > 0 ? 1.0 / r->armed_hz : 0;

	double paused = pr ? profile_paused_seconds(pr->p) : r->cpu_paused;

	if (cpu < 0)
		fprintf(out,
			"no samples were recorded (CPU time unknown: cut short)\n");
	else if (paused > 0 && cpu - paused <= interval)
		fprintf(out,
			"no samples were recorded: sampling was paused for %.2f s of the %.2f s of CPU time\n",
			paused, cpu);
	else if (unsampled > interval && unsampled >= 0.5 * cpu)
		fprintf(out,
			"no samples were recorded: %.2f s of CPU time ran where no timer of ours was\n",
			unsampled);
	else
		fprintf(out,
			"no samples were recorded (%.3f s of CPU time at %.0f Hz: %.2f samples expected)\n",
			cpu, r->armed_hz, cpu * r->armed_hz);
}

static void
print_functions(FILE *out, const struct report *r, const struct proc *pr,
		uint64_t main, uint64_t outside, bool stopped)
{
	const struct func_list *l = pr ? &pr->funcs : &r->funcs;

	if (l->n > 0) {
		print_table(out, r, l, main + outside, &function_table);
		print_table(out, r, pr ? &pr->lines : &r->lines, main + outside,
			    &line_table);
	} else if (outside > 0)
		fprintf(out,
			"no samples in the executable's own code (all %" PRIu64
			" were outside it)\n",
			outside);
	else if (main == 0 && stopped)
		fprintf(out,
			"no samples were recorded before profiling stopped\n");
	else if (main == 0)
		print_no_samples(out, r, pr);
}

/* "CPU 1.23 s (12.3%)" of P into BUF, or "CPU time unknown". */
static const char *
cpu_text(const struct report *r, const struct profile *p, char *buf, size_t len)
{
	double cpu = profile_cpu_seconds(p);

	if (cpu < 0)
		return "CPU time unknown";
	snprintf(buf, len, "%.2f s CPU (%.1f%%)", cpu,
		 r->cpu_known > 0 ? 100.0 * cpu / r->cpu_known : 0.0);
	return buf;
}

static void
print_process(FILE *out, const struct report *r, const struct proc *pr,
	      size_t rank)
{
	const struct profile *p = pr->p;
	struct line_ctx c = {out, "  "};
	char cpu[64];

	fprintf(out, "\n== #%zu %s: %s (pid %d, %s", rank,
		p->exe[0] ? p->exe : "?", cpu_text(r, p, cpu, sizeof(cpu)),
		p->hdr.pid, profile_state_text(p));
	if (p->hdr.state == PROFRUN_STATE_EXITED && p->hdr.exit_code >= 0)
		fprintf(out, ", exit %d", p->hdr.exit_code);
	/* what tells it apart; the whole command line is in the JSON */
	fprintf(out, ")\ncommand: %s\n", pr->command);
	report_problems(p, false, print_problem, &c);
	if (p->main + p->outside == 0) {
		fprintf(out, "samples: none\n");
		return;
	}
	fprintf(out, "samples: %" PRIu64 " in %s, %" PRIu64 " outside\n",
		p->main, module_display(p->exe), p->outside);
	print_functions(out, r, pr, p->main, p->outside,
			(p->hdr.flags & PROFRUN_F_STOPPED) != 0);
}

/* How many samples have a stack, how many were not kept by design (the
 * reservoir) or could not be copied, and how many kept ones failed to
 * unwind to the thread's start. */
static void
print_stacks(FILE *out, const struct report *r)
{
	const struct report_stacks *s = &r->stacks;
	uint64_t failed = s->copy_failed + s->truncated;

	if (!s->present)
		return;
	fprintf(out, "stacks: %" PRIu64 " of %" PRIu64 " samples kept",
		s->stacks, s->samples);
	if (s->not_kept > 0)
		fprintf(out,
			", %" PRIu64
			" left out by design (a uniform sample is kept: --stack-samples)",
			s->not_kept);
	fprintf(out, "; %" PRIu64 " failed to unwind", failed);
	if (s->stacks > 0)
		fprintf(out, " (%.1f%%)",
			100.0 * (double)failed /
				(double)(s->stacks + s->copy_failed -
					 s->uncopied));
	fprintf(out, "\n");
	if (s->truncated > 0)
		fprintf(out,
			"  truncated: %" PRIu64
			" stacks end before the thread's start (a larger --stack-size may reach it)\n",
			s->truncated);
	if (s->jit_stopped > 0)
		fprintf(out,
			"  in JIT code: %" PRIu64
			" of them stop in code a runtime compiled, where unwinding cannot go on (its code keeps no frame pointer, and no unwinding record was given for it)\n",
			s->jit_stopped);
	if (s->copy_failed > 0)
		fprintf(out,
			"  unreadable: %" PRIu64
			" stacks could not be copied when sampled\n",
			s->copy_failed);
}

static int
report_text(const struct report *r, FILE *out)
{
	size_t i;

	print_identity(out, r);
	print_samples(out, r);
	print_rate(out, r);
	print_stacks(out, r);
	report_text_executables(r, out);
	report_text_processes(r, out);
	report_text_threads(r, out);
	report_text_wall(r, out);
	if (report_opts_calls(r->opts)) {
		report_text_calls(r, out);
		return 0;
	}
	if (r->opts->by_process) {
		/* by CPU time, highest first: the slowest compile on top */
		for (i = 0; i < r->nprocs; i++) {
			const struct proc *pr = &r->procs[r->by_cpu[i]];

			if (r->nprocs == 1 || pr->samples > 0)
				print_process(out, r, pr, i + 1);
		}
		if (r->nprocs > 1 && r->idle > 0)
			fprintf(out,
				"\n%zu process%s without samples not shown (--format json lists every process)\n",
				r->idle, r->idle == 1 ? "" : "es");
	} else {
		fprintf(out, "\n");
		print_functions(out, r, NULL, r->main, r->outside,
				r->stopped > 0);
	}
	/* once per report, of all its samples */
	report_text_missing_names(&r->funcs, r->total, out);
	return 0;
}

REPORT_FORMAT(text, "the flat profile for a terminal", report_text, false);

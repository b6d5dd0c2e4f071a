/* SPDX-License-Identifier: MIT */
/*
 * Building the report model: select the members of a run, merge their
 * samples per executable (so each binary is symbolized once), symbolize,
 * and merge functions by (module, name).
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "image.h"
#include "outside.h"
#include "report.h"
#include "strmap.h"

static int
select_procs(struct report *r)
{
	const struct run *run = r->run;
	size_t i;

	r->procs = calloc(run->n, sizeof(*r->procs));
	if (!r->procs) {
		cli_error("%s: out of memory", run->path);
		return -1;
	}
	for (i = 0; i < run->n; i++) {
		if (r->opts->pid && run->members[i].hdr.pid != r->opts->pid)
			continue;
		if (r->opts->tid &&
		    !profile_thread_find(&run->members[i], r->opts->tid))
			continue;
		r->procs[r->nprocs++].p = &run->members[i];
	}
	if (r->nprocs > 0)
		return 0;
	if (r->opts->tid)
		cli_error("no thread %ld in run %s%s", r->opts->tid, run->path,
			  r->opts->pid ? " (in the process selected)" : "");
	else
		cli_error("no process %ld in run %s", r->opts->pid, run->path);
	return -1;
}

/* Whether a selected process has call stacks: their frames are named
 * after the flat profile, by any object. */
static bool
has_stacks(const struct report *r)
{
	for (size_t i = 0; i < r->nprocs; i++)
		if (r->procs[i].p->has_frames || r->procs[i].p->has_stacks)
			return true;
	return false;
}

/* The samples outside the main executables of the N profiles P, into
 * SET (empty with --main-only).  Returns 0, or -1 after printing an
 * error. */
static int
outside_set(struct report *r, const struct profile *const *p, size_t n,
	    struct lib_set *set)
{
	size_t i;
	int ret = 0;

	memset(set, 0, sizeof(*set));
	if (r->opts->main_only)
		return 0;
	for (i = 0; i < n && ret == 0; i++)
		ret = lib_set_add(set, p[i]);
	if (ret) {
		cli_error("%s: out of memory", r->run->path);
		lib_set_fini(set);
	}
	return ret;
}

/* The samples outside the main executable of P, into FUNCS and LINES. */
static int
symbolize_outside(struct report *r, struct symbolizer *sz,
		  const struct profile *p, struct func_list *funcs,
		  struct func_list *lines)
{
	struct lib_set set;
	int ret;

	if (r->opts->main_only)
		return 0;
	if (outside_set(r, &p, 1, &set))
		return -1;
	ret = lib_set_symbolize(&set, sz, funcs, r->opts->lines ? lines : NULL);
	lib_set_fini(&set);
	return ret;
}

/* Each object is closed after its last walk, when nothing is named after
 * the flat profile: one object's symbols and debug information are held
 * at a time, not all of them. */
static int
plan_walks(struct symbolizer *sz, const struct image_set *images,
	   const struct lib_set *libs)
{
	size_t i;

	for (i = 0; i < images->n; i++)
		if (symbolizer_plan_exe(sz, images->v[i].ref))
			return -1;
	for (i = 0; i < libs->n; i++)
		if (symbolizer_plan(sz, &libs->v[i].obj))
			return -1;
	return 0;
}

/* The samples of the N profiles P, merged per executable and per object
 * outside them, into R's functions and lines. */
static int
symbolize_all(struct report *r, struct symbolizer *sz,
	      const struct profile *const *p, size_t n)
{
	struct image_set images;
	struct lib_set libs;
	size_t i;
	int ret = 0;

	if (image_set_of_report(&images, r))
		return -1;
	if (outside_set(r, p, n, &libs)) {
		image_set_fini(&images);
		return -1;
	}
	if (!r->opts->by_process && !has_stacks(r) &&
	    plan_walks(sz, &images, &libs)) {
		cli_error("%s: out of memory", r->run->path);
		ret = -1;
	}
	for (i = 0; i < images.n && ret == 0; i++)
		ret = symbolize(sz, images.v[i].ref, images.v[i].samples,
				images.v[i].n, &r->funcs, &r->lines);
	image_set_fini(&images);
	if (ret == 0 && !r->opts->main_only)
		ret = lib_set_symbolize(&libs, sz, &r->funcs,
					r->opts->lines ? &r->lines : NULL);
	r->in_libs = libs.libs;
	r->in_vdso = libs.vdso;

	r->in_unknown = libs.unknown + libs.lost + libs.unrecorded;
	r->in_jit = libs.jit;
	r->in_jit_no_map = libs.jit_no_map;
	r->jit_problem = libs.jit_problem;
	libs.jit_problem = NULL;
	lib_set_fini(&libs);
	return ret;
}

static int
symbolize_merged(struct report *r, struct symbolizer *sz)
{
	const struct profile **p = calloc(r->nprocs, sizeof(*p));
	size_t i;
	int ret;

	if (!p) {
		cli_error("%s: out of memory", r->run->path);
		return -1;
	}
	for (i = 0; i < r->nprocs; i++)
		p[i] = r->procs[i].p;
	ret = symbolize_all(r, sz, p, r->nprocs);
	free(p);
	return ret;
}

static int
symbolize_each(struct report *r, struct symbolizer *sz)
{
	struct proc *pr;
	size_t i;

	for (i = 0; i < r->nprocs; i++) {
		pr = &r->procs[i];
		pr->lines.key = r->lines.key;
		if (symbolize(sz, pr->p, pr->p->samples, pr->p->nsamples,
			      &pr->funcs, &pr->lines) ||
		    symbolize_outside(r, sz, pr->p, &pr->funcs, &pr->lines))
			return -1;
		func_list_finish(&pr->funcs);
		func_list_finish(&pr->lines);
	}
	return 0;
}

/* CPU seconds of P that samples stand for: its sampled threads' own CPU
 * clocks when it has thread records, else the process's CPU time; less
 * the CPU time used while sampling was paused. */
static double
sampled_cpu(const struct profile *p, double cpu)
{
	double s;

	if (!p->has_threads)
		s = cpu - profile_paused_seconds(p);
	else
		s = cpu - profile_unsampled_seconds(p) -
		    (double)p->thread_paused_ns / 1e9;
	return s > 0 ? s : 0;
}

/* CPU a thread uses starting (clone, its stack, its timer) and ending
 * outside its timer, at most: what is above that is a thread no timer
 * covered. */
#define THREAD_EDGES_MAX 100e-6

const char *
report_unsampled_cause(const struct report *r)
{
	if (r->clone_threads > 0)
		return "clone_threads";
	if (r->cpu_unsampled - r->thread_startup <=
	    (double)r->threads_started * THREAD_EDGES_MAX)
		return "thread_edges";
	return "uncovered_threads";
}

/* The highest rate the timer could deliver: the armed rate, or the
 * kernel's tick when that is lower; 0 when unknown. */
static double
rate_cap(const struct report *r)
{
	if (r->tick_hz > 0 && (r->armed_hz <= 0 || r->tick_hz < r->armed_hz))
		return r->tick_hz;
	return r->armed_hz;
}

/* The rate is measured over the processes that finished and were profiled
 * to the end: a process whose profiling stopped early used CPU time that
 * no sample stands for; and over the CPU time a timer of ours covered.
 * Clock and timer granularity can put the measured figure a little above
 * what the timer can deliver: it is capped there. */
static void
compute_rate(struct report *r)
{
	const struct profile *p;
	double cpu = 0, c, cap;
	uint64_t samples = 0;
	size_t i;

	r->cpu_seconds = 0;
	for (i = 0; i < r->nprocs; i++) {
		p = r->procs[i].p;
		r->cpu_startup += (double)p->hdr.cpu_start_ns / 1e9;
		c = profile_cpu_seconds(p);
		if (c < 0) {
			r->cpu_seconds = -1;
			r->cut_short++;
			continue;
		}
		r->cpu_known += c;
		r->cpu_paused += profile_paused_seconds(p);
		r->paused_any = r->paused_any || p->pause.pauses > 0 ||
				p->pause.flags != 0;
		r->cpu_unsampled += profile_unsampled_seconds(p);
		if (profile_unsampled_seconds(p) > 0) {
			r->thread_startup += (double)p->thread_startup_ns / 1e9;
			r->threads_started += p->threads_started;
			r->clone_threads += p->hdr.clone_threads;
		}
		r->threaded = r->threaded || p->has_threads;
		if (r->cpu_seconds >= 0)
			r->cpu_seconds += c;
		if (p->hdr.flags & PROFRUN_F_STOPPED)
			continue;
		cpu += sampled_cpu(p, c);
		/* blocked samples (--wall) stand for no CPU time */
		samples += p->main + p->outside - p->blocked_samples;
	}
	r->requested_hz = r->procs[0].p->hdr.rate_requested;
	r->armed_hz = profile_armed_hz(r->procs[0].p);
	r->rate_cpu = cpu;
	r->rate_measured = cpu > 0;
	r->rate_hz = r->rate_measured ? (double)samples / cpu : r->armed_hz;
	cap = rate_cap(r);
	if (r->rate_measured && cap > 0 && r->rate_hz > cap)
		r->rate_hz = cap;
}

uint64_t
report_effective(const struct report *r)
{
	return r->deff > 1 ? (uint64_t)floor((double)r->total / r->deff)
			   : r->total;
}

bool
report_bursts_noted(const struct report *r)
{
	return r->bursts_known && r->deff >= REPORT_BURSTS_NOTED;
}

/* P's counts of how its CPU samples came into R, and its CPU samples and
 * the sum of their signals' squares into *SAMPLES and *SQ; R's are not
 * known once a process with samples has none (an earlier writer's). */
static void
count_bursts(struct report *r, const struct profile *p, double *samples,
	     double *sq)
{
	uint64_t cpu = p->main + p->outside - p->blocked_samples;

	if (cpu == 0)
		return;
	/* counts no writer could have made (a damaged file) are not used:
	 * k signals of n samples have n <= sum k^2 <= n^2 */
	if (p->hdr.signals == 0 || p->hdr.signals > cpu ||
	    p->hdr.burst_max > cpu || p->hdr.samples_sq < cpu ||
	    (double)p->hdr.samples_sq > (double)cpu * (double)cpu) {
		r->bursts_known = false;
		return;
	}
	r->signals += p->hdr.signals;
	if (p->hdr.burst_max > r->burst_max)
		r->burst_max = p->hdr.burst_max;
	*samples += (double)cpu;
	*sq += (double)p->hdr.samples_sq;
}

static void
compute_totals(struct report *r)
{
	const struct profile *p;
	double cpu_samples = 0, samples_sq = 0;
	uint64_t shim;
	size_t i;

	r->complete = true;
	r->bursts_known = true;
	for (i = 0; i < r->nprocs; i++) {
		p = r->procs[i].p;
		r->main += p->main;
		r->outside += p->outside;
		count_bursts(r, p, &cpu_samples, &samples_sq);
		/* profrun's own cost is not the program's: its samples are
		 * left out of the totals and the rows */
		shim = outside_overhead(p);
		r->overhead += shim;
		r->procs[i].overhead = shim;
		r->procs[i].samples = p->main + p->outside > shim
					      ? p->main + p->outside - shim
					      : 0;
		r->complete = r->complete && profile_complete(p);
		r->idle += r->procs[i].samples == 0;
		r->clipped =
			r->clipped || (p->hdr.flags & PROFRUN_F_RATE_CLIPPED);
		r->stopped += (p->hdr.flags & PROFRUN_F_STOPPED) != 0;
	}
	r->tick_hz = r->procs[0].p->hdr.tick_hz;
	r->outside -= r->overhead < r->outside ? r->overhead : r->outside;
	r->total = r->main + r->outside;
	r->deff = 1;
	if (!r->bursts_known)
		r->signals = r->burst_max = 0;
	else if (cpu_samples > 0 && samples_sq > cpu_samples)
		r->deff = samples_sq / cpu_samples;
	compute_rate(r);
}

/* The entry of (MODULE, NAME) in MAP's keys. */
static const char *
entry_key(char *buf, size_t len, const struct func *f)
{
	snprintf(buf, len, "%s\n%s\n%s", f->module ? f->module : "",
		 f->name ? f->name : "", f->caller ? f->caller : "");
	return buf;
}

/* A wall profile: the samples of blocked threads alone, symbolized as
 * the flat profile is, give each entry of R's functions its samples off
 * the CPU. */
static int
wall_offcpu(struct report *r, struct symbolizer *sz)
{
	struct report tmp = *r;
	struct report_opts o = *r->opts;
	struct profile *q = calloc(r->nprocs, sizeof(*q));
	const struct profile **pp = calloc(r->nprocs, sizeof(*pp));
	struct proc *procs = calloc(r->nprocs, sizeof(*procs));
	struct strmap map = {0};
	char key[4096];
	size_t i, made = 0;
	int ret = q && pp && procs ? 0 : -1;

	o.lines = false;
	tmp.opts = &o;
	tmp.jit_problem = NULL;
	tmp.procs = procs;
	memset(&tmp.funcs, 0, sizeof(tmp.funcs));
	memset(&tmp.lines, 0, sizeof(tmp.lines));
	tmp.funcs.key = r->funcs.key;
	for (i = 0; i < r->nprocs && ret == 0; i++, made++) {
		ret = report_wall_profile(r->procs[i].p, &q[i]);
		procs[i].p = pp[i] = &q[i];
	}
	if (ret == 0)
		ret = symbolize_all(&tmp, sz, pp, r->nprocs);
	func_list_finish(&tmp.funcs);
	for (i = 0; ret == 0 && i < tmp.funcs.n; i++) {
		struct strmap_slot *sl = strmap_get(
			&map, entry_key(key, sizeof(key), &tmp.funcs.v[i]));

		if (!sl)
			ret = -1;
		else
			sl->value = &tmp.funcs.v[i];
	}
	for (i = 0; ret == 0 && i < r->funcs.n; i++) {
		struct strmap_slot *sl = strmap_get(
			&map, entry_key(key, sizeof(key), &r->funcs.v[i]));
		const struct func *f = sl ? sl->value : NULL;

		r->funcs.v[i].offcpu = f ? f->samples : 0;
	}
	strmap_fini(&map, NULL);
	free(tmp.jit_problem);
	func_list_fini(&tmp.funcs);
	func_list_fini(&tmp.lines);
	for (i = 0; i < made; i++)
		report_wall_profile_fini(&q[i]);
	free(q);
	free(pp);
	free(procs);
	if (ret && !(q && pp && procs))
		cli_error("%s: out of memory", r->run->path);
	return ret;
}

/* Whether a selected process is a wall profile. */
static bool
has_wall(const struct report *r)
{
	for (size_t i = 0; i < r->nprocs; i++)
		if (r->procs[i].p->has_wall)
			return true;
	return false;
}

struct sym_opts
report_sym_opts(const struct report_opts *opts)
{
	struct sym_opts o = {
		.force = opts->force,
		.demangle = !opts->no_demangle,
		.inlines = opts->inlines,
		.lines = opts->lines,
		.debug_dirs = (const char *const *)opts->debug_dirs,
		.ndebug_dirs = opts->ndebug_dirs,
	};

	return o;
}

/* With --module NAME: only the entries of that module. */
static int
keep_module(struct report *r, const char *name)
{
	size_t i;

	if (!name)
		return 0;
	func_list_keep_module(&r->funcs, name);
	func_list_keep_module(&r->lines, name);
	for (i = 0; i < r->nprocs; i++) {
		func_list_keep_module(&r->procs[i].funcs, name);
		func_list_keep_module(&r->procs[i].lines, name);
	}
	return 0;
}

int
report_build(struct report *r, const struct run *run,
	     const struct report_opts *opts)
{
	struct symbolizer *sz;
	struct sym_opts so;
	int ret;

	memset(r, 0, sizeof(*r));
	r->run = run;
	r->opts = opts;
	if (select_procs(r)) {
		report_fini(r);
		return -1;
	}
	compute_totals(r);
	r->lines.key = opts->lines_by_caller ? KEY_LINE_CALLER : KEY_LINE;
	so = report_sym_opts(opts);
	sz = symbolizer_new(&so);
	ret = sz ? symbolize_merged(r, sz) : -1;
	if (!sz)
		cli_error("%s: out of memory", run->path);
	if (ret == 0 && opts->by_process)
		ret = symbolize_each(r, sz);
	if (ret == 0) {
		func_list_finish(&r->funcs);
		func_list_finish(&r->lines);
		if (has_wall(r))
			ret = wall_offcpu(r, sz);
		if (ret == 0)
			ret = report_stacks_build(r, sz);
	}
	if (ret == 0 && opts->sort_total && !r->stacks.present) {
		cli_error(
			"report: --sort total needs call stacks, and %s has none: record with 'profrun -g'",
			run->path);
		ret = -1;
	} else if (ret == 0 && opts->sort_total) {
		report_sort_by_inclusive(&r->funcs, 0);
	}
	if (ret == 0 && opts->timeline)
		ret = report_timeline_build(r, sz);
	symbolizer_free(sz);
	if (ret) {
		report_fini(r);
		return -1;
	}
	r->kernel = func_list_kernel(&r->funcs);
	if (report_wall_build(r)) {
		report_fini(r);
		return -1;
	}
	if (module_totals(&r->funcs, &r->mods, &r->nmods) ||
	    report_executables(r) || report_processes(r) ||
	    keep_module(r, opts->module)) {
		cli_error("%s: out of memory", run->path);
		report_fini(r);
		return -1;
	}
	r->nmodules = func_list_modules(&r->funcs);
	return 0;
}

void
report_fini(struct report *r)
{
	size_t i;

	for (i = 0; i < r->nprocs; i++) {
		func_list_fini(&r->procs[i].funcs);
		func_list_fini(&r->procs[i].lines);
		free(r->procs[i].command);
	}
	free(r->procs);
	free(r->by_cpu);
	module_totals_free(r->mods, r->nmods);
	free(r->exes);
	func_list_fini(&r->funcs);
	func_list_fini(&r->lines);
	stacks_fini(&r->stacks);
	free(r->jit_problem);
	timeline_fini(&r->timeline);
	report_wall_fini(&r->wall);
	memset(r, 0, sizeof(*r));
}

bool
report_modules(const struct report *r, const struct func_list *l)
{
	size_t n = report_rows(r, l);

	if (!r->opts->sort_total)
		return func_list_modules(l) > 1;
	for (size_t i = 1; i < n; i++)
		if (strcmp(l->v[i].module, l->v[0].module) != 0)
			return true;
	return false;
}

size_t
report_rows(const struct report *r, const struct func_list *l)
{
	size_t n = l->n;

	if (r->opts->sort_total)
		return n;
	while (n > 0 && l->v[n - 1].samples == 0)
		n--;
	return n;
}

double
report_seconds(const struct report *r, uint64_t samples)
{
	return r->rate_hz > 0 ? (double)samples / r->rate_hz : 0;
}

double
report_seconds_split(const struct report *r, uint64_t samples, uint64_t offcpu)
{
	const struct report_wall *w = &r->wall;
	double off = 0;

	if (offcpu > samples)
		offcpu = samples;
	if (w->blocked > 0)
		off = w->blocked_seconds * (double)offcpu / (double)w->blocked;
	return report_seconds(r, samples - offcpu) + off;
}

double
report_percent(const struct report *r, uint64_t samples)
{
	return r->total ? 100.0 * (double)samples / (double)r->total : 0;
}

/* Why a rival's flag stops profiling, when the shim left no note. */
static const struct {
	uint32_t flag;
	const char *text;
} rival_texts[] = {
	{PROFRUN_F_RIVAL_SIGNAL,
	 "the program installed its own SIGPROF handler"},
	{PROFRUN_F_RIVAL_TIMER, "the program armed ITIMER_PROF itself"},
	{PROFRUN_F_RIVAL_PROFIL, "the program called profil() itself"},
};

const char *
report_stop_why(const struct profile *p)
{
	size_t i;

	if (!(p->hdr.flags & PROFRUN_F_STOPPED))
		return NULL;
	if (p->note)
		return p->note;
	for (i = 0; i < sizeof(rival_texts) / sizeof(rival_texts[0]); i++)
		if (p->hdr.flags & rival_texts[i].flag)
			return rival_texts[i].text;
	return "profiling stopped early";
}

const char *
report_stop_reason(const struct profile *p, char *buf, size_t len)
{
	const char *why = report_stop_why(p);

	if (!why)
		return NULL;
	snprintf(
		buf, len,
		"profile incomplete: %s; profrun stepped aside, later samples are missing",
		why);
	return buf;
}

void
report_problems(const struct profile *p, bool with_state,
		void (*fn)(void *ctx, const char *line), void *ctx)
{
	char buf[512];

	if (with_state && !profile_complete(p))
		fn(ctx, profile_state_text(p));
	if (report_stop_reason(p, buf, sizeof(buf)))
		fn(ctx, buf);
	if (p->hdr.flags & PROFRUN_F_WRAP_OVERFLOW)
		fn(ctx,
		   "wrap table overflowed: the hottest counts are too low");
	if (p->hdr.wraps_lost > 0) {
		snprintf(buf, sizeof(buf),
			 "%llu counter wraps lost (65536 samples each)",
			 (unsigned long long)p->hdr.wraps_lost);
		fn(ctx, buf);
	}
	if (p->hdr.flags & PROFRUN_F_ENV_RESTORED)
		fn(ctx,
		   "note: it started a program with an environment lacking profrun's variables; they were put back (--exact-env leaves it as made)");
	if (p->hdr.flags & PROFRUN_F_ENV_LEFT)
		fn(ctx,
		   "note: it started a program with an environment lacking profrun's variables, left as made (--exact-env): that program is not profiled");
	if (p->stacks_note) {
		snprintf(buf, sizeof(buf), "call stacks not read: %s",
			 p->stacks_note);
		fn(ctx, buf);
	}
	if (p->note && !(p->hdr.flags & PROFRUN_F_STOPPED)) {
		snprintf(buf, sizeof(buf), "note: %s", p->note);
		fn(ctx, buf);
	}
}

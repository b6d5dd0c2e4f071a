/* SPDX-License-Identifier: MIT */
/*
 * The JSON report ("profrun-report/1").  Output is deterministic: keys in
 * a fixed order, decimals rounded, no timestamps.
 */
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calls.h"
#include "formats.h"
#include "json.h"

static json_object *
json_fixed(double v, int decimals)
{
	double scale = pow(10, decimals);

	return json_decimal(round(v * scale) / scale, decimals);
}

static json_object *
json_string_or_null(const char *s)
{
	return s && s[0] ? json_utf8_string(s) : NULL;
}

/* F's source file and line, null when unknown. */
static void
add_place(json_object *o, const struct func *f)
{
	json_object_object_add(o, "file", json_string_or_null(f->file));
	json_object_object_add(
		o, "line",
		f->file && f->line > 0 ? json_object_new_int(f->line) : NULL);
}

/* F's symbol, module and samples, as a share of TOTAL too. */
static void
add_counts(json_object *o, const struct func *f, uint64_t total)
{
	double pct = total ? 100.0 * (double)f->samples / (double)total : 0;

	json_add_string(o, "symbol", f->symbol);
	json_add_string(o, "module", f->module);
	json_add_u64(o, "samples", f->samples);
	json_object_object_add(o, "percent", json_fixed(pct, 2));
	json_add_u64(o, "kernel_samples", f->kernel);
	json_add_u64(o, "offcpu_samples", f->offcpu);
}

static json_object *
json_function(const struct func *f, uint64_t total)
{
	json_object *o = json_object_new_object();

	json_add_string(o, "name", f->name);
	add_counts(o, f, total);
	add_place(o, f);
	if (f->caller)
		json_add_string(o, "inlined_into", f->caller);
	return o;
}

/* One source line (--lines): where, the innermost function, samples. */
static json_object *
json_line(const struct func *f, uint64_t total)
{
	json_object *o = json_object_new_object();

	add_place(o, f);
	json_add_string(o, "function", f->name);
	add_counts(o, f, total);
	return o;
}

/* The entries of L, at most TOP of them (0: all), made by FN. */
static json_object *
json_entries(const struct func_list *l, uint64_t total, int top,
	     json_object *(*fn)(const struct func *f, uint64_t total))
{
	json_object *a = json_object_new_array();
	size_t i, n = l->n;

	if (top > 0 && (size_t)top < n)
		n = (size_t)top;
	for (i = 0; i < n; i++)
		json_object_array_add(a, fn(&l->v[i], total));
	return a;
}

/* A function with its inclusive samples (the run has stacks). */
static json_object *
json_function_inclusive(const struct func *f, uint64_t total)
{
	json_object *o = json_function(f, total);
	double pct = total ? 100.0 * (double)f->inclusive / (double)total : 0;

	json_add_u64(o, "inclusive", f->inclusive);
	json_object_object_add(o, "inclusive_percent", json_fixed(pct, 2));
	return o;
}

static json_object *
json_functions(const struct func_list *l, uint64_t total, int top,
	       bool inclusive)
{
	return json_entries(l, total, top,
			    inclusive ? json_function_inclusive
				      : json_function);
}

static json_object *
json_lines(const struct func_list *l, uint64_t total, int top)
{
	return json_entries(l, total, top, json_line);
}

/* With --top: what the list leaves out, so nothing goes unaccounted. */
static json_object *
json_omitted(const struct func_list *l, int top)
{
	json_object *o;
	uint64_t samples = 0;
	size_t i;

	if (top <= 0 || (size_t)top >= l->n)
		return NULL;
	for (i = (size_t)top; i < l->n; i++)
		samples += l->v[i].samples;
	o = json_object_new_object();
	json_add_u64(o, "functions", l->n - (size_t)top);
	json_add_u64(o, "samples", samples);
	return o;
}

/* A process's CPU time: while profiled, before, and not covered by a
 * timer of ours (null when unknown). */
static void
json_cpu(json_object *o, const struct profile *p)
{
	double cpu = profile_cpu_seconds(p);

	json_object_object_add(o, "cpu_seconds",
			       cpu >= 0 ? json_fixed(cpu, 3) : NULL);
	json_object_object_add(
		o, "cpu_startup_seconds",
		json_fixed((double)p->hdr.cpu_start_ns / 1e9, 3));
	json_object_object_add(
		o, "cpu_unsampled_seconds",
		cpu >= 0 && p->has_threads
			? json_fixed(profile_unsampled_seconds(p), 3)
			: NULL);
	json_object_object_add(
		o, "cpu_profiled_seconds",
		cpu >= 0 ? json_fixed(cpu - profile_paused_seconds(p), 3)
			 : NULL);
	json_object_object_add(o, "cpu_paused_seconds",
			       json_fixed(profile_paused_seconds(p), 3));
}

/* How P was paused: null when the file has no pause record. */
static json_object *
json_pause(const struct profile *p)
{
	const struct profrun_pause *z = &p->pause;
	json_object *o;

	if (!p->has_pause)
		return NULL;
	o = json_object_new_object();
	json_object_object_add(
		o, "start_paused",
		json_object_new_boolean(z->flags &
					PROFRUN_PAUSE_F_START_PAUSED));
	json_object_object_add(o, "paused_at_end",
			       json_object_new_boolean(z->paused != 0));
	json_add_u64(o, "pauses", z->pauses);
	json_add_u64(o, "resumes", z->resumes);
	json_add_u64(o, "dropped", z->dropped);
	json_object_object_add(o, "toggle_signal",
			       z->toggle_signal > 0
				       ? json_object_new_int(z->toggle_signal)
				       : NULL);
	json_object_object_add(
		o, "toggle_given_back",
		json_object_new_boolean(z->flags & PROFRUN_PAUSE_F_TOGGLE_OFF));
	json_object_object_add(
		o, "cpu_window",
		json_object_new_boolean(z->flags & PROFRUN_PAUSE_F_WINDOW));
	return o;
}

/* The threads of P, in the order they started; the ones that found no
 * record of their own as one entry with tid null. */
static json_object *
json_threads(const struct profile *p)
{
	json_object *a = json_object_new_array(), *t;

	for (size_t i = 0; i < p->nthreads; i++) {
		const struct profile_thread *th = &p->threads[i];

		t = json_object_new_object();
		json_object_object_add(
			t, "tid",
			th->tid > 0 ? json_object_new_int(th->tid) : NULL);
		json_add_string(t, "name", th->name);
		json_add_u64(t, "samples", th->samples);
		json_object_object_add(t, "cpu_seconds",
				       json_fixed((double)th->cpu_ns / 1e9, 3));
		json_object_object_add(
			t, "paused_cpu_seconds",
			json_fixed((double)th->paused_ns / 1e9, 3));
		json_object_object_add(
			t, "main",
			json_object_new_boolean(th->flags &
						PROFRUN_THREAD_MAIN));
		json_object_array_add(a, t);
	}
	return a;
}

/* The command line of P, each argument valid UTF-8; null when the file
 * has none. */
static json_object *
json_argv(const struct profile *p)
{
	json_object *a;

	if (p->argc == 0)
		return NULL;
	a = json_object_new_array();
	for (size_t i = 0; i < p->argc; i++)
		json_object_array_add(a, json_utf8_string(p->argv[i]));
	return a;
}

static json_object *
json_process(const struct report *r, const struct proc *pr)
{
	const struct profile *p = pr->p;
	json_object *o = json_object_new_object();
	bool exited =
		p->hdr.state == PROFRUN_STATE_EXITED && p->hdr.exit_code >= 0;
	int raw = profile_raw_exit(p), sig = profile_end_signal(p);

	json_object_object_add(o, "pid", json_object_new_int(p->hdr.pid));
	json_object_object_add(o, "ppid", json_object_new_int(p->hdr.ppid));
	json_add_string(o, "exe", p->exe);
	json_object_object_add(o, "argv", json_argv(p));
	json_object_object_add(o, "command", json_string_or_null(pr->command));
	json_object_object_add(o, "argv_truncated",
			       json_object_new_boolean(p->argv_truncated));
	json_object_object_add(o, "build_id", json_string_or_null(p->build_id));
	json_add_u64(o, "samples", pr->samples);
	json_add_u64(o, "overhead", pr->overhead);
	json_object_object_add(o, "complete",
			       json_object_new_boolean(profile_complete(p)));
	json_object_object_add(o, "exit",
			       exited ? json_object_new_int(p->hdr.exit_code)
			       : raw >= 0 ? json_object_new_int(raw)
					  : NULL);
	json_object_object_add(o, "exit_through_libc",
			       json_object_new_boolean(raw < 0));
	json_object_object_add(o, "signal",
			       sig > 0 ? json_object_new_int(sig) : NULL);
	json_object_object_add(o, "stopped_early",
			       json_string_or_null(report_stop_why(p)));
	json_object_object_add(
		o, "exec_environment",
		json_string_or_null(
			p->hdr.flags & PROFRUN_F_ENV_RESTORED ? "restored"
			: p->hdr.flags & PROFRUN_F_ENV_LEFT   ? "left"
							      : NULL));
	json_cpu(o, p);
	json_object_object_add(o, "pause", json_pause(p));
	if (p->has_threads)
		json_object_object_add(o, "threads", json_threads(p));
	if (r->opts->by_process)
		json_object_object_add(
			o, "functions",
			json_functions(&pr->funcs, p->main + p->outside,
				       r->opts->top, r->stacks.present));
	if (r->opts->by_process && r->opts->lines)
		json_object_object_add(o, "lines",
				       json_lines(&pr->lines,
						  p->main + p->outside,
						  r->opts->top));
	return o;
}

/* The run by executable: CPU time as the kernel counted it, samples. */
static json_object *
json_executables(const struct report *r)
{
	json_object *a = json_object_new_array(), *e;

	for (size_t i = 0; i < r->nexes; i++) {
		const struct exe_total *x = &r->exes[i];

		e = json_object_new_object();
		json_object_object_add(e, "exe", json_utf8_string(x->exe));
		json_object_object_add(e, "processes",
				       json_object_new_uint64(x->processes));
		json_object_object_add(e, "cpu_seconds", json_fixed(x->cpu, 3));
		json_object_object_add(
			e, "cpu_percent",
			json_fixed(r->cpu_known > 0
					   ? 100.0 * x->cpu / r->cpu_known
					   : 0.0,
				   2));
		json_object_object_add(e, "samples",
				       json_object_new_uint64(x->samples));
		json_object_object_add(
			e, "percent",
			json_fixed(report_percent(r, x->samples), 2));
		json_object_array_add(a, e);
	}
	return a;
}

/* The --time window: {"start", "end" (null: the end), "from": "process"
 * or "run"}, or null. */
static json_object *
json_window(const struct report_opts *opts)
{
	json_object *w;

	if (!opts->windowed)
		return NULL;
	w = json_object_new_object();
	json_object_object_add(w, "start", json_fixed(opts->time_lo, 3));
	json_object_object_add(
		w, "end",
		opts->time_hi < 0 ? NULL : json_fixed(opts->time_hi, 3));
	json_object_object_add(w, "from",
			       json_object_new_string(opts->time_from_run
							      ? "run"
							      : "process"));
	return w;
}

/* Samples per module ("[vdso]", "[unknown]" included), before --module. */
static json_object *
json_modules(const struct report *r)
{
	json_object *a = json_object_new_array(), *m;
	size_t i;

	for (i = 0; i < r->nmods; i++) {
		m = json_object_new_object();
		json_add_string(m, "module", r->mods[i].module);
		json_add_u64(m, "samples", r->mods[i].samples);
		json_object_object_add(
			m, "percent",
			json_fixed(report_percent(r, r->mods[i].samples), 2));
		json_object_array_add(a, m);
	}
	return a;
}

/* The processes that left no member (the report is partial). */
static json_object *
json_missing(const struct run *run)
{
	json_object *a = json_object_new_array(), *m;

	for (size_t i = 0; i < run->nmissing; i++) {
		const struct run_missing *x = &run->missing[i];

		m = json_object_new_object();
		json_object_object_add(m, "pid", json_object_new_int(x->pid));
		json_object_object_add(m, "ppid", json_object_new_int(x->ppid));
		json_object_object_add(
			m, "how",
			json_object_new_string(run_child_how(x->kind)));
		json_object_object_add(m, "path", json_string_or_null(x->path));
		json_object_array_add(a, m);
	}
	return a;
}

/* The images that could not be profiled, by path and reason. */
static json_object *
json_not_profiled(const struct run *run)
{
	json_object *a = json_object_new_array(), *m;

	for (size_t i = 0; i < run->nnot_profiled; i++) {
		const struct run_not_profiled *x = &run->not_profiled[i];

		m = json_object_new_object();
		json_add_string(m, "path", x->path);
		json_object_object_add(
			m, "reason",
			json_object_new_string(run_child_reason(x->reason)));
		json_object_object_add(m, "script",
				       json_object_new_boolean(x->script));
		json_add_u64(m, "count", x->count);
		json_object_array_add(a, m);
	}
	return a;
}

/* The members of the run left out (the report is partial). */
static json_object *
json_unreadable(const struct run *run)
{
	json_object *a = json_object_new_array(), *m;
	size_t i;

	for (i = 0; i < run->nunreadable; i++) {
		m = json_object_new_object();
		json_object_object_add(
			m, "path",
			json_string_or_null(run->unreadable[i].path));
		json_object_object_add(
			m, "reason",
			json_string_or_null(run->unreadable[i].reason));
		json_object_array_add(a, m);
	}
	return a;
}

/* How many samples have a stack and how those stacks ended. */
static json_object *
json_stacks(const struct report *r)
{
	const struct report_stacks *st = &r->stacks;
	json_object *o = json_object_new_object();

	json_add_u64(o, "samples", st->samples);
	json_add_u64(o, "with_stack", st->stacks);
	json_add_u64(o, "truncated", st->truncated);
	json_add_u64(o, "not_kept", st->not_kept);
	json_add_u64(o, "copy_failed", st->copy_failed);
	json_add_u64(o, "uncopied", st->uncopied);
	json_add_u64(o, "overhead", st->overhead);
	json_add_u64(o, "unwound_none", st->unwound_none);
	json_add_u64(o, "jit_stopped", st->jit_stopped);
	json_add_u64(o, "stack_size", st->stack_size);
	/* functions[] lists every function on a stack, callers without
	 * samples of their own too (samples 0): diff compares them */
	json_object_object_add(o, "callers_listed", json_object_new_boolean(1));
	return o;
}

/* A wall profile's blocked time by process, thread and system call. */
static json_object *
json_wall(const struct report *r)
{
	const struct report_wall *w = &r->wall;
	json_object *o = json_object_new_object();
	json_object *rows = json_object_new_array();

	json_add_u64(o, "blocked_samples", w->blocked);
	json_object_object_add(o, "blocked_seconds",
			       json_fixed(w->blocked_seconds, 3));
	json_add_u64(o, "unlocated_samples", w->lost);
	json_add_u64(o, "sampler_wakes", w->wakes);
	json_object_object_add(o, "sampler_cpu_seconds",
			       json_fixed(w->sampler_cpu, 6));
	for (size_t i = 0; i < w->nrows; i++) {
		const struct wall_row *v = &w->rows[i];
		json_object *e = json_object_new_object();
		const char *name = wall_syscall_name(v->nr);

		json_object_object_add(e, "pid",
				       json_object_new_int(v->p->hdr.pid));
		json_object_object_add(e, "tid", json_object_new_int(v->tid));
		json_add_string(e, "thread", v->thread);
		json_object_object_add(e, "syscall",
				       json_object_new_int(v->nr));
		json_object_object_add(e, "syscall_name",
				       name ? json_object_new_string(name)
					    : NULL);
		json_add_u64(e, "samples", v->samples);
		json_object_object_add(e, "seconds", json_fixed(v->seconds, 3));
		json_object_array_add(rows, e);
	}
	json_object_object_add(o, "blocked", rows);
	return o;
}

static json_object *
json_report(const struct report *r)
{
	json_object *o = json_object_new_object();
	json_object *s = json_object_new_object();
	json_object *procs = json_object_new_array();
	size_t i;

	json_object_object_add(o, "schema",
			       json_object_new_string("profrun-report/1"));
	/* cpu: CPU time only; wall: blocked threads sampled too (--wall) */
	json_object_object_add(
		o, "clock",
		json_object_new_string(r->wall.present ? "wall" : "cpu"));
	if (r->wall.present)
		json_object_object_add(o, "wall", json_wall(r));
	json_add_u64(s, "total", r->total);
	json_add_u64(s, "main", r->main);
	json_add_u64(s, "outside", r->outside);
	json_add_u64(s, "kernel", r->kernel);
	json_add_u64(s, "overhead", r->overhead);
	/* how they came: signals of the timer, the most one brought, and
	 * as many samples taken one by one as would vary as much (null
	 * when not known: profiles of earlier versions) */
	json_object_object_add(
		s, "signals",
		r->bursts_known ? json_object_new_int64((int64_t)r->signals)
				: NULL);
	json_object_object_add(
		s, "largest_burst",
		r->bursts_known ? json_object_new_int64(r->burst_max) : NULL);
	json_object_object_add(
		s, "effective",
		r->bursts_known
			? json_object_new_int64((int64_t)report_effective(r))
			: NULL);
	if (!r->opts->main_only) {
		json_add_u64(s, "libraries", r->in_libs);
		json_add_u64(s, "vdso", r->in_vdso);
		json_add_u64(s, "unknown", r->in_unknown);
		json_add_u64(s, "jit", r->in_jit);
		json_add_u64(s, "jit_no_map", r->in_jit_no_map);
	}
	json_object_object_add(o, "samples", s);
	json_object_object_add(o, "modules", json_modules(r));
	json_object_object_add(o, "rate_hz", json_fixed(r->rate_hz, 2));
	json_object_object_add(o, "window", json_window(r->opts));
	json_object_object_add(
		o, "cpu_seconds",
		r->cpu_seconds >= 0 ? json_fixed(r->cpu_seconds, 3) : NULL);
	json_object_object_add(o, "cpu_startup_seconds",
			       json_fixed(r->cpu_startup, 3));
	json_object_object_add(o, "cpu_unsampled_seconds",
			       r->threaded && r->cpu_seconds >= 0
				       ? json_fixed(r->cpu_unsampled, 3)
				       : NULL);
	json_object_object_add(
		o, "unsampled_cause",
		r->threaded && r->cpu_seconds >= 0 && r->cpu_unsampled > 0
			? json_object_new_string(report_unsampled_cause(r))
			: NULL);
	json_add_u64(o, "clone_threads", r->clone_threads);
	json_object_object_add(
		o, "cpu_profiled_seconds",
		r->cpu_seconds >= 0
			? json_fixed(r->cpu_seconds - r->cpu_paused, 3)
			: NULL);
	json_object_object_add(o, "cpu_paused_seconds",
			       json_fixed(r->cpu_paused, 3));
	json_object_object_add(o, "complete",
			       json_object_new_boolean(r->complete));
	json_object_object_add(o, "partial",
			       json_object_new_boolean(run_partial(r->run)));
	json_object_object_add(o, "unreadable",
			       json_object_new_uint64(r->run->skipped));
	json_object_object_add(o, "unreadable_members",
			       json_unreadable(r->run));
	json_object_object_add(o, "missing", json_missing(r->run));
	json_object_object_add(o, "not_profiled", json_not_profiled(r->run));
	json_add_u64(o, "children_unrecorded", r->run->children_unrecorded);
	for (i = 0; i < r->nprocs; i++)
		json_object_array_add(procs, json_process(r, &r->procs[i]));
	json_object_object_add(o, "processes", procs);
	json_object_object_add(o, "executables", json_executables(r));
	json_object_object_add(o, "functions",
			       json_functions(&r->funcs, r->total, r->opts->top,
					      r->stacks.present));
	if (r->opts->lines)
		json_object_object_add(
			o, "lines",
			json_lines(&r->lines, r->total, r->opts->top));
	if (r->opts->top > 0 && (size_t)r->opts->top < r->funcs.n)
		json_object_object_add(o, "omitted",
				       json_omitted(&r->funcs, r->opts->top));
	if (r->stacks.present)
		json_object_object_add(o, "stacks", json_stacks(r));
	report_json_calls(r, o);
	return o;
}

static int
report_json(const struct report *r, FILE *out)
{
	json_print(json_report(r), out);
	return 0;
}

REPORT_FORMAT(json, "schema profrun-report/1", report_json, false);

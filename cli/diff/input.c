/* SPDX-License-Identifier: MIT */
/*
 * BASE and NEW of `profrun diff`: a profile (symbolized now, as `profrun
 * report` does) or a JSON report (schema profrun-report/1, read with
 * json-c), reduced to functions with samples and the total.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "array.h"
#include "file.h"
#include "diff.h"
#include "report.h"
#include "symbolize.h"

#define REPORT_SCHEMA "profrun-report/1"

int
diff_side_add(struct diff_side *s, const char *name, const char *module,
	      uint64_t samples, uint64_t inclusive, bool flat)
{
	struct diff_fn *v;

	if (ARRAY_GROW(s->fns, s->cap, s->n, 64))
		return -1;
	v = &s->fns[s->n];
	memset(v, 0, sizeof(*v));
	v->name = strdup(name);
	v->module = module ? strdup(module) : NULL;
	v->samples = samples;
	v->inclusive = inclusive;
	v->flat = flat;
	v->stack_fn = SIZE_MAX;
	if (!v->name || (module && !v->module)) {
		free(v->name);
		free(v->module);
		return -1;
	}
	s->n++;
	return 0;
}

/* A module's short name into S's main executables, once. */
static int
add_main(struct diff_side *s, const char *exe)
{
	const char *m = module_display(exe);
	char **v;

	for (size_t i = 0; i < s->nmains; i++)
		if (strcmp(s->mains[i], m) == 0)
			return 0;
	if (!(v = realloc(s->mains, (s->nmains + 1) * sizeof(*v))))
		return -1;
	s->mains = v;
	if (!(v[s->nmains] = strdup(m)))
		return -1;
	s->nmains++;
	return 0;
}

void
diff_side_fini(struct diff_side *s)
{
	size_t i;

	for (i = 0; i < s->n; i++) {
		free(s->fns[i].name);
		free(s->fns[i].module);
	}
	free(s->fns);
	for (i = 0; i < s->nmains; i++)
		free(s->mains[i]);
	free(s->mains);
	if (s->own_report) {
		const struct report_opts *ro = s->report->opts;

		report_fini(s->report);
		run_fini(s->run);
		free(s->report);
		free(s->run);
		free((void *)ro);
	}
	memset(s, 0, sizeof(*s));
}

static int
side_error(const struct diff_side *s, const char *what)
{
	cli_error("diff: %s: %s", s->path, what);
	return -1;
}

/* ---------------------------------------------------------------- profiles */

/* The functions of R's stacks that are only callers (no entry in the
 * flat profile), and each function's place in the stacks. */
static int
add_callers(struct diff_side *s, const struct report *r, size_t nflat)
{
	const struct report_stacks *st = &r->stacks;

	for (size_t i = 0; i < st->nfns; i++) {
		const struct stack_fn *f = &st->fns[i];

		if (f->func < nflat) {
			s->fns[f->func].stack_fn = i;
			continue;
		}
		if (f->func != SIZE_MAX || f->inclusive == 0)
			continue;
		if (diff_side_add(s, f->name[0] ? f->name : "[unknown]",
				  module_display(f->module), 0, f->inclusive,
				  false))
			return -1;
		s->fns[s->n - 1].stack_fn = i;
	}
	return 0;
}

int
diff_side_from_report(struct diff_side *s, const char *path,
		      const struct report *r, const struct diff_opts *opts)
{
	size_t i;
	int ret = 0;

	memset(s, 0, sizeof(*s));
	s->path = path;
	s->report = (struct report *)r;
	s->total = r->total;
	s->deff = r->deff > 1 ? r->deff : 1;
	s->has_inclusive = r->stacks.present;
	s->callers_known = true;
	if (opts->inclusive && !s->has_inclusive)
		return side_error(
			s,
			"--inclusive needs call stacks, and this profile has none: record with 'profrun -g'");
	/* the functions include the libraries' and [unknown]: they add up
	 * to the total */
	for (i = 0; i < r->funcs.n && ret == 0; i++)
		ret = diff_side_add(s, r->funcs.v[i].name,
				    module_display(r->funcs.v[i].module),
				    r->funcs.v[i].samples,
				    r->funcs.v[i].inclusive,
				    r->funcs.v[i].samples > 0);
	if (ret == 0 && s->has_inclusive)
		ret = add_callers(s, r, r->funcs.n);
	for (i = 0; i < r->nexes && ret == 0; i++)
		ret = add_main(s, r->exes[i].exe);
	return ret ? side_error(s, "out of memory") : 0;
}

static int
load_profile(struct diff_side *s, const struct diff_opts *opts)
{
	struct report_opts *ro = calloc(1, sizeof(*ro));
	struct run *run = calloc(1, sizeof(*run));
	struct report *r = calloc(1, sizeof(*r));
	const char *path = s->path;

	if (!ro || !run || !r) {
		free(ro), free(run), free(r);
		return side_error(s, "out of memory");
	}
	/* the options outlive this call: the report keeps a pointer */
	*ro = (struct report_opts){.format = "text", .force = opts->force};
	if (run_load(path, run)) {
		free(ro), free(run), free(r);
		return -1;
	}
	if (report_build(r, run, ro)) {
		run_fini(run);
		free(ro), free(run), free(r);
		return -1;
	}
	if (diff_side_from_report(s, path, r, opts)) {
		report_fini(r);
		run_fini(run);
		free(ro), free(run), free(r);
		return -1;
	}
	s->run = run;
	s->own_report = true;
	if (!opts->format || strcmp(opts->format, "html") != 0) {
		/* only the page draws from the report: give it back now */
		report_fini(r);
		run_fini(run);
		free(ro), free(run), free(r);
		s->report = NULL;
		s->run = NULL;
		s->own_report = false;
	}
	return 0;
}

/* ---------------------------------------------------------------- JSON */

/* The non-negative integer KEY of O, or -1 (missing or of another type). */
static int64_t
json_count(json_object *o, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) ||
	    !json_object_is_type(v, json_type_int))
		return -1;
	return json_object_get_int64(v);
}

/* S's samples.effective (SAMPLES): null or absent (earlier versions)
 * for samples taken one by one, else at least 1 and at most the total. */
static int
json_effective(struct diff_side *s, json_object *samples)
{
	json_object *v;
	int64_t n;

	s->deff = 1;
	if (!json_object_object_get_ex(samples, "effective", &v) || v == NULL)
		return 0;
	n = json_count(samples, "effective");
	if (n < 0 || (uint64_t)n > s->total || (n == 0 && s->total > 0))
		return side_error(
			s,
			"samples.effective is not a count of 1 to samples.total");
	if (n > 0)
		s->deff = (double)s->total / (double)n;
	return 0;
}

static int
check_schema(const struct diff_side *s, json_object *root)
{
	json_object *v;
	const char *schema;
	char buf[256];

	if (!json_object_is_type(root, json_type_object) ||
	    !json_object_object_get_ex(root, "schema", &v) ||
	    !json_object_is_type(v, json_type_string))
		return side_error(s,
				  "not a profrun JSON report (no \"schema\")");
	schema = json_object_get_string(v);
	if (strcmp(schema, REPORT_SCHEMA) == 0)
		return 0;
	snprintf(
		buf, sizeof(buf),
		"schema \"%.100s\" is not supported (this profrun reads " REPORT_SCHEMA
		"; regenerate the baseline with 'profrun report --format json')",
		schema);
	return side_error(s, buf);
}

/* One function of the report: its samples, and its inclusive samples
 * when INCLUSIVE (the report has stacks).  *SUM adds up the samples. */
static int
json_function(struct diff_side *s, json_object *f, bool inclusive,
	      uint64_t *sum)
{
	json_object *name, *module;
	int64_t n = json_count(f, "samples");
	int64_t incl = inclusive ? json_count(f, "inclusive") : 0;

	if (!json_object_is_type(f, json_type_object) || n < 0 ||
	    !json_object_object_get_ex(f, "name", &name) ||
	    !json_object_is_type(name, json_type_string))
		return side_error(s, "a function without a name or samples");
	if (incl < 0)
		return side_error(s, "a function without \"inclusive\"");
	if (!json_object_object_get_ex(f, "module", &module) ||
	    !json_object_is_type(module, json_type_string))
		module = NULL;
	/* inclusive samples overlap: each is at most the total, no more */
	if ((uint64_t)n > s->total - *sum || (uint64_t)incl > s->total)
		return side_error(s, "samples do not add up to samples.total");
	*sum += (uint64_t)n;
	if (diff_side_add(
		    s, json_object_get_string(name),
		    module ? module_display(json_object_get_string(module))
			   : NULL,
		    (uint64_t)n, (uint64_t)incl, n > 0))
		return side_error(s, "out of memory");
	return 0;
}

/* Whether the report lists the callers without samples of their own
 * among its functions (stacks.callers_listed): a report of an older
 * version does not, and a function only one side has may then be a
 * caller on the other. */
static void
json_callers(struct diff_side *s, json_object *root)
{
	json_object *stacks, *v;

	s->callers_known =
		json_object_object_get_ex(root, "stacks", &stacks) &&
		json_object_object_get_ex(stacks, "callers_listed", &v) &&
		json_object_is_type(v, json_type_boolean) &&
		json_object_get_boolean(v);
}

/* Whether every function of FUNCS has inclusive samples: the report has
 * stacks. */
static bool
json_has_inclusive(json_object *funcs)
{
	size_t i, n = json_object_array_length(funcs);

	for (i = 0; i < n; i++)
		if (!json_object_object_get_ex(
			    json_object_array_get_idx(funcs, i), "inclusive",
			    NULL))
			return false;
	return n > 0;
}

/* The main executables: "executables", else each process's "exe". */
static int
json_mains(struct diff_side *s, json_object *root)
{
	json_object *a, *exe;
	const char *key = "executables";
	size_t i, n;

	if (!json_object_object_get_ex(root, key, &a) &&
	    !json_object_object_get_ex(root, key = "processes", &a))
		return 0;
	if (!json_object_is_type(a, json_type_array))
		return 0;
	n = json_object_array_length(a);
	for (i = 0; i < n; i++)
		if (json_object_object_get_ex(json_object_array_get_idx(a, i),
					      "exe", &exe) &&
		    json_object_is_type(exe, json_type_string) &&
		    add_main(s, json_object_get_string(exe)))
			return side_error(s, "out of memory");
	return 0;
}

/* A pseudo-function completing the self shares (no inclusive count). */
static int
add_pseudo(struct diff_side *s, const char *name, uint64_t samples)
{
	if (diff_side_add(s, name, NULL, samples, 0, true))
		return -1;
	s->fns[s->n - 1].pseudo = true;
	return 0;
}

/* Samples not in the listed functions: left out by --top, or outside (in
 * reports without the split of samples.outside, which list the main
 * executables' functions only). */
static int
json_rest(struct diff_side *s, json_object *root, json_object *samples,
	  uint64_t listed)
{
	json_object *omitted;
	int64_t outside = json_count(samples, "outside"), left = 0;

	if (json_object_object_get_ex(samples, "libraries", NULL))
		outside = 0; /* listed among the functions */

	if (json_object_object_get_ex(root, "omitted", &omitted))
		left = json_count(omitted, "samples");
	if (outside < 0 || left < 0 || (uint64_t)outside > s->total - listed ||
	    (uint64_t)left > s->total - listed - (uint64_t)outside)
		return side_error(s, "samples do not add up to samples.total");
	if (left > 0)
		cli_warn(
			"diff: %s lists only the top functions; the others are compared as one",
			s->path);
	if ((left > 0 && add_pseudo(s, DIFF_OMITTED, (uint64_t)left)) ||
	    (outside > 0 && add_pseudo(s, DIFF_OUTSIDE, (uint64_t)outside)))
		return side_error(s, "out of memory");
	return 0;
}

static int
load_json_object(struct diff_side *s, json_object *root, bool inclusive)
{
	json_object *samples, *funcs;
	uint64_t listed = 0;
	int64_t total;
	size_t i, n;

	if (check_schema(s, root))
		return -1;
	if (!json_object_object_get_ex(root, "samples", &samples) ||
	    (total = json_count(samples, "total")) < 0 ||
	    !json_object_object_get_ex(root, "functions", &funcs) ||
	    !json_object_is_type(funcs, json_type_array))
		return side_error(
			s, "a report without samples.total or functions");
	s->total = (uint64_t)total;
	if (json_effective(s, samples))
		return -1;
	s->has_inclusive = json_has_inclusive(funcs);
	if (inclusive && !s->has_inclusive)
		return side_error(
			s,
			"a function without \"inclusive\": --inclusive needs a report of a profile recorded with 'profrun -g'");
	n = json_object_array_length(funcs);
	for (i = 0; i < n; i++)
		if (json_function(s, json_object_array_get_idx(funcs, i),
				  s->has_inclusive, &listed))
			return -1;
	if (s->has_inclusive)
		json_callers(s, root);
	if (json_mains(s, root))
		return -1;
	return json_rest(s, root, samples, listed);
}

static int parse_json_text(struct diff_side *s, const char *text, size_t len,
			   bool inclusive);

/* Read whole, up to CLI_MAX_JSON_REPORT (a 390 MB report took 4 GB to
 * parse), and parsed as diff_side_parse_json does. */
static int
load_json(struct diff_side *s, bool inclusive)
{
	const char *path = s->path;
	char buf[256], *text;
	size_t len;
	int ret;

	if (cli_read_file(path, CLI_MAX_JSON_REPORT, &text, &len) < 0) {
		if (errno == EFBIG)
			snprintf(buf, sizeof(buf),
				 "JSON report larger than %u MiB, refused",
				 CLI_MAX_JSON_REPORT >> 20);
		else
			snprintf(buf, sizeof(buf), "%s", strerror(errno));
		return side_error(s, buf);
	}
	ret = parse_json_text(s, text, len, inclusive);
	free(text);
	return ret;
}

int
diff_side_parse_json(struct diff_side *s, const char *path, const char *text,
		     size_t len)
{
	int ret;

	memset(s, 0, sizeof(*s));
	s->path = path;
	s->from_json = true;
	ret = parse_json_text(s, text, len, false);
	if (ret != 0) {
		diff_side_fini(s);
		s->path = path;
	}
	return ret;
}

/* The JSON report TEXT (LEN bytes) into S (path and options set). */
static int
parse_json_text(struct diff_side *s, const char *text, size_t len,
		bool inclusive)
{
	json_tokener *tok = len <= INT_MAX ? json_tokener_new() : NULL;
	json_object *root = NULL;
	const char *why = len > INT_MAX ? "too large" : "out of memory";
	char buf[256];
	int ret = -1;

	if (tok) {
		root = json_tokener_parse_ex(tok, text, (int)len);
		if (json_tokener_get_error(tok) != json_tokener_success) {
			why = json_tokener_error_desc(
				json_tokener_get_error(tok));
			json_object_put(root);
			root = NULL;
		}
		json_tokener_free(tok);
	}
	if (root) {
		ret = load_json_object(s, root, inclusive);
		json_object_put(root);
	} else {
		snprintf(buf, sizeof(buf), "not valid JSON (%s)", why);
		side_error(s, buf);
	}
	return ret;
}

/* A JSON report: a regular file whose first non-blank byte is '{' or '['
 * or whose name ends in .json. */
static bool
looks_like_json(const char *path)
{
	struct stat st;
	size_t len = strlen(path);
	FILE *f;
	int c;

	if (stat(path, &st) < 0 || !S_ISREG(st.st_mode))
		return false;
	if (len > 5 && strcmp(path + len - 5, ".json") == 0)
		return true;
	f = cli_fopen_regular(path);
	if (!f)
		return false;
	do
		c = fgetc(f);
	while (c == ' ' || c == '\t' || c == '\n' || c == '\r');
	fclose(f);
	return c == '{' || c == '[';
}

int
diff_side_load(struct diff_side *s, const char *path,
	       const struct diff_opts *opts)
{
	memset(s, 0, sizeof(*s));
	s->path = path;
	s->from_json = looks_like_json(path);
	if ((s->from_json ? load_json(s, opts->inclusive)
			  : load_profile(s, opts)) == 0)
		return 0;
	diff_side_fini(s);
	s->path = path;
	return -1;
}

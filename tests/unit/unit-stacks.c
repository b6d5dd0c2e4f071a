/* SPDX-License-Identifier: MIT */
/*
 * The writers that read a report's call stacks, on stacks built by hand:
 * a leaf called through two callers 3:1 (with a function inlined into it),
 * recursion, a library frame, awkward and unknown names, no stacks at all,
 * and a 1000-frame stack.
 *
 *   unit-stacks CASE      one of the in-process checks below
 *   unit-stacks write DIR the exports into DIR, for tests/stacks_formats.py
 *                         (pprof through protoc, gmon.out through gprof,
 *                         the flame graph page through Chromium)
 *
 * The main executable's functions are this program's own, at their
 * link-time addresses, so gprof can name them from this binary.
 */
#define _GNU_SOURCE
#include <json-c/json.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diff.h"
#include "formats.h"
#include "stack-graph.h"
#include "unit-check.h"

/* ------------------------------------------------------------ fixture */

void fx_main(void);
void fx_caller_a(void);
void fx_caller_b(void);
void fx_leaf(void);
void fx_rec(void);
void fx_odd(void);

static volatile int sink;

#define FX_BODY                                                                \
	{                                                                      \
		for (int i = 0; i < 8; i++)                                    \
			sink += i * sink + 3;                                  \
	}
__attribute__((noinline, used)) void fx_main(void) FX_BODY;
__attribute__((noinline, used)) void fx_caller_a(void) FX_BODY;
__attribute__((noinline, used)) void fx_caller_b(void) FX_BODY;
__attribute__((noinline, used)) void fx_leaf(void) FX_BODY;
__attribute__((noinline, used)) void fx_rec(void) FX_BODY;
__attribute__((noinline, used)) void fx_odd(void) FX_BODY;

enum {
	F_MAIN,
	F_A,
	F_B,
	F_LEAF,
	F_HELPER,
	F_REC,
	F_ODD,
	F_MEMCPY,
	F_NONAME,
	NFNS
};

static char exe[4096];
static uint64_t bias;

static int
first_object(struct dl_phdr_info *info, size_t size, void *data)
{
	bias = info->dlpi_addr;
	return 1;
}

/* Link-time address of F. */
static uint64_t
link_addr(void (*f)(void))
{
	return (uint64_t)(uintptr_t)f - bias;
}

static struct stack_fn fns[NFNS];
static struct stack_frame frames[64];
static struct stack_trace traces[8];
static size_t nframes, ntraces;

static void
fn(int i, const char *name, void (*f)(void), const char *module, bool main)
{
	fns[i] = (struct stack_fn){(char *)module, (char *)name,
				   (char *)name,   f ? link_addr(f) : 0,
				   main,	   SIZE_MAX};
}

/* A frame of function I at its entry + OFF (inlined: into the next). */
static void
frame(int i, uint64_t off, bool inlined)
{
	/* an inlined frame is at the place of the one it is inlined into
	 * (only the helper, into the leaf, here) */
	uint64_t base = fns[inlined ? F_LEAF : i].addr;

	frames[nframes++] =
		(struct stack_frame){(uint32_t)i, inlined, base + off, NULL, 0};
}

static void
trace(size_t first, uint64_t count)
{
	traces[ntraces++] = (struct stack_trace){
		(uint32_t)first, (uint32_t)(nframes - first), 0, count};
}

/* main -> a -> leaf (helper inlined) 300, main -> b -> leaf 100, main ->
 * rec -> rec -> rec 50, main -> odd name 10, main -> memcpy (libc) 20, a
 * stack of no frame 5, main -> unnamed 15. */
static void
build_stacks(struct report_stacks *s)
{
	size_t f;

	dl_iterate_phdr(first_object, NULL);
	fn(F_MAIN, "fx_main", fx_main, exe, true);
	fn(F_A, "fx_caller_a", fx_caller_a, exe, true);
	fn(F_B, "fx_caller_b", fx_caller_b, exe, true);
	fn(F_LEAF, "fx_leaf", fx_leaf, exe, true);
	fn(F_HELPER, "fx_helper", NULL, exe, true);
	fn(F_REC, "fx_rec", fx_rec, exe, true);
	fn(F_ODD, "odd;name\nx</script>\xe2\x80\xa8", fx_odd, exe, true);
	fn(F_MEMCPY, "memcpy", NULL, "/lib/x86_64-linux-gnu/libc.so.6", false);
	fn(F_NONAME, "", NULL, "[unknown]", false);
	nframes = ntraces = 0;
	f = nframes;
	frame(F_HELPER, 8, true);
	frame(F_LEAF, 8, false);
	frame(F_A, 4, false);
	frame(F_MAIN, 4, false);
	trace(f, 300);
	f = nframes;
	frame(F_LEAF, 12, false);
	frame(F_B, 4, false);
	frame(F_MAIN, 8, false);
	trace(f, 100);
	f = nframes;
	frame(F_REC, 6, false);
	frame(F_REC, 6, false);
	frame(F_REC, 6, false);
	frame(F_MAIN, 12, false);
	trace(f, 50);
	f = nframes;
	frame(F_MEMCPY, 0, false);
	frame(F_MAIN, 16, false);
	trace(f, 20);
	f = nframes;
	frame(F_NONAME, 0, false);
	frame(F_MAIN, 24, false);
	trace(f, 15);
	f = nframes;
	frame(F_ODD, 2, false);
	frame(F_MAIN, 20, false);
	trace(f, 10);
	trace(nframes, 5);
	*s = (struct report_stacks){.present = true,
				    .fns = fns,
				    .nfns = NFNS,
				    .frames = frames,
				    .nframes = nframes,
				    .traces = traces,
				    .ntraces = ntraces,
				    .samples = 500,
				    .stacks = 500};
}

static struct run run = {.path = "fixture.prof"};
static struct report_opts opts;
static struct profile prof;
static struct proc proc = {.p = &prof};
static struct profile_sample hist[4];
static struct func funcs[3];

/* A report of one process of this program: the histogram has the leaf's
 * samples, the flat list three functions, STACKS the stacks. */
static void
build_report(struct report *r)
{
	memset(&opts, 0, sizeof(opts));
	opts.format = "text";
	memset(r, 0, sizeof(*r));
	build_stacks(&r->stacks);
	prof.exe = exe;
	prof.path = (char *)"fixture.prof";
	prof.hdr.bucket_size = 4;
	prof.hdr.text_start = fns[F_MAIN].addr & ~(uint64_t)0xfff;
	prof.hdr.text_end = prof.hdr.text_start + 0x100000;
	hist[0] = (struct profile_sample){fns[F_LEAF].addr & ~3ull, 400};
	hist[1] = (struct profile_sample){fns[F_REC].addr & ~3ull, 50};
	hist[2] = (struct profile_sample){fns[F_ODD].addr & ~3ull, 10};
	prof.samples = hist;
	prof.nsamples = 3;
	prof.main = 460;
	prof.outside = 40;
	funcs[0] = (struct func){exe, "fx_leaf", "fx_leaf", .samples = 400,
				 .inclusive = 400};
	funcs[1] = (struct func){exe, "fx_rec", "fx_rec", .samples = 50,
				 .inclusive = 50};
	funcs[2] = (struct func){exe, "fx_main", "fx_main", .samples = 0,
				 .inclusive = 500};
	r->funcs = (struct func_list){funcs, 3, 3, KEY_FUNCTION};
	r->run = &run;
	r->opts = &opts;
	r->procs = &proc;
	r->nprocs = 1;
	r->total = 500;
	r->main = 460;
	r->outside = 40;
	r->rate_hz = r->armed_hz = r->requested_hz = 100;
	r->cpu_seconds = -1;
}

/* ------------------------------------------------------------- helpers */

/* R written in FORMAT, as a string (NULL when the writer failed). */
static char *
render(const struct report *r, const char *format)
{
	char *text = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);
	int ret = report_write(r, format, mem);

	fclose(mem);
	if (ret) {
		free(text);
		return NULL;
	}
	return text;
}

static json_object *
render_json(const struct report *r)
{
	char *text = render(r, "json");
	json_object *o = text ? json_tokener_parse(text) : NULL;

	free(text);
	return o;
}

static json_object *
get(json_object *o, const char *key)
{
	json_object *v = NULL;

	json_object_object_get_ex(o, key, &v);
	return v;
}

/* The entry of array A named NAME, or NULL. */
static json_object *
entry(json_object *a, const char *name)
{
	for (size_t i = 0; a && i < json_object_array_length(a); i++) {
		json_object *e = json_object_array_get_idx(a, i);

		if (strcmp(json_object_get_string(get(e, "name")), name) == 0)
			return e;
	}
	return NULL;
}

static uint64_t
samples_of(json_object *a, const char *name)
{
	json_object *e = entry(a, name);

	return e ? (uint64_t)json_object_get_int64(get(e, "samples")) : 0;
}

static double
percent_of(json_object *a, const char *name)
{
	json_object *e = entry(a, name);

	return e ? json_object_get_double(get(e, "percent")) : -1;
}

/* ---------------------------------------------------------------- cases */

static int
folded_lines_root_first(void)
{
	struct report r;
	char *text;
	const char *want = "[unknown] 5\n"
			   "fx_main;[unknown] 15\n"
			   "fx_main;fx_caller_a;fx_leaf;fx_helper_[i] 300\n"
			   "fx_main;fx_caller_b;fx_leaf 100\n"
			   "fx_main;fx_rec;fx_rec;fx_rec 50\n"
			   "fx_main;memcpy 20\n"
			   "fx_main;odd:name x</script>\xe2\x80\xa8 10\n";

	build_report(&r);
	text = render(&r, "folded");
	CHECK(text && strcmp(text, want) == 0);
	if (text && strcmp(text, want) != 0)
		fprintf(stderr, "folded:\n%s", text);
	free(text);
	/* without stacks: the functions alone */
	r.stacks.present = false;
	text = render(&r, "folded");
	CHECK(text && strcmp(text, "fx_leaf 400\nfx_rec 50\n") == 0);
	free(text);
	CHECK_DONE();
}

static int
callers_and_callees_shares(void)
{
	struct report r;
	json_object *o, *c;

	build_report(&r);
	opts.callers = "fx_leaf";
	opts.callees = "fx_rec";
	opts.format = "json";
	o = render_json(&r);
	CHECK(o != NULL);
	c = get(o, "callers");
	CHECK_EQ(json_object_get_int64(get(c, "inclusive")), 400);
	c = get(c, "callers");
	CHECK_EQ(samples_of(c, "fx_caller_a"), 300);
	CHECK_EQ(samples_of(c, "fx_caller_b"), 100);
	CHECK(percent_of(c, "fx_caller_a") == 75.0);
	CHECK(percent_of(c, "fx_caller_b") == 25.0);
	/* recursion counts a stack once: fx_rec is on 50 samples' stacks */
	c = get(o, "callees");
	CHECK_EQ(json_object_get_int64(get(c, "inclusive")), 50);
	c = get(c, "callees");
	CHECK_EQ(samples_of(c, "fx_rec"), 50);
	CHECK_EQ(samples_of(c, "[self]"), 50);
	CHECK(percent_of(c, "fx_rec") == 100.0);
	json_object_put(o);
	/* the inlined helper is the leaf's callee; the rest is its own */
	opts.callers = NULL;
	opts.callees = "fx_leaf";
	o = render_json(&r);
	c = get(get(o, "callees"), "callees");
	CHECK(percent_of(c, "fx_helper") == 75.0);
	CHECK(percent_of(c, "[self]") == 25.0);
	json_object_put(o);
	CHECK_DONE();
}

static int
call_graph_by_inclusive(void)
{
	struct report r;
	json_object *o, *g;
	char *text;

	build_report(&r);
	opts.call_graph = true;
	opts.format = "json";
	o = render_json(&r);
	g = get(o, "call_graph");
	CHECK(g && json_object_array_length(g) == NFNS);
	CHECK(strcmp(json_object_get_string(
			     get(json_object_array_get_idx(g, 0), "name")),
		     "fx_main") == 0);
	CHECK_EQ(json_object_get_int64(
			 get(json_object_array_get_idx(g, 0), "inclusive")),
		 495);
	CHECK_EQ(samples_of(get(entry(g, "fx_leaf"), "callers"), "fx_caller_a"),
		 300);
	CHECK_EQ(samples_of(get(entry(g, "fx_caller_a"), "callees"), "fx_leaf"),
		 300);
	json_object_put(o);
	opts.format = "text";
	text = render(&r, "text");
	CHECK(text && strstr(text, "call graph: 500 samples with a stack"));
	CHECK(text && strstr(text, "\n          75.00                300       "
				   "          fx_caller_a [4]\n"));
	CHECK(text && strstr(text, "\n[2]       80.00   20.00        400     "
				   "   100  fx_leaf\n"));
	free(text);
	CHECK_DONE();
}

static int
views_refused_without_stacks_or_function(void)
{
	struct report r;
	char *text;

	build_report(&r);
	opts.callers = "no_such_function";
	CHECK(render(&r, "text") == NULL);
	opts.callers = "fx_leaf";
	text = render(&r, "text");
	CHECK(text && strstr(text, "callers of fx_leaf: 400 samples"));
	CHECK(text && strstr(text, "  75.00        300  fx_caller_a\n"));
	free(text);
	r.stacks.present = false;
	CHECK(render(&r, "text") == NULL);
	opts.callers = NULL;
	opts.call_graph = true;
	CHECK(render(&r, "json") == NULL);
	CHECK_DONE();
}

static int
inclusive_columns_only_with_stacks(void)
{
	struct report r;
	json_object *o, *f;
	char *text;

	build_report(&r);
	o = render_json(&r);
	f = get(o, "functions");
	CHECK_EQ(json_object_get_int64(get(entry(f, "fx_main"), "inclusive")),
		 500);
	CHECK(json_object_get_double(
		      get(entry(f, "fx_leaf"), "inclusive_percent")) == 80.0);
	json_object_put(o);
	text = render(&r, "csv");
	CHECK(text && strstr(text, ",inclusive,inclusive_percent\r\n"));
	CHECK(text && strstr(text, ",500,100.00\r\n"));
	free(text);
	text = render(&r, "markdown");
	CHECK(text && strstr(text, "| % | total % | samples |"));
	free(text);
	text = render(&r, "text");
	CHECK(text && strstr(text, "  total    samples"));
	free(text);
	r.stacks.present = false;
	o = render_json(&r);
	CHECK(get(json_object_array_get_idx(get(o, "functions"), 0),
		  "inclusive") == NULL);
	json_object_put(o);
	text = render(&r, "csv");
	CHECK(text && !strstr(text, "inclusive"));
	free(text);
	CHECK_DONE();
}

/* The call arcs of gmon.out bytes G (N of them): tag 1 records after the
 * histogram records. */
struct arc {
	uint64_t from, self;
	int32_t count;
};

static size_t
parse_arcs(const uint8_t *g, size_t len, struct arc *out, size_t max)
{
	size_t off = 20, n = 0;
	int32_t bins;

	while (off < len) {
		if (g[off] == 0 && off + 41 <= len) {
			memcpy(&bins, g + off + 17, 4);
			off += 41 + 2 * (size_t)bins;
		} else if (g[off] == 1 && off + 21 <= len && n < max) {
			memcpy(&out[n].from, g + off + 1, 8);
			memcpy(&out[n].self, g + off + 9, 8);
			memcpy(&out[n].count, g + off + 17, 4);
			n++;
			off += 21;
		} else {
			return SIZE_MAX; /* damaged */
		}
	}
	return n;
}

static int32_t
arc_count(const struct arc *v, size_t n, uint64_t from, uint64_t self)
{
	for (size_t i = 0; i < n; i++)
		if (v[i].from == from && v[i].self == self)
			return v[i].count;
	return -1;
}

static int
gmon_arcs_of_adjacent_main_frames(void)
{
	struct report r;
	char *g = NULL;
	size_t len = 0, n;
	struct arc v[32];
	FILE *mem = open_memstream(&g, &len);

	build_report(&r);
	CHECK(report_write(&r, "gmon", mem) == 0);
	fclose(mem);
	n = parse_arcs((const uint8_t *)g, len, v, 32);
	CHECK(len > 20 && memcmp(g, "gmon\1\0\0\0", 8) == 0);
	CHECK_EQ(n, 7);
	/* from the caller's frame to the callee's entry */
	CHECK_EQ(arc_count(v, n, fns[F_A].addr + 4, fns[F_LEAF].addr), 300);
	CHECK_EQ(arc_count(v, n, fns[F_B].addr + 4, fns[F_LEAF].addr), 100);
	CHECK_EQ(arc_count(v, n, fns[F_MAIN].addr + 4, fns[F_A].addr), 300);
	CHECK_EQ(arc_count(v, n, fns[F_MAIN].addr + 8, fns[F_B].addr), 100);
	CHECK_EQ(arc_count(v, n, fns[F_MAIN].addr + 12, fns[F_REC].addr), 50);
	/* recursion: once per stack */
	CHECK_EQ(arc_count(v, n, fns[F_REC].addr + 6, fns[F_REC].addr), 50);
	CHECK_EQ(arc_count(v, n, fns[F_MAIN].addr + 20, fns[F_ODD].addr), 10);
	free(g);
	CHECK_DONE();
}

/* ------------------------------------------------- any report_stacks */

/* A stack of N frames of distinct functions "deep_I", the leaf first. */
static void
deep_stacks(struct report_stacks *s, size_t n)
{
	static struct stack_trace t;

	memset(s, 0, sizeof(*s));
	s->present = true;
	s->fns = calloc(n, sizeof(*s->fns));
	s->frames = calloc(n, sizeof(*s->frames));
	for (size_t i = 0; i < n; i++) {
		if (asprintf(&s->fns[i].name, "deep_%zu", i) < 0)
			exit(1);
		s->fns[i].module = exe;
		s->fns[i].main = true;
		s->fns[i].addr = 0x1000 + 16 * i;
		s->frames[i] = (struct stack_frame){(uint32_t)i, false,
						    0x1004 + 16 * i, NULL, 0};
	}
	t = (struct stack_trace){0, (uint32_t)n, STACK_TRUNCATED, 7};
	s->nfns = s->nframes = n;
	s->traces = &t;
	s->ntraces = 1;
	s->samples = s->stacks = s->truncated = 7;
}

/* NT stacks of 24 frames each over 2000 functions, pseudo-random, 8
 * samples each: a large profile for the page. */
static void
big_stacks(struct report_stacks *s, size_t nt)
{
	size_t nf = 2000, depth = 24, i, k;
	uint64_t x = 88172645463325252ull;

	deep_stacks(s, nf);
	free(s->frames);
	s->frames = calloc(nt * depth, sizeof(*s->frames));
	s->traces = calloc(nt, sizeof(*s->traces));
	for (i = 0; i < nt; i++) {
		for (k = 0; k < depth; k++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			/* one root, a little more choice at each level */
			s->frames[i * depth + depth - 1 - k].fn =
				(uint32_t)(k * 80 + x % (1 + k / 3));
		}
		s->traces[i] = (struct stack_trace){(uint32_t)(i * depth),
						    (uint32_t)depth, 0, 8};
	}
	s->nframes = nt * depth;
	s->ntraces = nt;
	s->samples = s->stacks = 8 * nt;
	s->truncated = 0;
}

static void
deep_fini(struct report_stacks *s)
{
	for (size_t i = 0; i < s->nfns; i++)
		free(s->fns[i].name);
	free(s->fns);
	free(s->frames);
}

static const char *const every_format[] = {
	"text", "json", "csv", "markdown", "folded", "html", "pprof", "gmon"};

static int
writers_take_empty_deep_and_broken_stacks(void)
{
	struct report r;
	struct report_stacks keep;
	char *text;
	size_t i, semis = 0;

	build_report(&r);
	keep = r.stacks;
	r.stacks.ntraces = 0; /* stacks recorded, none unwound */
	for (i = 0; i < sizeof(every_format) / sizeof(*every_format); i++) {
		text = render(&r, every_format[i]);
		CHECK(text != NULL);
		free(text);
	}
	text = render(&r, "folded");
	CHECK(text && text[0] == '\0');
	free(text);
	deep_stacks(&r.stacks, 1000);
	opts.call_graph = true;
	for (i = 0; i < sizeof(every_format) / sizeof(*every_format); i++) {
		opts.format = every_format[i];
		if (strcmp(every_format[i], "text") &&
		    strcmp(every_format[i], "json"))
			opts.call_graph = false;
		text = render(&r, every_format[i]);
		CHECK(text != NULL);
		free(text);
	}
	text = render(&r, "folded");
	for (i = 0; text && text[i]; i++)
		semis += text[i] == ';';
	CHECK_EQ(semis, 999);
	CHECK(text && strncmp(text, "deep_999;deep_998;", 18) == 0);
	free(text);
	deep_fini(&r.stacks);
	/* frames and traces pointing past the arrays, unknown functions */
	r.stacks = keep;
	frames[0].fn = 9999;
	traces[1].n = 1u << 30;
	traces[2].first = 1u << 30;
	for (i = 0; i < sizeof(every_format) / sizeof(*every_format); i++) {
		text = render(&r, every_format[i]);
		CHECK(text != NULL);
		free(text);
	}
	CHECK_DONE();
}

/* The JSON report of R into PATH. */
static void
json_file(const struct report *r, const char *path)
{
	FILE *f = fopen(path, "w");

	CHECK(f && report_write(r, "json", f) == 0);
	if (f)
		fclose(f);
}

static int
diff_inclusive_compares_total_shares(void)
{
	char base[] = "/tmp/unit-stacks-XXXXXX", a[64], b[64];
	struct diff_opts o = {.format = "text",
			      .threshold = 1,
			      .confidence = 99,
			      .inclusive = true};
	struct diff d = {.opts = &o};
	struct report r;
	size_t i;

	CHECK(mkdtemp(base) != NULL);
	snprintf(a, sizeof(a), "%s/a.json", base);
	snprintf(b, sizeof(b), "%s/b.json", base);
	build_report(&r);
	json_file(&r, a);
	/* NEW: fx_main's inclusive share falls from 100% to 50% while its
	 * self share stays 0 */
	funcs[2].inclusive = 250;
	json_file(&r, b);
	CHECK(diff_side_load(&d.base, a, &o) == 0);
	CHECK(diff_side_load(&d.new, b, &o) == 0);
	CHECK(diff_compute(&d) == 0);
	for (i = 0; i < d.nrows; i++)
		if (strcmp(d.rows[i].name, "fx_main") == 0) {
			CHECK(d.rows[i].base_pct == 100.0);
			CHECK(d.rows[i].new_pct == 50.0);
			CHECK(d.rows[i].status == DIFF_IMPROVEMENT);
		}
	CHECK_EQ(d.improvements, 1);
	diff_fini(&d);
	/* a report without stacks has no inclusive counts */
	r.stacks.present = false;
	json_file(&r, b);
	d = (struct diff){.opts = &o};
	CHECK(diff_side_load(&d.new, b, &o) != 0);
	unlink(a);
	unlink(b);
	rmdir(base);
	CHECK_DONE();
}

/* ----------------------------------------------------------- exports */

static int
write_file(const struct report *r, const char *format, const char *dir,
	   const char *name)
{
	char path[4096];
	FILE *f;
	int ret;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f)
		return -1;
	ret = report_write(r, format, f);
	return fclose(f) || ret ? -1 : 0;
}

/* The exports tests/stacks_formats.py checks with other programs. */
static int
write_exports(const char *dir)
{
	struct report r;
	int ret = 0;

	build_report(&r);
	ret |= write_file(&r, "pprof", dir, "stacks.pb.gz");
	ret |= write_file(&r, "gmon", dir, "gmon.out");
	ret |= write_file(&r, "html", dir, "flame.html");
	ret |= write_file(&r, "folded", dir, "stacks.folded");
	r.stacks.ntraces = 0;
	ret |= write_file(&r, "html", dir, "empty.html");
	deep_stacks(&r.stacks, 1000);
	ret |= write_file(&r, "html", dir, "deep.html");
	deep_fini(&r.stacks);
	big_stacks(&r.stacks, 50000);
	ret |= write_file(&r, "html", dir, "big.html");
	free(r.stacks.traces);
	deep_fini(&r.stacks);
	return ret ? 1 : 0;
}

static const struct {
	const char *name;
	int (*fn)(void);
} cases[] = {
	{"folded-lines-root-first", folded_lines_root_first},
	{"callers-and-callees-shares", callers_and_callees_shares},
	{"call-graph-by-inclusive", call_graph_by_inclusive},
	{"views-refused-without-stacks-or-function",
	 views_refused_without_stacks_or_function},
	{"inclusive-columns-only-with-stacks",
	 inclusive_columns_only_with_stacks},
	{"gmon-arcs-of-adjacent-main-frames",
	 gmon_arcs_of_adjacent_main_frames},
	{"writers-take-empty-deep-and-broken-stacks",
	 writers_take_empty_deep_and_broken_stacks},
	{"diff-inclusive-compares-total-shares",
	 diff_inclusive_compares_total_shares},
};

int
main(int argc, char **argv)
{
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n <= 0)
		return 1;
	exe[n] = '\0';
	if (argc == 3 && strcmp(argv[1], "write") == 0)
		return write_exports(argv[2]);
	for (size_t i = 0; argc == 2 && i < sizeof(cases) / sizeof(*cases); i++)
		if (strcmp(argv[1], cases[i].name) == 0)
			return cases[i].fn();
	fprintf(stderr, "usage: unit-stacks CASE | write DIR\n");
	return 2;
}

/* SPDX-License-Identifier: MIT */
/*
 * pprof export: a gzipped profile.proto (github.com/google/pprof,
 * proto/profile.proto) that pprof, go tool pprof, Grafana Pyroscope and
 * Parca read.
 *
 * Sample types samples/count and cpu/nanoseconds, period type
 * cpu/nanoseconds with period 1e9 / rate (wall/nanoseconds for a wall
 * profile, profrun --wall).  One mapping per executable
 * image (runtime text range, file offset, path, build-id), one location
 * per sampled bucket (its runtime address, function and source line), one
 * function per (name, file).  Each shared library and the vdso is a
 * mapping too (its executable range as the first process that sampled it
 * had it loaded), one location per sampled PC; what no module holds is one
 * location without a mapping, "[unknown]" (with --main-only, all outside
 * samples are, as "[outside the executable]"), so pprof's shares are
 * profrun's.  No timestamps: the same profile gives the same bytes.
 *
 * With stacks (profrun -g) the samples are the stacks instead: one sample
 * per distinct stack, its locations leaf first, one location per physical
 * frame (its runtime address in its module's mapping; a module the
 * histogram never sampled gets a mapping from the module records), the
 * functions inlined there as further lines, innermost first.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "formats.h"
#include "file.h"
#include "image.h"
#include "outside.h"
#include "pprof-encode.h"
#include "stack-graph.h"
#include "strmap.h"

/* profile.proto field numbers */
enum {
	PROFILE_SAMPLE_TYPE = 1,
	PROFILE_SAMPLE = 2,
	PROFILE_MAPPING = 3,
	PROFILE_LOCATION = 4,
	PROFILE_FUNCTION = 5,
	PROFILE_STRINGS = 6,
	PROFILE_PERIOD_TYPE = 11,
	PROFILE_PERIOD = 12,
	VALUETYPE_TYPE = 1,
	VALUETYPE_UNIT = 2,
	SAMPLE_LOCATION = 1,
	SAMPLE_VALUE = 2,
	MAPPING_ID = 1,
	MAPPING_START = 2,
	MAPPING_LIMIT = 3,
	MAPPING_OFFSET = 4,
	MAPPING_FILENAME = 5,
	MAPPING_BUILD_ID = 6,
	MAPPING_HAS_FUNCTIONS = 7,
	MAPPING_HAS_FILENAMES = 8,
	MAPPING_HAS_LINES = 9,
	LOCATION_ID = 1,
	LOCATION_MAPPING = 2,
	LOCATION_ADDRESS = 3,
	LOCATION_LINE = 4,
	LINE_FUNCTION = 1,
	LINE_LINE = 2,
	FUNCTION_ID = 1,
	FUNCTION_NAME = 2,
	FUNCTION_SYSTEM_NAME = 3,
	FUNCTION_FILENAME = 4,
	FUNCTION_START_LINE = 5,
};

struct pprof {
	const struct report *r;
	struct symbolizer *sz;
	struct strtab strings;
	struct strtab fkeys; /* "name\1file" of each function, index = id */
	struct pbuf samples, mappings, locations, functions;
	uint64_t period;
	uint64_t nlocations;
	int err;
	/* every mapping written: file, id (0: none found), load bias */
	struct map_ref {
		const char *file;
		uint64_t id, bias;
	} * maps;
	size_t nmaps;
	uint64_t next_map;   /* id of the next mapping */
	struct strmap lkeys; /* with stacks: "fn:address" -> location id */
	bool *fn_done;	     /* with stacks: function fn + 1 written */
	uint64_t *ids;	     /* one sample's location ids */
	size_t nids;
	uint64_t unknown_location; /* with stacks: of stacks of no frame */
};

/* File offset of link-time ADDR in EXE's loadable segments, or 0. */
static uint64_t
file_offset(const char *exe, uint64_t addr)
{
	int fd = cli_open_target(exe);
	uint64_t off = 0;
	GElf_Phdr ph;
	size_t i, n;
	Elf *elf;

	if (fd < 0)
		return 0;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (elf && elf_getphdrnum(elf, &n) == 0) {
		for (i = 0; i < n; i++) {
			if (!gelf_getphdr(elf, (int)i, &ph) ||
			    ph.p_type != PT_LOAD || addr < ph.p_vaddr ||
			    addr >= ph.p_vaddr + ph.p_memsz)
				continue;
			off = addr - ph.p_vaddr + ph.p_offset;
			break;
		}
	}
	elf_end(elf);
	close(fd);
	return off;
}

static void
value_type(struct pprof *pp, struct pbuf *b, int num, const char *type,
	   const char *unit)
{
	struct pbuf v = {0};

	pb_uint(&v, VALUETYPE_TYPE, strtab_index(&pp->strings, type));
	pb_uint(&v, VALUETYPE_UNIT, strtab_index(&pp->strings, unit));
	pb_message(b, num, &v);
	pbuf_fini(&v);
}

/* The id of function (NAME, FILE), added on first use. */
static uint64_t
function_id(struct pprof *pp, const struct func *f)
{
	struct pbuf b = {0};
	size_t before = pp->fkeys.n;
	uint64_t id;
	char *key;

	if (asprintf(&key, "%s\1%s", f->name, f->file ? f->file : "") < 0) {
		pp->err = -1;
		return 0;
	}
	id = strtab_index(&pp->fkeys, key);
	free(key);
	if (pp->fkeys.n == before)
		return id;
	pb_uint(&b, FUNCTION_ID, id);
	pb_uint(&b, FUNCTION_NAME, strtab_index(&pp->strings, f->name));
	pb_uint(&b, FUNCTION_SYSTEM_NAME,
		strtab_index(&pp->strings, f->symbol));
	if (f->file)
		pb_uint(&b, FUNCTION_FILENAME,
			strtab_index(&pp->strings, f->file));
	pb_uint(&b, FUNCTION_START_LINE, f->file && f->line > 0 ? f->line : 0);
	pb_message(&pp->functions, PROFILE_FUNCTION, &b);
	pbuf_fini(&b);
	return id;
}

/* A sample of COUNT at the N LOCATIONS, leaf first. */
static void
add_sample(struct pprof *pp, const uint64_t *locations, size_t n,
	   uint64_t count)
{
	struct pbuf b = {0};
	uint64_t values[2] = {count, count * pp->period};

	pb_packed(&b, SAMPLE_LOCATION, locations, n);
	pb_packed(&b, SAMPLE_VALUE, values, 2);
	pb_message(&pp->samples, PROFILE_SAMPLE, &b);
	pbuf_fini(&b);
}

/* A location at runtime ADDRESS in MAPPING (0: none) for function F at
 * LINE; returns its id. */
static uint64_t
add_location(struct pprof *pp, uint64_t mapping, uint64_t address,
	     const struct func *f, int line)
{
	struct pbuf b = {0}, l = {0};
	uint64_t id = ++pp->nlocations;

	pb_uint(&l, LINE_FUNCTION, function_id(pp, f));
	pb_uint(&l, LINE_LINE, line > 0 ? (uint64_t)line : 0);
	pb_uint(&b, LOCATION_ID, id);
	pb_uint(&b, LOCATION_MAPPING, mapping);
	pb_uint(&b, LOCATION_ADDRESS, address);
	pb_message(&b, LOCATION_LINE, &l);
	pb_message(&pp->locations, PROFILE_LOCATION, &b);
	pbuf_fini(&l);
	pbuf_fini(&b);
	return id;
}

/* The line of link-time ADDR when it lies in F's own file (an address of
 * inlined code in another file gets F's first line). */
static int
location_line(struct pprof *pp, const struct profile *p, const struct func *f,
	      uint64_t addr)
{
	char *file;
	int line;

	if (!f->file)
		return 0;
	if (symbolize_source(pp->sz, p, addr, &file, &line)) {
		pp->err = -1;
		return 0;
	}
	if (!file || strcmp(file, f->file) != 0)
		line = f->line;
	free(file);
	return line;
}

/* Mapping ID: link-time [START, END) of FILE (build-id BUILD_ID) loaded
 * with BIAS. */
struct map {
	const char *file, *build_id;
	uint64_t start, end, bias;
	bool on_disk; /* FILE can be opened for its file offset */
};

/* Remember mapping ID of FILE (0: FILE has none) with load BIAS. */
static void
remember_map(struct pprof *pp, const char *file, uint64_t id, uint64_t bias)
{
	struct map_ref *v = realloc(pp->maps, (pp->nmaps + 1) * sizeof(*v));

	if (!v) {
		pp->err = -1;
		return;
	}
	v[pp->nmaps++] = (struct map_ref){file, id, bias};
	pp->maps = v;
}

static void
add_mapping(struct pprof *pp, const struct map *m, uint64_t id)
{
	struct pbuf b = {0};

	remember_map(pp, m->file, id, m->bias);
	pb_uint(&b, MAPPING_ID, id);
	pb_uint(&b, MAPPING_START, m->start + m->bias);
	pb_uint(&b, MAPPING_LIMIT, m->end + m->bias);
	pb_uint(&b, MAPPING_OFFSET,
		m->on_disk ? file_offset(m->file, m->start) : 0);
	pb_uint(&b, MAPPING_FILENAME, strtab_index(&pp->strings, m->file));
	pb_uint(&b, MAPPING_BUILD_ID, strtab_index(&pp->strings, m->build_id));
	pb_uint(&b, MAPPING_HAS_FUNCTIONS, 1);
	pb_uint(&b, MAPPING_HAS_FILENAMES, 1);
	pb_uint(&b, MAPPING_HAS_LINES, 1);
	pb_message(&pp->mappings, PROFILE_MAPPING, &b);
	pbuf_fini(&b);
}

static struct map
image_map(const struct image *im)
{
	const struct profrun_header *h = &im->ref->hdr;

	return (struct map){im->ref->exe, im->ref->build_id, h->text_start,
			    h->text_end,  h->load_bias,	     true};
}

static struct map
lib_map(const struct lib *l)
{
	return (struct map){
		l->obj.name,	  l->obj.build_id, l->start - l->bias,
		l->end - l->bias, l->bias,	   !l->obj.image};
}

/* One location and sample per sampled bucket of IM.  symbolize() emits
 * its entries in address order, each covering consecutive samples, so
 * replaying the counts pairs every bucket with its function. */
static int
add_image(struct pprof *pp, const struct image *im, uint64_t mapping)
{
	struct func_list funcs = {0};
	const struct profile_sample *s;
	uint64_t left = 0, loc;
	size_t i, k = 0;

	struct map m = image_map(im);

	add_mapping(pp, &m, mapping);
	if (symbolize(pp->sz, im->ref, im->samples, im->n, &funcs, NULL))
		return -1;
	for (i = 0; i < im->n && pp->err == 0; i++) {
		s = &im->samples[i];
		if (left == 0)
			left = funcs.v[k++].samples;
		left -= s->count;
		loc = add_location(
			pp, mapping, s->addr + im->ref->hdr.load_bias,
			&funcs.v[k - 1],
			location_line(pp, im->ref, &funcs.v[k - 1], s->addr));
		add_sample(pp, &loc, 1, s->count);
	}
	func_list_fini(&funcs);
	return pp->err;
}

/* One location and sample per sampled PC of library L, in mapping ID. */
static int
add_lib(struct pprof *pp, struct lib *l, uint64_t id)
{
	struct func_list funcs = {0};
	struct map m = lib_map(l);
	uint64_t left = 0, loc;
	size_t i, k = 0;

	add_mapping(pp, &m, id);
	l->n = samples_sum_sorted(l->samples, l->n);
	if (symbolize_object(pp->sz, &l->obj, l->samples, l->n, &funcs, NULL))
		return -1;
	for (i = 0; i < l->n; i++) {
		if (left == 0)
			left = funcs.v[k++].samples;
		left -= l->samples[i].count;
		loc = add_location(pp, id, l->samples[i].addr + l->bias,
				   &funcs.v[k - 1], funcs.v[k - 1].line);
		add_sample(pp, &loc, 1, l->samples[i].count);
	}
	func_list_fini(&funcs);
	return 0;
}

/* A location without a mapping for N samples. */
static void
add_unmapped(struct pprof *pp, const char *name, uint64_t n)
{
	struct func f = {.name = (char *)name, .symbol = (char *)name};

	uint64_t loc;

	if (n > 0) {
		loc = add_location(pp, 0, 0, &f, 0);
		add_sample(pp, &loc, 1, n);
	}
}

/* The samples outside the executables: a mapping per library after the
 * NEXT - 1 mappings of the executables. */
static int
add_outside(struct pprof *pp, uint64_t next)
{
	const struct report *r = pp->r;
	struct lib_set set = {0};
	size_t i;
	int ret = 0;

	if (r->opts->main_only) {
		add_unmapped(pp, "[outside the executable]", r->outside);
		return 0;
	}
	for (i = 0; i < r->nprocs && ret == 0; i++)
		ret = lib_set_add(&set, r->procs[i].p);
	for (i = 0; i < set.n && ret == 0; i++)
		ret = add_lib(pp, &set.v[i], next + i);
	if (ret == 0)
		add_unmapped(pp, OUTSIDE_UNKNOWN,
			     set.unknown + set.lost + set.unrecorded);
	lib_set_fini(&set);
	return ret;
}

/* -------------------------------------------------------------- stacks */

/* The mapping of MODULE: one written already, else one made from the
 * processes' module records; NULL when none holds it. */
static const struct map_ref *
stack_mapping(struct pprof *pp, const char *module)
{
	const struct report *r = pp->r;
	size_t i, k;

	for (i = 0; i < pp->nmaps; i++)
		if (strcmp(pp->maps[i].file, module) == 0)
			return pp->maps[i].id ? &pp->maps[i] : NULL;
	for (i = 0; i < r->nprocs; i++)
		for (k = 0; k < r->procs[i].p->nmodules; k++) {
			const struct profile_module *m =
				&r->procs[i].p->modules[k];
			struct map mm = {m->path,
					 m->build_id,
					 m->start - m->bias,
					 m->end - m->bias,
					 m->bias,
					 true};

			if (strcmp(m->path, module) != 0)
				continue;
			add_mapping(pp, &mm, pp->next_map++);
			return pp->err ? NULL : &pp->maps[pp->nmaps - 1];
		}
	remember_map(pp, module, 0, 0);
	return NULL;
}

/* The id of the stacks' function FN (FN + 1), written on first use with
 * the source file of frame F. */
static uint64_t
stack_function(struct pprof *pp, const struct stack_frame *f)
{
	const struct stack_fn *fn = &pp->r->stacks.fns[f->fn];
	const char *name = fn->name && fn->name[0] ? fn->name : "[unknown]";
	struct pbuf b = {0};

	if (pp->fn_done[f->fn])
		return f->fn + 1;
	pp->fn_done[f->fn] = true;
	pb_uint(&b, FUNCTION_ID, f->fn + 1);
	pb_uint(&b, FUNCTION_NAME, strtab_index(&pp->strings, name));
	pb_uint(&b, FUNCTION_SYSTEM_NAME,
		strtab_index(&pp->strings, fn->symbol ? fn->symbol : name));
	if (f->file)
		pb_uint(&b, FUNCTION_FILENAME,
			strtab_index(&pp->strings, f->file));
	pb_message(&pp->functions, PROFILE_FUNCTION, &b);
	pbuf_fini(&b);
	return f->fn + 1;
}

/* The location of the physical frame FRAMES[FIRST .. LAST] (innermost
 * first, LAST not inlined): one line per frame, innermost first. */
static uint64_t
stack_location(struct pprof *pp, size_t first, size_t last)
{
	const struct report_stacks *s = &pp->r->stacks;
	const struct stack_frame *outer = &s->frames[last];
	const struct map_ref *m;
	struct pbuf b = {0}, l;
	struct strmap_slot *slot;
	char key[48];

	snprintf(key, sizeof(key), "%" PRIu32 ":%" PRIx64, outer->fn,
		 outer->addr);
	if (!(slot = strmap_get(&pp->lkeys, key))) {
		pp->err = -1;
		return 0;
	}
	if (slot->value)
		return (uint64_t)(uintptr_t)slot->value;
	slot->value = (void *)(uintptr_t)++pp->nlocations;
	m = stack_mapping(
		pp, s->fns[outer->fn].module ? s->fns[outer->fn].module : "");
	pb_uint(&b, LOCATION_ID, pp->nlocations);
	pb_uint(&b, LOCATION_MAPPING, m ? m->id : 0);
	pb_uint(&b, LOCATION_ADDRESS, outer->addr + (m ? m->bias : 0));
	for (size_t i = first; i <= last; i++) {
		if (s->frames[i].fn >= s->nfns)
			continue;
		memset(&l, 0, sizeof(l));
		pb_uint(&l, LINE_FUNCTION, stack_function(pp, &s->frames[i]));
		pb_uint(&l, LINE_LINE, s->frames[i].line);
		pb_message(&b, LOCATION_LINE, &l);
		pbuf_fini(&l);
	}
	pb_message(&pp->locations, PROFILE_LOCATION, &b);
	pbuf_fini(&b);
	return pp->nlocations;
}

/* The location of stacks without a known frame: function "[unknown]"
 * (id: the stacks' functions + 1), made on first use. */
static uint64_t
stack_unknown(struct pprof *pp)
{
	uint64_t fn = pp->r->stacks.nfns + 1;
	struct pbuf b = {0}, l = {0};

	if (pp->unknown_location)
		return pp->unknown_location;
	pb_uint(&b, FUNCTION_ID, fn);
	pb_uint(&b, FUNCTION_NAME, strtab_index(&pp->strings, OUTSIDE_UNKNOWN));
	pb_uint(&b, FUNCTION_SYSTEM_NAME,
		strtab_index(&pp->strings, OUTSIDE_UNKNOWN));
	pb_message(&pp->functions, PROFILE_FUNCTION, &b);
	pbuf_fini(&b);
	pb_uint(&l, LINE_FUNCTION, fn);
	pb_uint(&b, LOCATION_ID, ++pp->nlocations);
	pb_message(&b, LOCATION_LINE, &l);
	pb_message(&pp->locations, PROFILE_LOCATION, &b);
	pbuf_fini(&l);
	pbuf_fini(&b);
	return pp->unknown_location = pp->nlocations;
}

/* One sample for trace T, of COUNT samples: a location per physical
 * frame, leaf first. */
static void
stack_sample(struct pprof *pp, const struct stack_trace *t, uint64_t count)
{
	const struct report_stacks *s = &pp->r->stacks;
	size_t first, i, last, n = 0, end;
	uint64_t *ids;

	stack_trace_span(s, t, &first, &end);
	if (end - first > pp->nids) {
		ids = realloc(pp->ids, (end - first) * sizeof(*ids));
		if (!ids) {
			pp->err = -1;
			return;
		}
		pp->ids = ids;
		pp->nids = end - first;
	}
	for (i = first; i < end && pp->err == 0; i = last + 1) {
		for (last = i; last + 1 < end && s->frames[last].inlined;)
			last++;
		if (s->frames[last].fn < s->nfns)
			pp->ids[n++] = stack_location(pp, i, last);
	}
	if (n == 0) {
		uint64_t loc = stack_unknown(pp);

		add_sample(pp, &loc, 1, count);
	} else {
		add_sample(pp, pp->ids, n, count);
	}
}

struct remainder {
	double frac;
	size_t i;
};

static int
cmp_remainder(const void *a, const void *b)
{
	const struct remainder *x = a, *y = b;

	if (x->frac != y->frac)
		return x->frac < y->frac ? 1 : -1;
	return (x->i > y->i) - (x->i < y->i);
}

/* The samples each of S's traces stands for, scaled from the stacks to
 * all TOTAL samples (the stacks are a sample of them: a reservoir, or
 * processes recorded without -g) by largest remainders, so that the
 * profile's total is the report's exactly.  NULL when out of memory. */
static uint64_t *
scaled_counts(const struct report_stacks *s, uint64_t total)
{
	size_t n = s->ntraces ? s->ntraces : 1;
	uint64_t *v = calloc(n, sizeof(*v)), sum = 0, stacks = 0;
	struct remainder *rem = calloc(n, sizeof(*rem));

	if (!v || !rem) {
		free(v);
		free(rem);
		return NULL;
	}
	for (size_t i = 0; i < s->ntraces; i++)
		stacks += s->traces[i].count;
	for (size_t i = 0; i < s->ntraces; i++) {
		double x = stacks && total > stacks
				   ? (double)s->traces[i].count *
					     (double)total / (double)stacks
				   : (double)s->traces[i].count;

		v[i] = (uint64_t)x;
		rem[i] = (struct remainder){x - (double)v[i], i};
		sum += v[i];
	}
	if (total > stacks && sum < total) {
		/* what rounding down left, to the largest remainders */
		qsort(rem, s->ntraces, sizeof(*rem), cmp_remainder);
		for (size_t k = 0; k < s->ntraces && sum < total; k++, sum++)
			v[rem[k].i]++;
	}
	free(rem);
	return v;
}

/* The mappings of the executables and of the libraries with samples,
 * then a sample per stack. */
static int
add_stacks(struct pprof *pp, const struct image_set *set)
{
	const struct report *r = pp->r;
	const struct report_stacks *s = &r->stacks;
	struct lib_set libs = {0};
	uint64_t *counts;
	struct map m;
	size_t i;
	int ret = 0;

	for (i = 0; i < set->n; i++) {
		m = image_map(&set->v[i]);
		add_mapping(pp, &m, i + 1);
	}
	for (i = 0; i < r->nprocs && ret == 0; i++)
		ret = lib_set_add(&libs, r->procs[i].p);
	for (i = 0; i < libs.n && ret == 0; i++) {
		m = lib_map(&libs.v[i]);
		add_mapping(pp, &m, set->n + 1 + i);
	}
	pp->next_map = set->n + libs.n + 1;
	lib_set_fini(&libs);
	pp->fn_done = calloc(s->nfns ? s->nfns : 1, sizeof(*pp->fn_done));
	counts = ret ? NULL : scaled_counts(s, r->total);
	if (ret || !pp->fn_done || !counts) {
		free(counts);
		return -1;
	}
	for (i = 0; i < s->ntraces && pp->err == 0; i++)
		if (counts[i] > 0)
			stack_sample(pp, &s->traces[i], counts[i]);
	free(counts);
	return pp->err;
}

/* The Profile message, fields in number order. */
static void
encode(struct pprof *pp, struct pbuf *out)
{
	struct pbuf head = {0}, tail = {0};
	/* a wall profile's samples are of running and blocked threads */
	const char *clock = pp->r->wall.present ? "wall" : "cpu";

	value_type(pp, &head, PROFILE_SAMPLE_TYPE, "samples", "count");
	value_type(pp, &head, PROFILE_SAMPLE_TYPE, clock, "nanoseconds");
	value_type(pp, &tail, PROFILE_PERIOD_TYPE, clock, "nanoseconds");
	pb_uint(&tail, PROFILE_PERIOD, pp->period);
	pb_append(out, &head);
	pb_append(out, &pp->samples);
	pb_append(out, &pp->mappings);
	pb_append(out, &pp->locations);
	pb_append(out, &pp->functions);
	strtab_encode(&pp->strings, out, PROFILE_STRINGS);
	pb_append(out, &tail);
	pbuf_fini(&head);
	pbuf_fini(&tail);
}

static int
pprof_build(struct pprof *pp, struct pbuf *raw)
{
	struct image_set set;
	size_t i;

	if (image_set_of_report(&set, pp->r))
		return -1;
	if (pp->r->stacks.present)
		pp->err = add_stacks(pp, &set);
	for (i = 0; i < set.n && pp->err == 0 && !pp->r->stacks.present; i++)
		pp->err = add_image(pp, &set.v[i], i + 1);
	if (pp->err == 0 && !pp->r->stacks.present &&
	    add_outside(pp, set.n + 1))
		pp->err = -1;
	image_set_fini(&set);
	if (pp->err)
		return -1;
	encode(pp, raw);
	if (raw->oom || pp->strings.oom || pp->fkeys.oom) {
		cli_error("%s: out of memory", pp->r->run->path);
		return -1;
	}
	return 0;
}

static int
export_pprof(const struct report *r, FILE *out)
{
	struct pprof pp = {.r = r};
	struct pbuf raw = {0}, gz = {0};
	struct sym_opts so;
	int ret;

	pp.period = (uint64_t)(1e9 / (r->rate_hz > 0 ? r->rate_hz : 100) + 0.5);
	strtab_init(&pp.strings);
	strtab_init(&pp.fkeys);
	so = report_sym_opts(r->opts);
	so.inlines = so.lines = false; /* one function per address */
	pp.sz = symbolizer_new(&so);
	ret = pp.sz ? pprof_build(&pp, &raw) : -1;
	if (ret == 0 && gzip_buffer(&raw, &gz)) {
		cli_error("%s: cannot compress the profile", r->run->path);
		ret = -1;
	}
	if (ret == 0)
		fwrite(gz.d, 1, gz.n, out);
	symbolizer_free(pp.sz);
	strtab_fini(&pp.strings);
	strtab_fini(&pp.fkeys);
	pbuf_fini(&pp.samples);
	pbuf_fini(&pp.mappings);
	pbuf_fini(&pp.locations);
	pbuf_fini(&pp.functions);
	free(pp.maps);
	free(pp.fn_done);
	free(pp.ids);
	strmap_fini(&pp.lkeys, NULL);
	pbuf_fini(&raw);
	pbuf_fini(&gz);
	return ret;
}

REPORT_FORMAT(pprof, "gzipped profile.proto for pprof", export_pprof, true);

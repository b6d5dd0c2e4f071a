/* SPDX-License-Identifier: MIT */
/*
 * Merging profiles.  Members are grouped by binary (build-id, else path,
 * and histogram geometry) across all inputs, and each group's counts are
 * added bucket by bucket in 64 bits, so the result is exactly the sum.
 * Headers combine: CPU times add up, the first start and last end are
 * kept, flags are or-ed, the end state is the common one (a mixture of
 * clean ends is "exited"; any run cut short makes the sum cut short).
 * Samples outside the main executables are merged per object at their
 * link-time addresses (merge/merge-outside.c).
 *
 * With --force, an input whose main binary is another build is mapped
 * onto the reference binary by function name: each of its functions'
 * samples go to the entry of the same-named function (both named by the
 * symbol table the report uses, symbols/symtab.c); samples in
 * functions the reference lacks are counted as outside its code (as
 * unknown when the merged file has a PC table).  Their
 * samples in libraries are kept like any input's; those in their own
 * binary outside its histogram count as unknown.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "image.h"
#include "member-write.h"
#include "merge.h"
#include "merge-out.h"
#include "run.h"
#include "symbolize.h"

struct merge {
	struct run *runs;
	size_t nruns;
	const struct profile *ref; /* main binary of the first input */
	const struct profile **same, **foreign;
	size_t nsame, nforeign;
	struct image_set images;
};

static int
oom(const char *path)
{
	cli_error("%s: out of memory", path);
	return -1;
}

/* The main binary of RUN: a member of its image with the most samples. */
static const struct profile *
run_main(const struct run *run)
{
	const struct profile **p = calloc(run->n, sizeof(*p));
	const struct profile *best = NULL;
	struct image_set set;
	size_t i;

	for (i = 0; p && i < run->n; i++)
		p[i] = &run->members[i];
	if (p && image_set_build(&set, p, run->n, profile_same_binary) == 0) {
		best = image_set_hottest(&set)->ref;
		image_set_fini(&set);
	}
	free(p);
	if (!best)
		cli_error("%s: out of memory", run->path);
	return best;
}

static int
refuse_other(const struct merge *m, size_t k, const struct profile *main)
{
	cli_error(
		"merge: %s: a profile of another binary (%s, build-id %s) than %s (%s, build-id %s); --force merges by function name",
		m->runs[k].path, main->exe,
		main->build_id[0] ? main->build_id : "none", m->runs[0].path,
		m->ref->exe, m->ref->build_id[0] ? m->ref->build_id : "none");
	return -1;
}

/* Sort every member into SAME or FOREIGN. */
static int
classify(struct merge *m, bool force)
{
	const struct profile *main, *p;
	size_t k, i, total = 0;
	bool other;

	for (k = 0; k < m->nruns; k++)
		total += m->runs[k].n;
	m->same = calloc(total, sizeof(*m->same));
	m->foreign = calloc(total, sizeof(*m->foreign));
	if (!m->same || !m->foreign)
		return oom(m->runs[0].path);
	for (k = 0; k < m->nruns; k++) {
		main = run_main(&m->runs[k]);
		if (!main)
			return -1;
		if (k == 0)
			m->ref = main;
		other = !profile_same_binary(main, m->ref);
		if (other && !force)
			return refuse_other(m, k, main);
		for (i = 0; i < m->runs[k].n; i++) {
			p = &m->runs[k].members[i];
			if (other && profile_same_binary(p, main))
				m->foreign[m->nforeign++] = p;
			else
				m->same[m->nsame++] = p;
		}
	}
	return 0;
}

/* The merged image of the reference binary. */
static struct image *
ref_image(struct merge *m)
{
	size_t i;

	for (i = 0; i < m->images.n; i++)
		if (profile_same_binary(m->images.v[i].ref, m->ref))
			return &m->images.v[i];
	return NULL;
}

static int
add_by_name(struct image *im, const struct func_list *funcs,
	    struct symbolizer *sz, const struct profile *ref)
{
	struct profile_sample *t;
	uint64_t addr;
	size_t i;

	t = realloc(im->samples, (im->n + funcs->n + 1) * sizeof(*t));
	if (!t)
		return oom(ref->exe);
	im->samples = t;
	for (i = 0; i < funcs->n; i++) {
		if (symbolize_entry(sz, ref, funcs->v[i].symbol, &addr))
			return -1;
		if (addr == 0) {
			im->outside += funcs->v[i].samples;
			im->unnamed += funcs->v[i].samples;
			continue;
		}
		t[im->n].addr =
			addr & ~(uint64_t)(im->ref->hdr.bucket_size - 1);
		t[im->n++].count = funcs->v[i].samples;
		im->main += funcs->v[i].samples;
	}
	im->n = samples_sum_sorted(im->samples, im->n);
	return 0;
}

/* Map the foreign members onto the reference binary by function name. */
static int
merge_foreign(struct merge *m)
{
	struct image *im = ref_image(m);
	/* raw names: they are matched against the reference's symbols */
	struct sym_opts so = {.force = true};
	struct symbolizer *sz = symbolizer_new(&so);
	struct func_list funcs = {0};
	size_t i;
	int ret = 0;

	if (!im || !sz) {
		symbolizer_free(sz);
		return oom(m->runs[0].path);
	}
	for (i = 0; ret == 0 && i < m->nforeign; i++) {
		ret = symbolize(sz, m->foreign[i], m->foreign[i]->samples,
				m->foreign[i]->nsamples, &funcs, NULL);
		im->outside += m->foreign[i]->outside;
	}
	if (ret == 0)
		ret = add_by_name(im, &funcs, sz, m->ref);
	func_list_fini(&funcs);
	symbolizer_free(sz);
	return ret;
}

/* What the inputs lack (members that could not be read, processes that
 * left none), said in one line: the merge is partial.  Returns 1 then,
 * else 0. */
static int
say_partial(const struct merge *m, const char *out)
{
	size_t skipped = 0, missing = 0;

	for (size_t k = 0; k < m->nruns; k++) {
		skipped += m->runs[k].skipped;
		missing += m->runs[k].nmissing;
	}
	if (skipped == 0 && missing == 0)
		return 0;
	cli_error(
		"merge: %s is partial: %zu member%s of the inputs could not be read, %zu process%s left no profile",
		out, skipped, skipped == 1 ? "" : "s", missing,
		missing == 1 ? "" : "es");
	return 1;
}

int
merge_profiles(char *const *paths, size_t n, const char *out, bool force)
{
	struct merge m = {0};
	size_t k;
	int ret = -1;

	m.runs = calloc(n, sizeof(*m.runs));
	if (!m.runs)
		return -1;
	for (k = 0; k < n; k++, m.nruns++)
		if (run_load(paths[k], &m.runs[k]))
			goto done;
	if (classify(&m, force))
		goto done;
	if (image_set_build(&m.images, m.same, m.nsame, profile_same_binary)) {
		oom(paths[0]);
		goto done;
	}
	if (m.nforeign > 0 && merge_foreign(&m))
		goto done;
	ret = merge_out_write(out, &m.images, m.same, m.nsame, m.foreign,
			      m.nforeign, m.ref);
	if (ret == 0)
		ret = say_partial(&m, out);
done:
	image_set_fini(&m.images);
	free(m.same);
	free(m.foreign);
	for (k = 0; k < m.nruns; k++)
		run_fini(&m.runs[k]);
	free(m.runs);
	return ret;
}

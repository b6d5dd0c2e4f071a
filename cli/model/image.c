/* SPDX-License-Identifier: MIT */
/* Grouping a run's members by executable image. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "image.h"
#include "report.h"

bool
profile_same_image(const struct profile *a, const struct profile *b)
{
	return strcmp(a->exe, b->exe) == 0 &&
	       strcmp(a->build_id, b->build_id) == 0 &&
	       a->hdr.text_start == b->hdr.text_start &&
	       a->hdr.bucket_size == b->hdr.bucket_size;
}

bool
profile_same_binary(const struct profile *a, const struct profile *b)
{
	if (a->build_id[0] || b->build_id[0]) {
		if (strcmp(a->build_id, b->build_id) != 0)
			return false;
	} else if (strcmp(a->exe, b->exe) != 0) {
		return false;
	}
	return a->hdr.text_start == b->hdr.text_start &&
	       a->hdr.text_end == b->hdr.text_end &&
	       a->hdr.bucket_size == b->hdr.bucket_size;
}

static int
cmp_sample(const void *a, const void *b)
{
	const struct profile_sample *x = a, *y = b;

	return (x->addr > y->addr) - (x->addr < y->addr);
}

size_t
samples_sum_sorted(struct profile_sample *s, size_t n)
{
	size_t i, k = 0;

	if (n > 0)
		qsort(s, n, sizeof(*s), cmp_sample);
	for (i = 0; i < n; i++) {
		if (k > 0 && s[k - 1].addr == s[i].addr)
			s[k - 1].count += s[i].count;
		else
			s[k++] = s[i];
	}
	return k;
}

int
samples_append(struct profile_sample **v, size_t *n, size_t *cap,
	       size_t *summed, const struct profile_sample *s, size_t ns)
{
	struct profile_sample *t;
	size_t want;

	if (ns == 0)
		return 0;
	if (*n - *summed > *summed + 1024) {
		*n = samples_sum_sorted(*v, *n);
		*summed = *n;
	}
	if (*n + ns > *cap) {
		want = *n + ns + (*n + ns) / 2;
		t = realloc(*v, want * sizeof(*t));
		if (!t)
			return -1;
		*v = t;
		*cap = want;
	}
	memcpy(*v + *n, s, ns * sizeof(**v));
	*n += ns;
	return 0;
}

static int
image_add(struct image *im, const struct profile *p)
{
	if (samples_append(&im->samples, &im->n, &im->cap, &im->summed,
			   p->samples, p->nsamples))
		return -1;
	im->main += p->main;
	im->outside += p->outside;
	im->members++;
	return 0;
}

/* The image of P in SET, added when new. */
static struct image *
image_find(struct image_set *set, const struct profile *p, image_same_fn *same)
{
	size_t i;

	for (i = 0; i < set->n; i++)
		if (same(set->v[i].ref, p))
			return &set->v[i];
	memset(&set->v[set->n], 0, sizeof(set->v[0]));
	set->v[set->n].ref = p;
	return &set->v[set->n++];
}

int
image_set_build(struct image_set *set, const struct profile *const *p, size_t n,
		image_same_fn *same)
{
	size_t i;

	memset(set, 0, sizeof(*set));
	set->v = calloc(n ? n : 1, sizeof(*set->v));
	if (!set->v)
		return -1;
	for (i = 0; i < n; i++) {
		if (image_add(image_find(set, p[i], same), p[i])) {
			image_set_fini(set);
			return -1;
		}
	}
	for (i = 0; i < set->n; i++)
		set->v[i].n =
			samples_sum_sorted(set->v[i].samples, set->v[i].n);
	return 0;
}

void
image_set_fini(struct image_set *set)
{
	size_t i;

	for (i = 0; i < set->n; i++)
		free(set->v[i].samples);
	free(set->v);
	memset(set, 0, sizeof(*set));
}

const struct image *
image_set_hottest(const struct image_set *set)
{
	const struct image *best = NULL;
	size_t i;

	for (i = 0; i < set->n; i++)
		if (!best || set->v[i].main > best->main)
			best = &set->v[i];
	return best;
}

int
image_set_of_report(struct image_set *set, const struct report *r)
{
	const struct profile **p = calloc(r->nprocs, sizeof(*p));
	size_t i;
	int ret;

	for (i = 0; p && i < r->nprocs; i++)
		p[i] = r->procs[i].p;
	ret = p ? image_set_build(set, p, r->nprocs, profile_same_image) : -1;
	free(p);
	if (ret)
		cli_error("%s: out of memory", r->run->path);
	return ret;
}

/* SPDX-License-Identifier: MIT */
/* Lists of report entries, merged by a key and sorted by samples. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "func-list.h"

static char *
dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

static void
func_fini(struct func *f)
{
	free(f->module);
	free(f->name);
	free(f->symbol);
	free(f->caller);
	free(f->file);
}

int
func_list_add(struct func_list *l, const struct func *f)
{
	struct func *d;

	if (ARRAY_GROW(l->v, l->cap, l->n, 64))
		return -1;
	d = &l->v[l->n];
	*d = *f;
	d->module = strdup(f->module);
	d->name = strdup(f->name);
	d->symbol = strdup(f->symbol ? f->symbol : f->name);
	d->caller = dup_or_null(f->caller);
	d->file = dup_or_null(f->file);
	if (!d->module || !d->name || !d->symbol || (f->caller && !d->caller) ||
	    (f->file && !d->file)) {
		func_fini(d);
		return -1;
	}
	l->n++;
	return 0;
}

void
func_list_fini(struct func_list *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		func_fini(&l->v[i]);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

/* strcmp with NULL first. */
static int
cmp_str(const char *a, const char *b)
{
	if (!a || !b)
		return (a != NULL) - (b != NULL);
	return strcmp(a, b);
}

/* Source place: file, then line. */
static int
cmp_place(const struct func *x, const struct func *y)
{
	int c = cmp_str(x->file, y->file);

	if (c)
		return c;
	return (x->line > y->line) - (x->line < y->line);
}

static int
cmp_key(const void *a, const void *b, void *arg)
{
	const struct func *x = a, *y = b;
	enum func_key key = *(enum func_key *)arg;
	int c = key == KEY_FUNCTION ? 0 : cmp_place(x, y);

	/* the module last: most entries share it, a long path */
	if (c == 0)
		c = strcmp(x->name, y->name);
	if (c == 0 && key == KEY_LINE_CALLER)
		c = cmp_str(x->caller, y->caller);
	return c ? c : strcmp(x->module, y->module);
}

static int
cmp_samples(const void *a, const void *b, void *arg)
{
	const struct func *x = a, *y = b;
	enum func_key key = *(enum func_key *)arg;
	int c;

	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	c = key == KEY_FUNCTION ? 0 : cmp_place(x, y);
	if (c == 0)
		c = strcmp(x->name, y->name);
	return c ? c : strcmp(x->module, y->module);
}

void
func_list_finish(struct func_list *l)
{
	size_t i, n = 0;

	if (l->n == 0) /* l->v may be NULL */
		return;
	qsort_r(l->v, l->n, sizeof(*l->v), cmp_key, &l->key);
	for (i = 0; i < l->n; i++) {
		if (n > 0 && cmp_key(&l->v[n - 1], &l->v[i], &l->key) == 0) {
			l->v[n - 1].samples += l->v[i].samples;
			l->v[n - 1].kernel += l->v[i].kernel;
			l->v[n - 1].offcpu += l->v[i].offcpu;
			l->v[n - 1].inclusive += l->v[i].inclusive;
			func_fini(&l->v[i]);
			continue;
		}
		l->v[n++] = l->v[i];
	}
	l->n = n;
	qsort_r(l->v, l->n, sizeof(*l->v), cmp_samples, &l->key);
}

size_t
func_list_modules(const struct func_list *l)
{
	size_t i, j, n = 0;

	for (i = 0; i < l->n; i++) {
		if (l->v[i].samples == 0)
			continue;
		for (j = 0; j < i; j++)
			if (l->v[j].samples > 0 &&
			    strcmp(l->v[i].module, l->v[j].module) == 0)
				break;
		n += j == i;
		if (n > 1)
			break; /* callers only ask whether there are several */
	}
	return n;
}

uint64_t
func_list_samples(const struct func_list *l, size_t first)
{
	uint64_t s = 0;
	size_t i;

	for (i = first; i < l->n; i++)
		s += l->v[i].samples;
	return s;
}

bool
func_module_is(const char *module, const char *name)
{
	const char *slash = strrchr(module, '/');

	return strcmp(module, name) == 0 ||
	       (slash && strcmp(slash + 1, name) == 0);
}

void
func_list_keep_module(struct func_list *l, const char *name)
{
	size_t i, n = 0;

	for (i = 0; i < l->n; i++) {
		if (func_module_is(l->v[i].module, name))
			l->v[n++] = l->v[i];
		else
			func_fini(&l->v[i]);
	}
	l->n = n;
}

static int
cmp_total(const void *a, const void *b)
{
	const struct module_total *x = a, *y = b;

	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	return strcmp(x->module, y->module);
}

/* The total of MODULE in V (N of them), added when new. */
uint64_t
func_list_kernel(const struct func_list *l)
{
	uint64_t s = 0;

	for (size_t i = 0; i < l->n; i++)
		s += l->v[i].kernel;
	return s;
}

static struct module_total *
total_of(struct module_total *v, size_t *n, const char *module)
{
	size_t i;

	for (i = 0; i < *n; i++)
		if (strcmp(v[i].module, module) == 0)
			return &v[i];
	v[*n].module = strdup(module);
	v[*n].samples = 0;
	return v[*n].module ? &v[(*n)++] : NULL;
}

int
module_totals(const struct func_list *l, struct module_total **out, size_t *n)
{
	struct module_total *v = calloc(l->n ? l->n : 1, sizeof(*v)), *t;
	size_t i;

	*n = 0;
	for (i = 0; v && i < l->n; i++) {
		if (l->v[i].samples == 0)
			continue; /* on stacks only: no samples of its own */
		t = total_of(v, n, l->v[i].module);
		if (!t) {
			module_totals_free(v, *n);
			v = NULL;
			break;
		}
		t->samples += l->v[i].samples;
	}
	*out = v;
	if (!v)
		return -1;
	qsort(v, *n, sizeof(*v), cmp_total);
	return 0;
}

void
module_totals_free(struct module_total *v, size_t n)
{
	while (n > 0)
		free(v[--n].module);
	free(v);
}

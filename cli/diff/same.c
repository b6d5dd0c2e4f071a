/* SPDX-License-Identifier: MIT */
/*
 * Modules of BASE compared as modules of NEW.  Functions match by module
 * (short name) and name, so a benchmark built as ./bench for the baseline
 * and as build-pr/bench-new for the pull request would have every function
 * "gone" and "new".  When each side has one main executable they are one
 * module; --same A=B says so of any module.  BASE's functions take NEW's
 * module name before the match.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "diff.h"
#include "symbolize.h"

static bool
side_has_module(const struct diff_side *s, const char *m)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->fns[i].module && strcmp(s->fns[i].module, m) == 0)
			return true;
	for (size_t i = 0; i < s->nmains; i++)
		if (strcmp(s->mains[i], m) == 0)
			return true;
	return false;
}

/* BASE's functions of module FROM as module TO.  0 or -1 (out of memory). */
static int
rename_module(struct diff_side *s, const char *from, const char *to)
{
	for (size_t i = 0; i < s->n; i++) {
		struct diff_fn *f = &s->fns[i];
		char *m;

		if (!f->module || strcmp(f->module, from) != 0)
			continue;
		if (!(m = strdup(to)))
			return -1;
		free(f->module);
		f->module = m;
	}
	return 0;
}

static int
add_same(struct diff *d, const char *base, const char *new, bool automatic)
{
	struct diff_same *v = &d->same[d->nsame];

	v->base = strdup(base);
	v->new = strdup(new);
	v->automatic = automatic;
	if (!v->base || !v->new || rename_module(&d->base, base, new)) {
		free(v->base);
		free(v->new);
		cli_error("diff: out of memory");
		return -1;
	}
	d->nsame++;
	return 0;
}

/* One --same A=B: both named by path or file name. */
static int
same_option(struct diff *d, const char *arg)
{
	const char *eq = strchr(arg, '=');
	char *a;
	const char *b;
	int ret = -1;

	if (!eq || eq == arg || !eq[1]) {
		cli_error("diff: --same takes BASE_MODULE=NEW_MODULE, not '%s'",
			  arg);
		return -1;
	}
	if (!(a = strndup(arg, (size_t)(eq - arg)))) {
		cli_error("diff: out of memory");
		return -1;
	}
	b = module_display(eq + 1);
	if (!side_has_module(&d->base, module_display(a)))
		cli_error("diff: --same %s: BASE %s has no module '%s'", arg,
			  d->base.path, module_display(a));
	else if (!side_has_module(&d->new, b))
		cli_error("diff: --same %s: NEW %s has no module '%s'", arg,
			  d->new.path, b);
	else
		ret = add_same(d, module_display(a), b, false);
	free(a);
	return ret;
}

static bool
named_by_same(const struct diff *d, const char *base, const char *new)
{
	for (size_t i = 0; i < d->nsame; i++)
		if (strcmp(d->same[i].base, base) == 0 ||
		    strcmp(d->same[i].new, new) == 0)
			return true;
	return false;
}

int
diff_map_modules(struct diff *d)
{
	const struct diff_opts *o = d->opts;
	const struct diff_side *b = &d->base, *n = &d->new;

	d->same = calloc(o->nsame + 1, sizeof(*d->same));
	if (!d->same) {
		cli_error("diff: out of memory");
		return -1;
	}
	for (size_t i = 0; i < o->nsame; i++)
		if (same_option(d, o->same[i]))
			return -1;
	if (b->nmains == 1 && n->nmains == 1 &&
	    strcmp(b->mains[0], n->mains[0]) != 0 &&
	    !named_by_same(d, b->mains[0], n->mains[0]))
		return add_same(d, b->mains[0], n->mains[0], true);
	return 0;
}

/* SPDX-License-Identifier: MIT */
/* Queries over a report's call stacks (stacks.h). */
#include <stdlib.h>
#include <string.h>

#include "func-list.h"
#include "stacks.h"

uint64_t
stacks_inclusive(const struct report_stacks *s, uint32_t fn)
{
	uint64_t n = 0;

	for (size_t t = 0; t < s->ntraces; t++) {
		const struct stack_trace *tr = &s->traces[t];

		for (uint32_t i = 0; i < tr->n; i++)
			if (s->frames[tr->first + i].fn == fn) {
				n += tr->count;
				break;
			}
	}
	return n;
}

long
stacks_find_fn(const struct report_stacks *s, const char *name,
	       const char *module)
{
	for (size_t i = 0; i < s->nfns; i++) {
		const struct stack_fn *f = &s->fns[i];

		if (strcmp(f->name, name) != 0 &&
		    (f->symbol == NULL || strcmp(f->symbol, name) != 0))
			continue;
		if (module == NULL || func_module_is(f->module, module))
			return (long)i;
	}
	return -1;
}

void
stacks_fini(struct report_stacks *s)
{
	for (size_t i = 0; i < s->nfns; i++) {
		free(s->fns[i].module);
		free(s->fns[i].name);
		free(s->fns[i].symbol);
	}
	free(s->fns);
	free(s->frames);
	free(s->traces);
	strmap_fini(&s->strs, NULL);
	memset(s, 0, sizeof(*s));
}

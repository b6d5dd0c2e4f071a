/* SPDX-License-Identifier: MIT */
/* The one line that says how to get the names missing from a report:
 * code without symbols shows as "[module 0xSTART-0xEND]". */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "text.h"

#define MODULES_NAMED 3 /* modules the line names */

/* True when F is a range of code without a symbol. */
static bool
unnamed(const struct func *f)
{
	const char *space = strchr(f->name, ' ');

	return f->name[0] == '[' && f->file == NULL && space != NULL &&
	       strncmp(space, " 0x", 3) == 0;
}

/* Note F's module among the first MODULES_NAMED in MODS (*N of them);
 * false when it is another one that found no room. */
static bool
note_module(const char **mods, size_t *n, const struct func *f)
{
	for (size_t i = 0; i < *n; i++)
		if (strcmp(mods[i], f->module) == 0)
			return true;
	if (*n == MODULES_NAMED)
		return false;
	mods[(*n)++] = f->module;
	return true;
}

void
report_text_missing_names(const struct func_list *l, uint64_t total, FILE *out)
{
	const char *mods[MODULES_NAMED];
	uint64_t missing = 0;
	size_t n = 0;
	bool others = false;

	for (size_t i = 0; i < l->n; i++) {
		if (!unnamed(&l->v[i]))
			continue;
		missing += l->v[i].samples;
		others |= !note_module(mods, &n, &l->v[i]);
	}
	if (missing == 0 || total == 0)
		return;
	fprintf(out,
		"names: %.1f%% of the samples are in code without symbols (",
		100.0 * (double)missing / (double)total);
	for (size_t i = 0; i < n; i++)
		fprintf(out, "%s%s", i ? ", " : "", module_display(mods[i]));
	fprintf(out,
		"%s), shown by module and function start: the package's debug symbols (its -dbgsym or -debuginfo package) give names%s\n",
		others ? ", ..." : "",
		getenv("DEBUGINFOD_URLS")
			? ""
			: ", or DEBUGINFOD_URLS set to a debuginfod server");
}

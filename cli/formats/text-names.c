/* SPDX-License-Identifier: MIT */
/* The one line that says how to get the names missing from a report:
 * code without symbols shows as "[module 0xSTART-0xEND]".  It is said
 * once, when such code holds a share of the samples that matters, and
 * names the modules that hold most of it. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "formats.h"
#include "text.h"

#define MODULES_NAMED 3	   /* modules the line names */
#define SHARE_TO_SAY  0.05 /* unnamed share of all samples worth the line */
#define MODULE_SHARE  0.01 /* a module's unnamed share worth naming */
#define MODULES_MAX   64   /* modules told apart */

struct unnamed_module {
	const char *module;
	uint64_t samples;
};

static int
cmp_unnamed(const void *a, const void *b)
{
	const struct unnamed_module *x = a, *y = b;

	if (x->samples != y->samples)
		return x->samples < y->samples ? 1 : -1;
	return strcmp(x->module, y->module);
}

/* Add F's samples to its module among MODS (*N of them). */
static void
note_module(struct unnamed_module *mods, size_t *n, const struct func *f)
{
	for (size_t i = 0; i < *n; i++)
		if (strcmp(mods[i].module, f->module) == 0) {
			mods[i].samples += f->samples;
			return;
		}
	if (*n < MODULES_MAX)
		mods[(*n)++] = (struct unnamed_module){f->module, f->samples};
}

void
report_text_missing_names(const struct func_list *l, uint64_t total, FILE *out)
{
	struct unnamed_module mods[MODULES_MAX];
	uint64_t missing = 0;
	size_t n = 0, shown = 0;

	for (size_t i = 0; i < l->n; i++) {
		if (!func_unnamed(&l->v[i]))
			continue;
		missing += l->v[i].samples;
		note_module(mods, &n, &l->v[i]);
	}
	if (total == 0 || (double)missing < SHARE_TO_SAY * (double)total)
		return;
	qsort(mods, n, sizeof(*mods), cmp_unnamed);
	fprintf(out,
		"names: %.1f%% of the samples are in code without symbols (",
		100.0 * (double)missing / (double)total);
	for (size_t i = 0; i < n && shown < MODULES_NAMED; i++) {
		if (i > 0 &&
		    (double)mods[i].samples < MODULE_SHARE * (double)total)
			break;
		fprintf(out, "%s%s %.1f%%", shown ? ", " : "",
			module_display(mods[i].module),
			100.0 * (double)mods[i].samples / (double)total);
		shown++;
	}
	fprintf(out,
		"%s), shown as [0xSTART-0xEND], each a whole function: its package's debug symbols (the -dbgsym or -debuginfo package) give names%s\n",
		shown < n ? ", ..." : "",
		getenv("DEBUGINFOD_URLS")
			? ""
			: ", or DEBUGINFOD_URLS set to a debuginfod server");
}

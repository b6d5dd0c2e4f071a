/* SPDX-License-Identifier: MIT */
/* Several profiles read as one run (report PROFILE..., merge, diff). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "profile.h"

/* "a, b and c" for messages. */
static char *
join_paths(char *const *paths, size_t n)
{
	size_t i, len = 1;
	char *s;

	for (i = 0; i < n; i++)
		len += strlen(paths[i]) + 2;
	s = malloc(len);
	if (!s)
		return NULL;
	s[0] = '\0';
	for (i = 0; i < n; i++) {
		if (i > 0)
			strcat(s, ", ");
		strcat(s, paths[i]);
	}
	return s;
}

/* Move the members of FROM to the end of TO; FROM keeps only its path. */
static int
take_members(struct run *to, struct run *from)
{
	struct profile *m;

	m = realloc(to->members, (to->n + from->n) * sizeof(*m));
	if (!m)
		return -1;
	memcpy(m + to->n, from->members, from->n * sizeof(*m));
	to->members = m;
	to->n += from->n;
	to->skipped += from->skipped;
	free(from->members);
	from->members = NULL;
	from->n = 0;
	return 0;
}

int
run_load_many(char *const *paths, size_t n, struct run *run)
{
	struct run one;
	size_t i;

	if (n == 1)
		return run_load(paths[0], run);
	memset(run, 0, sizeof(*run));
	run->is_dir = true;
	run->path = join_paths(paths, n);
	if (!run->path) {
		cli_error("%s: out of memory", paths[0]);
		return -1;
	}
	for (i = 0; i < n; i++) {
		if (run_load(paths[i], &one))
			goto fail;
		if (take_members(run, &one)) {
			cli_error("%s: out of memory", paths[i]);
			run_fini(&one);
			goto fail;
		}
		run_fini(&one);
	}
	return 0;
fail:
	run_fini(run);
	return -1;
}

/* SPDX-License-Identifier: MIT */
/* The members of a run grouped by executable image, their samples summed
 * by link-time address. */
#ifndef PROFRUN_CLI_IMAGE_H
#define PROFRUN_CLI_IMAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "profile.h"

/* One executable image (path, build-id, text range and bucket size). */
struct image {
	const struct profile *ref;	/* its first member */
	struct profile_sample *samples; /* summed by address, sorted */
	size_t n;
	size_t cap, summed; /* while built: room, and the first SUMMED are
			     * summed and sorted */
	uint64_t main, outside;
	uint64_t unnamed; /* of outside: merged by name (merge --force) into
			   * no function of this binary */
	size_t members;
};

struct image_set {
	struct image *v;
	size_t n;
};

/* Same executable, build-id and histogram geometry. */
bool profile_same_image(const struct profile *a, const struct profile *b);

/* Same binary wherever it lies: equal build-ids (equal paths when there is
 * none) and the same histogram geometry. */
bool profile_same_binary(const struct profile *a, const struct profile *b);

typedef bool image_same_fn(const struct profile *a, const struct profile *b);

/* Sort SAMPLES by address and add up counts at equal addresses; returns
 * the new length. */
size_t samples_sum_sorted(struct profile_sample *s, size_t n);

/* Append the N samples S to the array *V (*N of them, room for *CAP, the
 * first *SUMMED summed and sorted), adding up equal addresses whenever the
 * unsummed tail grows past the summed part: the array stays within about
 * twice the distinct addresses plus N.  Returns 0, or -1 when out of
 * memory.  samples_sum_sorted(*V, *N) finishes it. */
int samples_append(struct profile_sample **v, size_t *n, size_t *cap,
		   size_t *summed, const struct profile_sample *s, size_t ns);

/* Group the N profiles of P by image (SAME tells which belong together),
 * in order of first appearance.  Returns 0, or -1 when out of memory. */
int image_set_build(struct image_set *set, const struct profile *const *p,
		    size_t n, image_same_fn *same);
void image_set_fini(struct image_set *set);

/* The images of the report's selected processes.  Returns 0, or -1 after
 * printing an error. */
struct report;
int image_set_of_report(struct image_set *set, const struct report *r);

/* The image with the most samples in its executable (the first on ties). */
const struct image *image_set_hottest(const struct image_set *set);

#endif /* PROFRUN_CLI_IMAGE_H */

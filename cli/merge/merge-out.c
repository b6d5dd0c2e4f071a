/* SPDX-License-Identifier: MIT */
/*
 * The merged run directory: one member file per binary, written into a
 * fresh directory beside OUT, which then takes OUT's place.  An existing
 * OUT is replaced only when it is a run directory (nothing but member
 * files), never an ordinary file or a directory of other things.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "member-write.h"
#include "merge-out.h"
#include "merge-outside.h"
#include "run.h"

/* What the user may do when OUT is not a run directory. */
#define REPLACE_HINT "refusing to replace it"

/* Whether H counts how its samples came (it has none, or an earlier
 * writer's did not count). */
static bool
bursts_known(const struct profrun_header *h)
{
	return h->signals != 0 || h->samples_total == 0;
}

/* Combine the header of P into H (P is not the first). */
static void
header_add(struct profrun_header *h, const struct profile *p)
{
	const struct profrun_header *s = &p->hdr;
	bool done = profile_complete(p) && (h->state == PROFRUN_STATE_EXITED ||
					    h->state == PROFRUN_STATE_EXECED);

	if (s->start_ns < h->start_ns)
		h->start_ns = s->start_ns;
	if (h->end_ns && s->end_ns)
		h->end_ns = s->end_ns > h->end_ns ? s->end_ns : h->end_ns;
	else
		h->end_ns = 0; /* one of them never ended */
	h->cpu_user_ns += s->cpu_user_ns;
	h->cpu_sys_ns += s->cpu_sys_ns;
	h->cpu_start_ns += s->cpu_start_ns;
	h->wraps_lost += s->wraps_lost;
	h->signals += s->signals;
	h->samples_sq += s->samples_sq;
	if (s->burst_max > h->burst_max)
		h->burst_max = s->burst_max;
	h->flags |= s->flags;
	if (s->state != h->state)
		h->state = done ? PROFRUN_STATE_EXITED : PROFRUN_STATE_RUNNING;
	if (s->exit_code != h->exit_code || h->state != PROFRUN_STATE_EXITED)
		h->exit_code = -1;
}

/* Combine into MB the headers of the members of IM's binary in P (of
 * every one in P when ALL), and keep the first note; *BURSTS stays true
 * while each counted how its samples came. */
static void
image_header(struct member *mb, const struct image *im,
	     const struct profile **p, size_t n, bool all, bool *bursts)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (p[i] == im->ref ||
		    (!all && !profile_same_binary(im->ref, p[i])))
			continue;
		header_add(&mb->hdr, p[i]);
		*bursts = *bursts && bursts_known(&p[i]->hdr);
		mb->paused_ns +=
			p[i]->has_pause ? p[i]->pause.paused_cpu_ns : 0;
		if (!mb->note && p[i]->note)
			mb->note = p[i]->note;
	}
}

/* The PC tables of the members of IM's binary in P (of every one in P,
 * counting their own binary's PCs as unknown, when FOREIGN), into MO. */
static int
image_outside(struct merge_outside *mo, const struct image *im,
	      const struct profile **p, size_t n, bool foreign)
{
	size_t i;

	for (i = 0; i < n; i++)
		if ((foreign || profile_same_binary(im->ref, p[i])) &&
		    (merge_outside_add(mo, p[i], foreign) ||
		     merge_outside_add_stacks(mo, p[i], foreign)))
			return -1;
	return 0;
}

static int
write_image(const char *dir, const struct image *im,
	    const struct profile **same, size_t nsame,
	    const struct profile **foreign, size_t nforeign,
	    const struct profile *ref)
{
	struct member mb = {.exe = im->ref->exe,
			    .note = im->ref->note,
			    .samples = im->samples,
			    .n = im->n};
	struct merge_outside mo = {0};
	struct member_outside outside;
	uint8_t *frames = NULL;
	char *path = run_member_path(dir, (uint32_t)im->ref->hdr.pid);
	bool is_ref = profile_same_binary(im->ref, ref);
	bool bursts = bursts_known(&im->ref->hdr);
	int ret = -1;

	if (path && image_outside(&mo, im, same, nsame, false) == 0 &&
	    (!is_ref || image_outside(&mo, im, foreign, nforeign, true) == 0)) {
		mo.unmapped += im->unnamed;
		ret = merge_outside_finish(&mo, &mb.outside, &outside);
		if (ret == 0)
			ret = merge_outside_frames(&mo, im->ref->hdr.load_bias,
						   &frames, &mb.frames_size);
		mb.frames = frames;
	}
	if (ret) {
		cli_error("%s: out of memory", dir);
		merge_outside_fini(&mo);
		free(path);
		return -1;
	}
	mb.hdr = im->ref->hdr;
	mb.paused_ns = im->ref->has_pause ? im->ref->pause.paused_cpu_ns : 0;
	image_header(&mb, im, same, nsame, false, &bursts);
	if (is_ref)
		image_header(&mb, im, foreign, nforeign, true, &bursts);
	/* how the samples came is known for the whole only when known for
	 * every part with samples */
	if (!bursts)
		mb.hdr.signals = mb.hdr.samples_sq = mb.hdr.burst_max = 0;
	mb.hdr.samples_total = im->main + im->outside;
	mb.hdr.samples_outside = im->outside;
	ret = member_write(path, &mb);
	merge_outside_fini(&mo);
	free(frames);
	free(path);
	return ret;
}

/* DIR beside OUT, made fresh. */
static char *
make_temp_dir(const char *out)
{
	char *tmp;

	if (asprintf(&tmp, "%s.merge-XXXXXX", out) < 0)
		return NULL;
	if (!mkdtemp(tmp)) {
		cli_error("merge: %s: %s", tmp, strerror(errno));
		free(tmp);
		return NULL;
	}
	return tmp;
}

int
merge_out_write(const char *out, const struct image_set *images,
		const struct profile **same, size_t nsame,
		const struct profile **foreign, size_t nforeign,
		const struct profile *ref)
{
	char *tmp;
	size_t i;
	int ret = run_dir_check(out, REPLACE_HINT);

	if (ret < 0 || !(tmp = make_temp_dir(out)))
		return -1;
	ret = 0;
	for (i = 0; ret == 0 && i < images->n; i++)
		ret = write_image(tmp, &images->v[i], same, nsame, foreign,
				  nforeign, ref);
	if (ret == 0 && run_dir_empty(out, true, REPLACE_HINT) < 0)
		ret = -1;
	if (ret == 0 && rename(tmp, out) < 0) {
		cli_error("merge: %s: %s", out, strerror(errno));
		ret = -1;
	}
	if (ret)
		run_dir_empty(tmp, true, REPLACE_HINT);
	free(tmp);
	return ret;
}

/* SPDX-License-Identifier: MIT */
/*
 * The merged run directory: one member file per binary, written into a
 * fresh directory beside OUT, which then takes OUT's place.  An existing
 * OUT is replaced only when it is a run directory (nothing but member
 * files), never an ordinary file or a directory of other things.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "member-write.h"
#include "merge-out.h"
#include "merge-outside.h"

/* "<digits>.prof" or "<digits>-<digits>.prof" */
static bool
is_member_name(const char *s)
{
	size_t d = strspn(s, "0123456789");

	if (d == 0)
		return false;
	s += d;
	if (*s == '-') {
		d = strspn(++s, "0123456789");
		if (d == 0)
			return false;
		s += d;
	}
	return strcmp(s, ".prof") == 0;
}

/* Remove the run directory PATH (member files only).  Returns 0, 1 when
 * PATH does not exist, or -1 after printing an error. */
static int
remove_run(const char *path, bool dry)
{
	struct dirent *de;
	DIR *dir = opendir(path);
	int ret = 0;

	if (!dir && errno == ENOENT)
		return 1;
	if (!dir) {
		cli_error("merge: %s: %s", path,
			  errno == ENOTDIR ? "exists and is not a run directory"
					   : strerror(errno));
		return -1;
	}
	while (ret == 0 && (de = readdir(dir)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		if (!is_member_name(de->d_name)) {
			cli_error(
				"merge: %s: holds %s, not a run directory; refusing to replace it",
				path, de->d_name);
			ret = -1;
		} else if (!dry && unlinkat(dirfd(dir), de->d_name, 0) < 0) {
			cli_error("merge: %s/%s: %s", path, de->d_name,
				  strerror(errno));
			ret = -1;
		}
	}
	closedir(dir);
	if (ret == 0 && !dry && rmdir(path) < 0) {
		cli_error("merge: %s: %s", path, strerror(errno));
		ret = -1;
	}
	return ret;
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
	h->flags |= s->flags;
	if (s->state != h->state)
		h->state = done ? PROFRUN_STATE_EXITED : PROFRUN_STATE_RUNNING;
	if (s->exit_code != h->exit_code || h->state != PROFRUN_STATE_EXITED)
		h->exit_code = -1;
}

/* Combine into MB the headers of the members of IM's binary in P (of
 * every one in P when ALL), and keep the first note. */
static void
image_header(struct member *mb, const struct image *im,
	     const struct profile **p, size_t n, bool all)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (p[i] == im->ref ||
		    (!all && !profile_same_binary(im->ref, p[i])))
			continue;
		header_add(&mb->hdr, p[i]);
		if (!mb->note && p[i]->note)
			mb->note = p[i]->note;
	}
}

/* A free member name in DIR for PID. */
static char *
member_path(const char *dir, int32_t pid)
{
	char *path;
	unsigned seq;

	for (seq = 0;; seq++) {
		if ((seq == 0 ? asprintf(&path, "%s/%d.prof", dir, (int)pid)
			      : asprintf(&path, "%s/%d-%u.prof", dir, (int)pid,
					 seq)) < 0)
			return NULL;
		if (access(path, F_OK) != 0)
			return path;
		free(path);
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
		    merge_outside_add(mo, p[i], foreign))
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
	char *path = member_path(dir, im->ref->hdr.pid);
	bool is_ref = profile_same_binary(im->ref, ref);
	int ret = -1;

	if (path && image_outside(&mo, im, same, nsame, false) == 0 &&
	    (!is_ref || image_outside(&mo, im, foreign, nforeign, true) == 0)) {
		mo.unmapped += im->unnamed;
		ret = merge_outside_finish(&mo, &mb.outside, &outside);
	}
	if (ret) {
		cli_error("%s: out of memory", dir);
		merge_outside_fini(&mo);
		free(path);
		return -1;
	}
	mb.hdr = im->ref->hdr;
	image_header(&mb, im, same, nsame, false);
	if (is_ref)
		image_header(&mb, im, foreign, nforeign, true);
	mb.hdr.samples_total = im->main + im->outside;
	mb.hdr.samples_outside = im->outside;
	ret = member_write(path, &mb);
	merge_outside_fini(&mo);
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
	int ret = remove_run(out, true);

	if (ret < 0 || !(tmp = make_temp_dir(out)))
		return -1;
	ret = 0;
	for (i = 0; ret == 0 && i < images->n; i++)
		ret = write_image(tmp, &images->v[i], same, nsame, foreign,
				  nforeign, ref);
	if (ret == 0 && remove_run(out, false) < 0)
		ret = -1;
	if (ret == 0 && rename(tmp, out) < 0) {
		cli_error("merge: %s: %s", out, strerror(errno));
		ret = -1;
	}
	if (ret)
		remove_run(tmp, false);
	free(tmp);
	return ret;
}

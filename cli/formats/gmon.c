/* SPDX-License-Identifier: MIT */
/*
 * gmon.out export: the histogram of one executable, as GNU gprof reads it
 * with `gprof -p BINARY gmon.out`.
 *
 * Layout (glibc gmon/sys/gmon_out.h, native byte order): a 20-byte header
 * ("gmon", version 1, 12 zero bytes), then time histogram records: tag 0,
 * low_pc and high_pc (link-time, u64), the number of bins (i32), the
 * sampling rate (i32), the dimension "seconds" (15 bytes) and its
 * abbreviation 's', then one u16 per bin.  Bins are profrun's buckets
 * (bucket_size bytes each), over the sampled part of the text only.
 * Counts above 65535 go into further records over the same range, which
 * gprof adds up.
 *
 * With stacks (profrun -g), call arc records follow (gmon-arcs.c): tag 1,
 * from_pc (u64), self_pc (u64), count (i32), one per call between
 * adjacent frames both in the written executable, so that `gprof -q`
 * prints a call graph for a binary never built with -pg.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats.h"
#include "gmon.h"
#include "image.h"

#define GMON_BIN_MAX 65535u

static void
gmon_header(FILE *out)
{
	static const char hdr[20] = {'g', 'm', 'o', 'n', 1, 0, 0, 0};

	fwrite(hdr, 1, sizeof(hdr), out);
}

/* One record holding, for each bin, the part of its count between
 * LAYER * 65535 and (LAYER + 1) * 65535. */
static void
gmon_record(FILE *out, const struct image *im, uint64_t low, uint32_t nbins,
	    int32_t rate, uint64_t layer)
{
	uint64_t bs = im->ref->hdr.bucket_size, high = low + nbins * bs;
	uint64_t base = layer * GMON_BIN_MAX, c;
	char dimen[16] = "seconds";
	uint8_t tag = 0;
	uint16_t v;
	size_t i, k = 0;

	dimen[15] = 's';
	fwrite(&tag, 1, 1, out);
	fwrite(&low, 8, 1, out);
	fwrite(&high, 8, 1, out);
	fwrite(&nbins, 4, 1, out);
	fwrite(&rate, 4, 1, out);
	fwrite(dimen, 1, 16, out);
	for (i = 0; i < nbins; i++) {
		c = 0;
		if (k < im->n && im->samples[k].addr == low + i * bs)
			c = im->samples[k++].count;
		c = c > base ? c - base : 0;
		v = (uint16_t)(c > GMON_BIN_MAX ? GMON_BIN_MAX : c);
		fwrite(&v, 2, 1, out);
	}
}

static void
warn_left_out(const struct image_set *set, const struct image *im)
{
	size_t i;

	for (i = 0; i < set->n; i++) {
		if (&set->v[i] == im || set->v[i].main == 0)
			continue;
		cli_warn(
			"gmon: a gmon.out holds one executable: %s written, %" PRIu64
			" samples of %s left out (select it with --pid)",
			im->ref->exe, set->v[i].main, set->v[i].ref->exe);
	}
}

static int
gmon_image(const struct report *r, const struct image *im, FILE *out)
{
	uint64_t bs = im->ref->hdr.bucket_size, low, nbins, max = 0, layer;
	int32_t rate = (int32_t)(r->rate_hz + 0.5);
	size_t i;

	if (im->n == 0) {
		gmon_record(out, im, im->ref->hdr.text_start, 1, rate, 0);
		return 0;
	}
	low = im->samples[0].addr;
	nbins = (im->samples[im->n - 1].addr - low) / bs + 1;
	if (nbins > INT32_MAX) {
		cli_error("gmon: %s: text too large for a gmon.out",
			  im->ref->exe);
		return -1;
	}
	for (i = 0; i < im->n; i++)
		max = im->samples[i].count > max ? im->samples[i].count : max;
	for (layer = 0; layer * GMON_BIN_MAX < max; layer++)
		gmon_record(out, im, low, (uint32_t)nbins, rate ? rate : 1,
			    layer);
	return 0;
}

static int
export_gmon(const struct report *r, FILE *out)
{
	struct image_set set;
	int ret;

	if (image_set_of_report(&set, r))
		return -1;
	if (set.n == 0) {
		image_set_fini(&set);
		cli_error("gmon: %s: no process selected", r->run->path);
		return -1;
	}
	warn_left_out(&set, image_set_hottest(&set));
	if (r->outside > 0)
		cli_warn(
			"gmon: gprof's histogram holds one range, so gmon.out has the main executable only: %" PRIu64
			" samples in shared libraries, the vdso or unknown code are left out (see --format pprof)",
			r->outside);
	gmon_header(out);
	ret = gmon_image(r, image_set_hottest(&set), out);
	if (ret == 0 && r->stacks.present)
		ret = gmon_arcs(&r->stacks, image_set_hottest(&set)->ref->exe,
				out);
	image_set_fini(&set);
	return ret;
}

REPORT_FORMAT(gmon, "gmon.out for 'gprof -p BINARY FILE' (-q with -g)",
	      export_gmon, true);

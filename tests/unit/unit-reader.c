/* SPDX-License-Identifier: MIT */
/*
 * Table-driven tests of the profile reader (cli/profile/member.c): a valid member
 * round-trips with exact counts, and every kind of damage is refused
 * without a crash.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "intern.h"
#include "outside.h"
#include "run.h"

/* Geometry of the minimal valid member built by make_valid(). */
#define NBUCKETS     8
#define NSLOTS	     4
#define STRINGS_OFF  PROFRUN_HEADER_SIZE
#define STRINGS_SIZE 32
#define WRAPS_OFF    (STRINGS_OFF + STRINGS_SIZE)
#define HIST_OFF     (WRAPS_OFF + NSLOTS * 16)
#define PCS_OFF	     (HIST_OFF + NBUCKETS * 2)
#define NPCS	     4
#define MODS_OFF     (PCS_OFF + NPCS * 16)
#define NMODS	     2
#define MODSTR_OFF   (MODS_OFF + NMODS * 112)
#define MODSTR_SIZE  32
#define VDSO_OFF     (MODSTR_OFF + MODSTR_SIZE)
#define VDSO_SIZE    16
#define FILE_SIZE    (VDSO_OFF + VDSO_SIZE)
#define TEXT_START   0x1000u
#define GEN1	     (1ull << PROFRUN_PC_BITS)

static int failures;

/* The CLI's messages, as comments in the test's output. */
static void
message(bool warning, const char *msg)
{
	fprintf(stderr, "# %s: %s\n", warning ? "warning" : "error", msg);
}

static void
check(bool ok, const char *what)
{
	printf("%s - %s\n", ok ? "ok" : "not ok", what);
	if (!ok)
		failures++;
}

struct image {
	uint8_t buf[FILE_SIZE + 128];
	size_t size;
};

static struct profrun_header *
hdr(struct image *im)
{
	return (struct profrun_header *)im->buf;
}

static void
set_hist(struct image *im, unsigned i, uint16_t v)
{
	memcpy(im->buf + HIST_OFF + 2 * i, &v, sizeof(v));
}

static void
set_wrap(struct image *im, unsigned slot, uint64_t key, uint64_t wraps)
{
	struct profrun_wrap w = {key, wraps};

	memcpy(im->buf + WRAPS_OFF + 16 * slot, &w, sizeof(w));
}

static void
set_pc(struct image *im, unsigned slot, uint64_t key, uint64_t count)
{
	struct profrun_pc pc = {key, count};

	memcpy(im->buf + PCS_OFF + 16 * slot, &pc, sizeof(pc));
}

static struct profrun_module *
module_rec(struct image *im, unsigned i)
{
	return (struct profrun_module *)(im->buf + MODS_OFF + 112 * i);
}

/* The outside tables of the valid member: a library at 0x7000-0x8000
 * (bias 0x6000) and the vdso at 0x9000-0x9100; PCs in each, and one in
 * neither; 2 lost and 1 unmapped, so 9 outside in all. */
static void
make_outside(struct image *im)
{
	struct profrun_header *h = hdr(im);
	struct profrun_module *m;

	h->pcs_off = PCS_OFF;
	h->pc_slots = NPCS;
	h->modules_off = MODS_OFF;
	h->module_slots = NMODS;
	h->module_count = NMODS;
	h->modstr_off = MODSTR_OFF;
	h->modstr_size = MODSTR_SIZE;
	h->vdso_off = VDSO_OFF;
	h->vdso_size = VDSO_SIZE;
	h->mod_generation = 1;
	h->pcs_lost = 2;
	h->pcs_unmapped = 1;
	strcpy((char *)im->buf + MODSTR_OFF, "/lib/libx.so");
	strcpy((char *)im->buf + MODSTR_OFF + 13, "linux-vdso.so.1");
	m = module_rec(im, 0);
	*m = (struct profrun_module){.start = 0x7000,
				     .end = 0x8000,
				     .load_bias = 0x6000,
				     .path_off = MODSTR_OFF,
				     .gen_loaded = 1,
				     .build_id_len = 1,
				     .build_id = {0xcd}};
	m = module_rec(im, 1);
	*m = (struct profrun_module){.start = 0x9000,
				     .end = 0x9100,
				     .path_off = MODSTR_OFF + 13,
				     .kind = PROFRUN_MODULE_VDSO,
				     .gen_loaded = 1};
	set_pc(im, 0, 0x7010 | GEN1, 3);
	set_pc(im, 1, 0x9004 | GEN1, 2);
	set_pc(im, 3, 0x5000 | GEN1, 1);
}

/* A valid member: bucket 1 = 5, bucket 3 = 7 + 2 wraps, bucket 5 = exactly
 * one wrap (the 16-bit counter reads 0). */
static void
make_valid(struct image *im)
{
	struct profrun_header *h = hdr(im);

	memset(im, 0, sizeof(*im));
	im->size = FILE_SIZE;
	memcpy(h->magic, PROFRUN_MAGIC, PROFRUN_MAGIC_LEN);
	h->version = h->min_version = 1;
	h->header_size = PROFRUN_HEADER_SIZE;
	h->file_size = FILE_SIZE;
	h->strings_off = STRINGS_OFF;
	h->strings_size = STRINGS_SIZE;
	h->wrap_slots = NSLOTS;
	h->wraps_off = WRAPS_OFF;
	h->hist_off = HIST_OFF;
	h->nbuckets = NBUCKETS;
	h->text_start = TEXT_START;
	h->text_end = TEXT_START + NBUCKETS * 2;
	h->bucket_size = 2;
	h->scale = 65536;
	h->pid = 123;
	h->exe_off = STRINGS_OFF;
	h->build_id_len = 2;
	h->build_id[0] = 0xab;
	h->build_id[1] = 0x01;
	h->samples_outside = 9;
	h->state = PROFRUN_STATE_EXITED;
	strcpy((char *)im->buf + STRINGS_OFF, "/bin/demo");
	set_hist(im, 1, 5);
	set_hist(im, 3, 7);
	set_wrap(im, 0, 4, 2);
	set_wrap(im, 2, 6, 1);
	make_outside(im);
}

static void
test_valid(void)
{
	struct image im;
	struct profile p;
	char err[256] = "";
	int ret;

	make_valid(&im);
	ret = profile_parse(im.buf, im.size, &p, err, sizeof(err));
	check(ret == 0, "valid member is accepted");
	if (ret)
		return;
	check(p.nsamples == 3, "three buckets have samples");
	check(p.nsamples == 3 && p.samples[0].addr == TEXT_START + 2 &&
		      p.samples[0].count == 5,
	      "plain count");
	check(p.nsamples == 3 && p.samples[1].addr == TEXT_START + 6 &&
		      p.samples[1].count == 7 + 2 * 65536ull,
	      "count with two wraps");
	check(p.nsamples == 3 && p.samples[2].addr == TEXT_START + 10 &&
		      p.samples[2].count == 65536,
	      "wrapped to zero still counts");
	check(p.main == 5 + 7 + 3 * 65536ull, "main is the sum of counts");
	check(p.outside == 9, "outside samples");
	check(p.has_pcs && p.npcs == 3 && p.pcs[0].pc == 0x5000 &&
		      p.pcs[1].pc == 0x7010 && p.pcs[1].gen == 1 &&
		      p.pcs[1].count == 3,
	      "PC table read, sorted by PC, generation split off");
	check(p.pcs_lost == 2 && p.pcs_unmapped == 1 && p.pcs_unrecorded == 0,
	      "table, lost and unmapped add up to outside");
	check(p.nmodules == 2 &&
		      strcmp(p.modules[0].path, "/lib/libx.so") == 0 &&
		      strcmp(p.modules[0].build_id, "cd") == 0 &&
		      p.modules[1].kind == PROFRUN_MODULE_VDSO,
	      "module records");
	check(p.vdso_size == VDSO_SIZE && p.vdso != NULL, "vdso image");
	check(outside_module(&p, 0x7010, 1) == &p.modules[0] &&
		      outside_module(&p, 0x5000, 1) == NULL,
	      "PCs map to their module, or to none");
	check(outside_module(&p, 0x7010, 0) == &p.modules[0],
	      "a PC sampled before the scan that found its module maps to it");
	check(strcmp(p.exe, "/bin/demo") == 0, "executable path");
	check(strcmp(p.build_id, "ab01") == 0, "build-id in hex");
	check(p.note == NULL, "no note");
	profile_fini(&p);
}

/* Records naming one path share one copy, in one member and across
 * members; a path inside another's is refused; an empty PC table keeps no
 * array; nothing stays interned once the members are gone. */
static void
test_one_copy(void)
{
	struct image im;
	struct profile p, q;
	char err[256] = "";
	size_t bytes;
	int ret;

	make_valid(&im);
	module_rec(&im, 1)->path_off = MODSTR_OFF; /* both /lib/libx.so */
	ret = profile_parse(im.buf, im.size, &p, err, sizeof(err));
	check(ret == 0 && p.nmodules == 2 &&
		      p.modules[0].path == p.modules[1].path,
	      "two records of one path share one copy");
	ret |= profile_parse(im.buf, im.size, &q, err, sizeof(err));
	check(ret == 0 && q.modules[0].path == p.modules[0].path &&
		      q.vdso == p.vdso,
	      "two members share their paths and vdso image");
	check(intern_count(&bytes) == 2 && bytes == 12 + VDSO_SIZE,
	      "one path and one vdso image kept");
	if (ret == 0) {
		profile_fini(&p);
		profile_fini(&q);
	}
	check(intern_count(NULL) == 0, "nothing interned after the members");

	make_valid(&im);
	module_rec(&im, 1)->path_off = MODSTR_OFF + 5; /* "libx.so" */
	check(profile_parse(im.buf, im.size, &p, err, sizeof(err)) < 0 &&
		      strstr(err, "inside another's"),
	      "a path starting inside another's is refused");
	check(intern_count(NULL) == 0, "a refused member interns nothing");

	make_valid(&im);
	set_pc(&im, 0, 0, 0);
	set_pc(&im, 1, 0, 0);
	set_pc(&im, 3, 0, 0);
	hdr(&im)->samples_outside = 3;
	ret = profile_parse(im.buf, im.size, &p, err, sizeof(err));
	check(ret == 0 && p.has_pcs && p.npcs == 0 && p.pcs == NULL,
	      "an empty PC table keeps no array");
	if (ret == 0)
		profile_fini(&p);
}

/* outside_module as it was, a scan of every record in the file's order. */
static const struct profile_module *
old_lookup(const struct profile *p, uint64_t pc, uint32_t gen)
{
	const struct profile_module *m, *later = NULL, *last = NULL;

	for (size_t i = 0; i < p->nmodules; i++) {
		m = &p->modules[i];
		if (pc < m->start || pc >= m->end)
			continue;
		if (m->gen_loaded <= gen &&
		    (m->gen_unloaded == 0 || gen < m->gen_unloaded))
			return m;
		if (m->gen_loaded > gen &&
		    (!later || m->gen_loaded < later->gen_loaded))
			later = m;
		last = m;
	}
	return later ? later : last;
}

/* The indexed lookup gives what the scan of every record gives, over
 * random overlapping records and generations. */
static void
test_module_index(void)
{
	struct profile p;
	struct profile_module mods[64];
	const struct profile_module *a, *b;
	uint32_t *idx;
	char err[256];
	unsigned seed = 1, round, i, bad = 0;
	uint64_t pc;
	uint32_t gen;

	for (round = 0; round < 200; round++) {
		memset(&p, 0, sizeof(p));
		p.modules = mods;
		p.nmodules = 1 + rand_r(&seed) % 64;
		for (i = 0; i < p.nmodules; i++) {
			uint64_t start = 0x1000 * (rand_r(&seed) % 16);

			mods[i] = (struct profile_module){
				.start = start,
				.end = start + 0x1000 * (1 + rand_r(&seed) % 4),
				.gen_loaded = rand_r(&seed) % 6};
			if (rand_r(&seed) % 2)
				mods[i].gen_unloaded = mods[i].gen_loaded + 1 +
						       rand_r(&seed) % 3;
		}
		if (profile_index_modules(&p, err, sizeof(err)))
			break;
		for (i = 0; i < 200; i++) {
			pc = rand_r(&seed) % 0x14000;
			gen = rand_r(&seed) % 9;
			a = outside_module(&p, pc, gen);
			idx = p.mod_by_start;
			p.mod_by_start = NULL; /* outside_module scans */
			b = outside_module(&p, pc, gen);
			p.mod_by_start = idx;
			bad += a != b || a != old_lookup(&p, pc, gen);
		}
		free(p.mod_by_start);
		free(p.mod_max_end);
	}
	check(round == 200 && bad == 0,
	      "indexed module lookup agrees with the scan of every record");
}

/* ---------------------------------------------------------------- damage */

static void
bad_magic(struct image *im)
{
	im->buf[0] = 'X';
}

static void
newer_min_version(struct image *im)
{
	hdr(im)->version = 3;
	hdr(im)->min_version = 2;
}

static void
version_zero(struct image *im)
{
	hdr(im)->version = 0;
	hdr(im)->min_version = 0;
}

static void
truncated(struct image *im)
{
	im->size -= 2;
}

static void
shorter_than_header(struct image *im)
{
	im->size = 100;
}

static void
file_size_mismatch(struct image *im)
{
	im->size += 8; /* the file is longer than the header says */
}

static void
empty(struct image *im)
{
	im->size = 0;
}

static void
small_header_size(struct image *im)
{
	hdr(im)->header_size = 64;
}

static void
strings_out_of_range(struct image *im)
{
	hdr(im)->strings_off = FILE_SIZE - 4;
}

static void
strings_inside_header(struct image *im)
{
	hdr(im)->strings_off = 16;
}

static void
hist_out_of_range(struct image *im)
{
	hdr(im)->hist_off = FILE_SIZE - 2;
}

static void
offset_overflow(struct image *im)
{
	hdr(im)->wraps_off = UINT64_MAX - 8;
}

static void
wraps_overlap_hist(struct image *im)
{
	hdr(im)->wrap_slots = 1;
	hdr(im)->wraps_off = HIST_OFF;
}

static void
bucket_size_not_pow2(struct image *im)
{
	hdr(im)->bucket_size = 3;
}

static void
bucket_size_zero(struct image *im)
{
	hdr(im)->bucket_size = 0;
	hdr(im)->scale = 0;
}

static void
scale_mismatch(struct image *im)
{
	hdr(im)->scale = 32768;
}

static void
absurd_nbuckets(struct image *im)
{
	hdr(im)->nbuckets = 1ull << 40; /* a histogram of 2 TiB */
	hdr(im)->text_end = TEXT_START + (2ull << 40);
}

static void
nbuckets_zero(struct image *im)
{
	hdr(im)->nbuckets = 0;
}

static void
text_range_mismatch(struct image *im)
{
	hdr(im)->text_end = TEXT_START + 4 * NBUCKETS;
}

static void
text_range_reversed(struct image *im)
{
	hdr(im)->text_end = TEXT_START - 1;
}

static void
unterminated_exe(struct image *im)
{
	memset(im->buf + STRINGS_OFF, 'a', STRINGS_SIZE);
}

static void
exe_off_outside(struct image *im)
{
	hdr(im)->exe_off = STRINGS_OFF + STRINGS_SIZE;
}

static void
exe_off_relative(struct image *im)
{
	hdr(im)->exe_off = 4; /* points into the header */
}

static void
note_off_outside(struct image *im)
{
	hdr(im)->note_off = 0xffffffffu;
}

static void
build_id_too_long(struct image *im)
{
	hdr(im)->build_id_len = PROFRUN_BUILD_ID_MAX + 1;
}

static void
wrap_key_out_of_range(struct image *im)
{
	set_wrap(im, 1, NBUCKETS + 1, 1);
}

static void
wrap_count_absurd(struct image *im)
{
	set_wrap(im, 1, 1, UINT64_MAX);
}

static void
wrap_table_beyond_file(struct image *im)
{
	hdr(im)->wrap_slots = 0xffffffffu;
}

static void
pcs_beyond_file(struct image *im)
{
	hdr(im)->pcs_off = FILE_SIZE - 16;
}

static void
pc_slots_not_pow2(struct image *im)
{
	hdr(im)->pc_slots = 3;
}

static void
pc_key_without_pc(struct image *im)
{
	set_pc(im, 2, GEN1, 1);
}

static void
pc_count_absurd(struct image *im)
{
	set_pc(im, 2, 0x7020, 1ull << 63);
}

static void
module_count_above_slots(struct image *im)
{
	hdr(im)->module_count = NMODS + 1;
}

static void
module_path_outside(struct image *im)
{
	module_rec(im, 1)->path_off = STRINGS_OFF;
}

static void
module_path_unterminated(struct image *im)
{
	memset(im->buf + MODSTR_OFF + 13, 'x', MODSTR_SIZE - 13);
}

static void
module_build_id_too_long(struct image *im)
{
	module_rec(im, 0)->build_id_len = PROFRUN_BUILD_ID_MAX + 1;
}

static void
module_range_reversed(struct image *im)
{
	module_rec(im, 0)->end = 0x6000;
}

static void
module_kind_unknown(struct image *im)
{
	module_rec(im, 0)->kind = 7;
}

static void
vdso_too_large(struct image *im)
{
	hdr(im)->vdso_size = PROFRUN_VDSO_MAX + 1;
}

static void
modules_overlap_pcs(struct image *im)
{
	hdr(im)->modules_off = PCS_OFF + 16;
}

static void
lost_absurd(struct image *im)
{
	hdr(im)->pcs_lost = 1ull << 63;
}

static const struct {
	const char *name;
	void (*damage)(struct image *im);
} damages[] = {
	{"PC table beyond the file", pcs_beyond_file},
	{"PC slots not a power of 2", pc_slots_not_pow2},
	{"PC key without a PC", pc_key_without_pc},
	{"absurd PC count", pc_count_absurd},
	{"module_count above module_slots", module_count_above_slots},
	{"module path outside the module strings", module_path_outside},
	{"module path unterminated", module_path_unterminated},
	{"module build-id too long", module_build_id_too_long},
	{"module range reversed", module_range_reversed},
	{"module kind unknown", module_kind_unknown},
	{"vdso image too large", vdso_too_large},
	{"module records overlap the PC table", modules_overlap_pcs},
	{"absurd lost count", lost_absurd},
	{"bad magic", bad_magic},
	{"newer min_version", newer_min_version},
	{"version 0", version_zero},
	{"truncated", truncated},
	{"shorter than a header", shorter_than_header},
	{"file_size mismatch", file_size_mismatch},
	{"empty", empty},
	{"header_size too small", small_header_size},
	{"string area out of range", strings_out_of_range},
	{"string area inside the header", strings_inside_header},
	{"histogram out of range", hist_out_of_range},
	{"offset overflows", offset_overflow},
	{"wrap table overlaps histogram", wraps_overlap_hist},
	{"bucket_size not a power of 2", bucket_size_not_pow2},
	{"bucket_size 0", bucket_size_zero},
	{"scale does not match bucket_size", scale_mismatch},
	{"nbuckets claiming terabytes", absurd_nbuckets},
	{"no buckets", nbuckets_zero},
	{"text range does not match buckets", text_range_mismatch},
	{"text range reversed", text_range_reversed},
	{"unterminated exe string", unterminated_exe},
	{"exe_off outside the strings", exe_off_outside},
	{"exe_off outside the string area", exe_off_relative},
	{"note_off outside the strings", note_off_outside},
	{"build_id_len too long", build_id_too_long},
	{"wrap key beyond nbuckets", wrap_key_out_of_range},
	{"absurd wrap count", wrap_count_absurd},
	{"wrap table beyond the file", wrap_table_beyond_file},
};

static void
test_damages(void)
{
	struct image im;
	struct profile p;
	char err[256], what[128];
	size_t i;
	int ret;

	for (i = 0; i < sizeof(damages) / sizeof(damages[0]); i++) {
		make_valid(&im);
		damages[i].damage(&im);
		err[0] = '\0';
		ret = profile_parse(im.buf, im.size, &p, err, sizeof(err));
		snprintf(what, sizeof(what), "refused: %s (%s)",
			 damages[i].name, err);
		check(ret == -1 && err[0] != '\0', what);
		if (ret == 0)
			profile_fini(&p);
	}
}

/* ---------------------------------------------------------------- files */

static char tmpdir[] = "/tmp/unit-reader-XXXXXX";

static char *
tmp_path(const char *name)
{
	char *s;

	if (asprintf(&s, "%s/%s", tmpdir, name) < 0)
		abort();
	return s;
}

static void
write_file(const char *name, const void *buf, size_t size)
{
	char *path = tmp_path(name);
	FILE *f = fopen(path, "wb");

	if (!f || fwrite(buf, 1, size, f) != size || fclose(f) != 0)
		abort();
	free(path);
}

static int
read_named(const char *name, char *err, size_t errlen)
{
	struct profile p;
	char *path = tmp_path(name);
	int ret = profile_read(path, &p, err, errlen);

	if (ret == 0)
		profile_fini(&p);
	free(path);
	return ret;
}

static void
test_files(void)
{
	struct image im;
	char err[256];

	make_valid(&im);
	write_file("good.prof", im.buf, im.size);
	check(read_named("good.prof", err, sizeof(err)) == 0,
	      "valid file is read");
	write_file("empty.prof", im.buf, 0);
	check(read_named("empty.prof", err, sizeof(err)) == -1,
	      "empty file refused");
	/* a header claiming 4 GiB on a 608-byte file: refused unallocated */
	hdr(&im)->file_size = 4ull << 30;
	write_file("huge.prof", im.buf, FILE_SIZE);
	check(read_named("huge.prof", err, sizeof(err)) == -1,
	      "file claiming gigabytes refused");
	check(read_named("missing.prof", err, sizeof(err)) == -1,
	      "missing file refused");
}

static void
test_runs(void)
{
	struct image im;
	struct run run;
	char *dir;

	make_valid(&im);
	if (mkdir(dir = tmp_path("run"), 0755))
		abort();
	write_file("run/10.prof", im.buf, im.size);
	write_file("run/10-1.prof", im.buf, im.size);
	write_file("run/11.prof", im.buf, 10);
	write_file("run/notes.txt", "hello", 5);
	check(run_load(dir, &run) == 0 && run.n == 2 && run.skipped == 1,
	      "damaged member skipped, healthy ones kept");
	check(run.n == 2 && run.members[1].seq == 1,
	      "members sorted by sequence");
	run_fini(&run);
	free(dir);

	if (mkdir(dir = tmp_path("bad"), 0755))
		abort();
	write_file("bad/12.prof", im.buf, 3);
	check(run_load(dir, &run) == -1, "run without readable member refused");
	free(dir);

	if (mkdir(dir = tmp_path("none"), 0755))
		abort();
	check(run_load(dir, &run) == -1, "empty run directory refused");
	free(dir);
}

/* ---------------------------------------------------------------- regions */

/* The valid member with a list of two regions after it: the histogram,
 * and one of kind 99 with FLAGS, at OFF (SIZE bytes).  Returns what the
 * reader says. */
static int
parse_with_list(uint16_t flags, uint64_t hist_size, uint64_t off, char *err,
		size_t errlen)
{
	static struct image im;
	struct profrun_region r[2] = {
		{PROFRUN_REGION_HIST, 1, 0, HIST_OFF, hist_size},
		{99, 1, flags, off, 8},
	};
	struct profile p;
	int ret;

	make_valid(&im);
	memcpy(im.buf + FILE_SIZE, r, sizeof(r));
	im.size = FILE_SIZE + sizeof(r);
	hdr(&im)->file_size = im.size;
	hdr(&im)->regions_off = FILE_SIZE;
	hdr(&im)->region_count = 2;
	ret = profile_parse(im.buf, im.size, &p, err, errlen);
	if (ret == 0)
		profile_fini(&p);
	return ret;
}

static void
test_region_list(void)
{
	char err[256] = "";

	check(parse_with_list(0, NBUCKETS * 2, STRINGS_OFF, err, sizeof(err)) ==
		      0,
	      "a region of an unknown kind is skipped");
	check(parse_with_list(PROFRUN_REGION_REQUIRED, NBUCKETS * 2,
			      STRINGS_OFF, err, sizeof(err)) < 0 &&
		      strstr(err, "needs a newer profrun") &&
		      strstr(err, "kind 99"),
	      "a required region of an unknown kind is refused, by kind");
	check(parse_with_list(0, NBUCKETS * 4, STRINGS_OFF, err, sizeof(err)) <
			      0 &&
		      strstr(err, "disagrees"),
	      "a known region listed elsewhere than the header says is refused");
	check(parse_with_list(0, NBUCKETS * 2, FILE_SIZE + 60, err,
			      sizeof(err)) < 0 &&
		      strstr(err, "out of range"),
	      "a region past the end of the file is refused");
}

/* The valid member with a list of one entry: a sample log of SLOTS slots
 * whose CLAIMED first ones hold KEYS (N of them, the rest 0), after the
 * list.  Fills P (to be freed) and returns what the reader says. */
static int
parse_with_log(uint32_t slots, uint64_t claimed, const uint64_t *keys, size_t n,
	       struct profile *p, char *err, size_t errlen)
{
	static uint8_t buf[sizeof(struct image) + 1024];
	struct image *im = (struct image *)buf;
	struct profrun_log head = {.slot_count = slots, .claimed = claimed};
	struct profrun_region r = {PROFRUN_REGION_LOG, 1,
				   PROFRUN_REGION_REQUIRED,
				   FILE_SIZE + sizeof(r), sizeof(head) + 8 * 8};
	size_t at = FILE_SIZE + sizeof(r);

	memset(buf, 0, sizeof(buf));
	make_valid(im);
	memcpy(im->buf + FILE_SIZE, &r, sizeof(r));
	memcpy(im->buf + at, &head, sizeof(head));
	memcpy(im->buf + at + sizeof(head), keys, n * 8);
	im->size = at + r.size;
	hdr(im)->file_size = im->size;
	hdr(im)->regions_off = FILE_SIZE;
	hdr(im)->region_count = 1;
	hdr(im)->samples_outside = 9 + 2; /* the log's two outside ones */
	return profile_parse(im->buf, im->size, p, err, errlen);
}

static void
test_sample_log(void)
{
	const uint64_t keys[] = {
		(TEXT_START + 2) | GEN1,  /* bucket 1, beside its 5 */
		(TEXT_START + 15) | GEN1, /* bucket 7, new */
		0x7010 | GEN1,		  /* beside the table's 3 */
		0,			  /* claimed, never stored */
		0x7020 | GEN1,		  /* a PC of its own */
	};
	const uint64_t bad[] = {GEN1};
	char err[256] = "";
	struct profile p;

	check(parse_with_log(8, 5, keys, 5, &p, err, sizeof(err)) == 0 &&
		      p.main == 5 + 7 + 3 * 65536ull + 2 && p.nsamples == 4 &&
		      p.samples[0].count == 6 &&
		      p.samples[3].addr == TEXT_START + 14 &&
		      p.samples[3].count == 1,
	      "the log's samples in the histogram's range add to its buckets");
	check(p.outside == 11 && p.pcs_unrecorded == 0 && p.npcs == 4 &&
		      p.pcs[1].pc == 0x7010 && p.pcs[1].count == 4 &&
		      p.pcs[2].pc == 0x7020 && p.pcs[2].count == 1,
	      "the others add to the outside PCs, and the counts add up");
	profile_fini(&p);
	check(parse_with_log(8, 2, keys, 5, &p, err, sizeof(err)) == 0 &&
		      p.main == 5 + 7 + 3 * 65536ull + 2 && p.npcs == 3 &&
		      p.pcs_unrecorded == 2,
	      "only the slots claimed are read");
	profile_fini(&p);
	check(parse_with_log(8, 1000, keys, 5, &p, err, sizeof(err)) == 0 &&
		      p.npcs == 4,
	      "more claims than slots: the slots are read");
	profile_fini(&p);
	check(parse_with_log(0, 5, keys, 5, &p, err, sizeof(err)) == 0 &&
		      p.npcs == 4 && p.nsamples == 4,
	      "a slot count of 0 (as the shim writes it): the region's room");
	profile_fini(&p);
	check(parse_with_log(100, 100, keys, 5, &p, err, sizeof(err)) < 0 &&
		      strstr(err, "does not fit"),
	      "a log larger than its region is refused");
	check(parse_with_log(8, 1, bad, 1, &p, err, sizeof(err)) < 0 &&
		      strstr(err, "sample log slot 0 is bad"),
	      "a key without a PC is refused");
}

/* The valid member with a list of one entry: a pause record of VERSION
 * and SIZE bytes, its thread_slots SLOTS, after the list.  Fills P (to be
 * freed) and returns what the reader says. */
static int
parse_with_pause(uint16_t version, uint64_t size, uint32_t slots,
		 struct profile *p, char *err, size_t errlen)
{
	static struct image im;
	struct profrun_pause z = {
		.paused_cpu_ns = 250000000, .pauses = 1, .thread_slots = slots};
	struct profrun_region r = {PROFRUN_REGION_PAUSE, version, 0,
				   FILE_SIZE + sizeof(r), size};

	make_valid(&im);
	memcpy(im.buf + FILE_SIZE, &r, sizeof(r));
	memcpy(im.buf + FILE_SIZE + sizeof(r), &z, sizeof(z));
	im.size = FILE_SIZE + sizeof(r) + sizeof(z);
	hdr(&im)->file_size = im.size;
	hdr(&im)->regions_off = FILE_SIZE;
	hdr(&im)->region_count = 1;
	return profile_parse(im.buf, im.size, p, err, errlen);
}

static void
test_pause_record(void)
{
	char err[256] = "";
	struct profile p;

	check(parse_with_pause(1, sizeof(struct profrun_pause), 0, &p, err,
			       sizeof(err)) == 0 &&
		      p.has_pause && p.pause.paused_cpu_ns == 250000000,
	      "a pause record is read through the region list");
	profile_fini(&p);
	check(parse_with_pause(2, sizeof(struct profrun_pause), 0, &p, err,
			       sizeof(err)) == 0 &&
		      !p.has_pause,
	      "a pause record of a newer layout is skipped");
	profile_fini(&p);
	check(parse_with_pause(1, 16, 0, &p, err, sizeof(err)) < 0 &&
		      strstr(err, "pause record of 16 bytes"),
	      "a truncated pause record is refused");
	check(parse_with_pause(1, sizeof(struct profrun_pause), 7, &p, err,
			       sizeof(err)) < 0 &&
		      strstr(err, "thread records"),
	      "a pause record for other thread records is refused");
}

int
main(void)
{
	char cmd[64];

	cli_set_message_sink(message);
	if (!mkdtemp(tmpdir))
		return 99;
	test_valid();
	test_one_copy();
	test_module_index();
	test_damages();
	test_region_list();
	test_pause_record();
	test_sample_log();
	test_files();
	test_runs();
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
	if (system(cmd) != 0)
		fprintf(stderr, "# could not remove %s\n", tmpdir);
	printf("%d failure%s\n", failures, failures == 1 ? "" : "s");
	return failures ? 1 : 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * Harness: reading several members and merging them into one report
 * (report_build in cli/model/report.c, symbolization, the text and JSON
 * formats),
 * and the writer path of `profrun merge` for their samples outside the
 * main executable (cli/merge/merge-outside.c,
 * cli/profile/member-write.c): the merged
 * member must read back with every sample accounted for and every PC in
 * a module.
 *
 * Input: one option byte, then members, each starting with the magic
 * "PROFRUN\0" (so a concatenation of real member files is a valid input).
 * Option bits: 0 --force, 1 --by-process, 2 JSON, 3 --top 1, 4 --pid of
 * the first member.  A member that names an executable is symbolized
 * against FUZZ_EXE, a fixed binary of the build, so that runs are
 * reproducible and never wander the file system.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <unistd.h>

#include "merge-outside.h"
#include "outside.h"
#include "formats.h"
#include "fuzz.h"

#define MAX_MEMBERS 8

static const char magic[PROFRUN_MAGIC_LEN] = PROFRUN_MAGIC;

/* Start of the next member at or after FROM, or END. */
static const uint8_t *
next_member(const uint8_t *from, const uint8_t *end)
{
	const uint8_t *m = from < end ? memmem(from, (size_t)(end - from),
					       magic, sizeof(magic))
				      : NULL;

	return m ? m : end;
}

/* Parse the members of DATA into RUN (at most MAX_MEMBERS). */
static void
load_members(const uint8_t *data, const uint8_t *end, struct run *run)
{
	const uint8_t *m = next_member(data, end), *next;
	char err[256];
	struct profile *p;

	while (m < end && run->n < MAX_MEMBERS) {
		next = next_member(m + sizeof(magic), end);
		p = &run->members[run->n];
		if (profile_parse(m, (size_t)(next - m), p, err, sizeof(err)) ==
		    0) {
			if (p->exe[0] != '\0') {
				free(p->exe);
				p->exe = strdup(FUZZ_EXE);
				fuzz_assert(p->exe != NULL, "out of memory");
			}
			run->n++;
		}
		m = next;
	}
}

static void
report_once(const struct run *run, const struct report_opts *opts, FILE *out)
{
	struct report r;

	if (report_build(&r, run, opts) != 0)
		return;
	fuzz_assert(r.total == r.main + r.outside, "totals do not add up");
	report_format_find(opts->format)->write(&r, out);
	report_fini(&r);
}

/* Sum of the placed (table) and unplaced (lost, unmapped) samples of P. */
static uint64_t
outside_known(const struct profile *p)
{
	uint64_t n = p->pcs_lost + p->pcs_unmapped;
	size_t i;

	for (i = 0; i < p->npcs; i++)
		n += p->pcs[i].count;
	return n;
}

/* The merged member of RUN's outside samples, read back. */
static void
check_written(const struct member *mb, uint64_t want)
{
	char path[] = "/tmp/fuzz-merge-XXXXXX", err[256];
	struct profile out;
	int fd = mkstemp(path);
	size_t i;

	fuzz_assert(fd >= 0 && unlink(path) == 0, "no temporary file");
	close(fd);
	fuzz_assert(member_write(path, (struct member *)mb) == 0,
		    "merged member not written");
	fd = profile_read(path, &out, err, sizeof(err));
	unlink(path);
	if (fd != 0)
		fprintf(stderr, "fuzz: %s\n", err);
	fuzz_assert(fd == 0, "merged member refused by the reader");
	fuzz_assert(outside_known(&out) == want,
		    "merged samples do not add up");
	for (i = 0; i < out.npcs; i++)
		fuzz_assert(outside_module(&out, out.pcs[i].pc,
					   out.pcs[i].gen) != NULL,
			    "merged PC in no module");
	profile_fini(&out);
}

static void
merge_once(const struct run *run, bool foreign)
{
	struct member mb = {.exe = "/bin/x"};
	struct merge_outside mo = {0};
	struct member_outside buf;
	uint64_t want = 0;
	size_t i;

	for (i = 0; i < run->n; i++) {
		if (outside_known(&run->members[i]) >= (1ull << 58))
			goto done; /* sums of 8 stay plausible */
		want += outside_known(&run->members[i]);
		fuzz_assert(merge_outside_add(&mo, &run->members[i],
					      foreign && i > 0) == 0,
			    "out of memory");
	}
	fuzz_assert(merge_outside_finish(&mo, &mb.outside, &buf) == 0,
		    "out of memory");
	if (!mb.outside)
		goto done;
	mb.hdr.nbuckets = 8;
	mb.hdr.bucket_size = 2;
	mb.hdr.scale = 65536;
	mb.hdr.text_start = 0x1000;
	mb.hdr.text_end = 0x1010;
	mb.hdr.samples_outside = mb.hdr.samples_total = want;
	check_written(&mb, want);
done:
	merge_outside_fini(&mo);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *sink;
	struct profile members[MAX_MEMBERS];
	struct run run = {.path = (char *)"fuzz", .members = members};
	struct report_opts opts = {.format = "text"};
	size_t i;

	if (size < 1)
		return 0;
	if (!sink)
		sink = fopen("/dev/null", "w");
	fuzz_assert(sink != NULL, "cannot open /dev/null");
	opts.force = data[0] & 1;
	opts.by_process = data[0] & 2;
	opts.format = data[0] & 4 ? "json" : "text";
	opts.top = data[0] & 8 ? 1 : 0;
	load_members(data + 1, data + size, &run);
	if (run.n > 0) {
		opts.pid = data[0] & 16 ? members[0].hdr.pid : 0;
		report_once(&run, &opts, sink);
		merge_once(&run, opts.force);
	}
	for (i = 0; i < run.n; i++)
		profile_fini(&members[i]);
	return 0;
}

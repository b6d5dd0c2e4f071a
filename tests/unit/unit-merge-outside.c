/* SPDX-License-Identifier: MIT */
/*
 * Merged PC tables: two inputs with a library at different load biases,
 * another build of it, the vdso and a PC in no object are merged and
 * written; read back, every PC maps (by the report's rule) to the same
 * object and link-time address as in its input, counts add up, and what
 * no object held is counted in pcs_unmapped.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "merge-outside.h"
#include "outside.h"
#include "unit-check.h"

/* The CLI's messages: an error fails the test, warnings are expected. */
static void
message(bool warning, const char *msg)
{
	if (warning)
		return;
	fprintf(stderr, "%s\n", msg);
	check_failures++;
}

static uint8_t vdso_a[64] = {0x7f, 'E', 'L', 'F', 1}, vdso_b[64] = {0x7f};

static void
input(struct profile *p, uint64_t bias, const char *libc_id, uint8_t *vdso)
{
	static struct profile_module mods[2][3];
	static struct profile_pc pcs[2][4];
	static int k;
	struct profile_module *m = mods[k];
	struct profile_pc *pc = pcs[k++];

	memset(p, 0, sizeof(*p));
	p->exe = (char *)"/bin/x";
	p->has_pcs = true;
	m[0] = (struct profile_module){.path = (char *)"/lib/libc.so.6",
				       .start = bias + 0x1000,
				       .end = bias + 0x9000,
				       .bias = bias,
				       .gen_loaded = 1};
	strcpy(m[0].build_id, libc_id);
	m[1] = (struct profile_module){.path = (char *)"linux-vdso.so.1",
				       .start = 0x7ffff000,
				       .end = 0x7ffff800,
				       .bias = 0x7ffff000,
				       .kind = PROFRUN_MODULE_VDSO,
				       .gen_loaded = 1};
	p->modules = m;
	p->nmodules = 2;
	pc[0] = (struct profile_pc){bias + 0x1234, 1, 5};
	pc[1] = (struct profile_pc){bias + 0x2000, 1, 7};
	pc[2] = (struct profile_pc){0x7ffff010, 1, 3};
	pc[3] = (struct profile_pc){0x10, 1, 2}; /* in no object */
	p->pcs = pc;
	p->npcs = 4;
	p->pcs_unmapped = 1;
	p->vdso = vdso;
	p->vdso_size = sizeof(vdso_a);
	p->outside = 5 + 7 + 3 + 2 + 1;
}

/* Samples of the merged P at link-time ADDR in the object PATH/ID. */
static uint64_t
at(const struct profile *p, const char *path, const char *id, uint64_t addr)
{
	const struct profile_module *m;
	uint64_t n = 0;
	size_t i;

	for (i = 0; i < p->npcs; i++) {
		m = outside_module(p, p->pcs[i].pc, p->pcs[i].gen);
		if (m && strcmp(m->path, path) == 0 &&
		    strcmp(m->build_id, id) == 0 &&
		    p->pcs[i].pc - m->bias == addr)
			n += p->pcs[i].count;
	}
	return n;
}

int
main(void)
{
	struct profile in[2], out;
	struct merge_outside mo = {0};
	struct member_outside buf;
	struct member mb = {.exe = "/bin/x"};
	char path[] = "/tmp/unit-merge-outside-XXXXXX", err[256];
	int fd;

	cli_set_message_sink(message);
	fd = mkstemp(path);

	input(&in[0], 0x7f0000000000, "aa11", vdso_a);
	input(&in[1], 0x7e0000000000, "aa11", vdso_a);
	CHECK(fd >= 0 && unlink(path) == 0);
	close(fd);
	CHECK(merge_outside_add(&mo, &in[0], false) == 0);
	CHECK(merge_outside_add(&mo, &in[1], false) == 0);
	in[1].modules[0].build_id[0] = 'b'; /* another build of libc */
	in[1].vdso = vdso_b;		    /* another kernel's vdso */
	CHECK(merge_outside_add(&mo, &in[1], false) == 0);
	CHECK(merge_outside_finish(&mo, &mb.outside, &buf) == 0);
	mb.hdr.nbuckets = 8;
	mb.hdr.bucket_size = 2;
	mb.hdr.scale = 65536;
	mb.hdr.text_start = 0x1000;
	mb.hdr.text_end = 0x1010;
	mb.hdr.samples_outside = 3 * in[0].outside;
	mb.hdr.samples_total = mb.hdr.samples_outside;
	CHECK(member_write(path, &mb) == 0);
	CHECK(profile_read(path, &out, err, sizeof(err)) == 0);
	unlink(path);
	CHECK_EQ(at(&out, "/lib/libc.so.6", "aa11", 0x1234), 10);
	CHECK_EQ(at(&out, "/lib/libc.so.6", "aa11", 0x2000), 14);
	CHECK_EQ(at(&out, "/lib/libc.so.6", "ba11", 0x1234), 5);
	CHECK_EQ(at(&out, "/lib/libc.so.6", "ba11", 0x2000), 7);
	CHECK_EQ(at(&out, "linux-vdso.so.1", "", 0x10), 6);
	CHECK_EQ(out.nmodules, 3);
	CHECK(out.vdso && memcmp(out.vdso, vdso_a, sizeof(vdso_a)) == 0);
	/* 3 x (2 + 1) in no object, and 3 in the other vdso */
	CHECK_EQ(out.pcs_unmapped, 12);
	CHECK_EQ(out.outside, 3 * in[0].outside);
	CHECK_EQ(out.pcs_unrecorded, 0);
	profile_fini(&out);
	merge_outside_fini(&mo);
	CHECK_DONE();
}

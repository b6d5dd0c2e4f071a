/* SPDX-License-Identifier: MIT */
/*
 * Harness: the DWARF side of the symbolizer (cli/symbols/source.c: line
 * tables and the scope walk for inlined functions; cli/symbols/frames.c:
 * inline chains from dwarf_getscopes) on any bytes as an executable a
 * profile names.  The input is written to a memfd and opened by path
 * (/proc/self/fd/N), as report opens it, then symbolized with lines and
 * inlined functions on at:
 *   - addresses across its code (every executable section, in steps, at
 *     most STEPS of them), as one profile's samples;
 *   - the addresses the last TAIL_WORDS 32-bit words of the input name,
 *     as offsets from the code's start (the seeds carry them after the
 *     ELF file, where nothing refers to them), as a second object's
 *     samples, so that the line cache merges new addresses in;
 *   - the levels of a call stack (symbolize_frames) at some of both.
 * Besides memory errors and leaks it checks what the report relies on:
 * every sample lands in exactly one function entry and one line entry,
 * every entry and level has a name, and a stack address has at least one
 * level, the innermost ones inlined and the last one not.
 *
 * libdw's dwarf_getscopes (0.188, and elfutils master as of 2026) loses
 * the array it allocated when the inlined subroutine holding the address
 * has an unreadable DW_AT_abstract_origin, or one that names no DIE: it
 * returns 0 or -1 and never hands the array out, so no caller can free
 * it.  The harness wraps it: what it allocates is not leak-checked, and
 * the array it returns is copied, so that a caller's own leak still
 * shows.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elfutils/libdw.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz.h"
#include "profile.h"
#include "symbolize.h"

#define STEPS	   512
#define TAIL_WORDS 16
#define MAX_LEVELS 16

/* LeakSanitizer's, when the harness is built with it. */
void __lsan_disable(void) __attribute__((weak));
void __lsan_enable(void) __attribute__((weak));

int
dwarf_getscopes(Dwarf_Die *cu, Dwarf_Addr pc, Dwarf_Die **scopes)
{
	static int (*real)(Dwarf_Die *, Dwarf_Addr, Dwarf_Die **);
	Dwarf_Die *v, *copy;
	int n;

	if (real == NULL)
		*(void **)&real = dlsym(RTLD_NEXT, "dwarf_getscopes");
	fuzz_assert(real != NULL, "libdw's dwarf_getscopes");
	if (__lsan_disable)
		__lsan_disable();
	n = real(cu, pc, &v);
	if (__lsan_enable)
		__lsan_enable();
	if (n <= 0)
		return n;
	copy = malloc((size_t)n * sizeof(*copy));
	if (copy)
		memcpy(copy, v, (size_t)n * sizeof(*copy));
	free(v);
	*scopes = copy;
	return copy ? n : -1;
}

/* [*LO, *HI): from the lowest to the highest executable section (0, 0
 * when none). */
static void
code_span(const uint8_t *data, size_t size, uint64_t *lo, uint64_t *hi)
{
	char *copy = malloc(size ? size : 1); /* libelf may convert in place */
	Elf *elf = copy ? elf_memory(memcpy(copy, data, size), size) : NULL;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	*lo = UINT64_MAX;
	*hi = 0;
	while (elf && (scn = elf_nextscn(elf, scn)) != NULL) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(sh.sh_flags & SHF_EXECINSTR) || sh.sh_size == 0 ||
		    sh.sh_addr + sh.sh_size < sh.sh_addr)
			continue;
		if (sh.sh_addr < *lo)
			*lo = sh.sh_addr;
		if (sh.sh_addr + sh.sh_size > *hi)
			*hi = sh.sh_addr + sh.sh_size;
	}
	if (elf)
		elf_end(elf);
	free(copy);
	if (*lo >= *hi)
		*lo = *hi = 0;
}

static int
cmp_sample(const void *a, const void *b)
{
	const struct profile_sample *x = a, *y = b;

	return (x->addr > y->addr) - (x->addr < y->addr);
}

/* Sort V[0..N) by address, merge repeats; returns how many remain. */
static size_t
sort_samples(struct profile_sample *v, size_t n)
{
	size_t k = 0;

	qsort(v, n, sizeof(*v), cmp_sample);
	for (size_t i = 0; i < n; i++) {
		if (k > 0 && v[k - 1].addr == v[i].addr)
			v[k - 1].count += v[i].count;
		else
			v[k++] = v[i];
	}
	return k;
}

/* The stepped addresses of [LO, HI) into V (room for STEPS + 1). */
static size_t
stepped(uint64_t lo, uint64_t hi, struct profile_sample *v)
{
	uint64_t step = (hi - lo) / STEPS + 1, a;
	size_t n = 0;

	for (a = lo; a < hi && n <= STEPS; a += step) {
		v[n++] = (struct profile_sample){.addr = a, .count = 1 + a % 3};
		if (a + step < a)
			break;
	}
	return n;
}

/* The addresses the input's tail names into V (room for TAIL_WORDS). */
static size_t
from_tail(const uint8_t *data, size_t size, uint64_t lo, uint64_t hi,
	  struct profile_sample *v)
{
	size_t n = 0;
	uint32_t w;

	if (size < TAIL_WORDS * sizeof(w))
		return 0;
	data += size - TAIL_WORDS * sizeof(w);
	for (; n < TAIL_WORDS; n++, data += sizeof(w)) {
		memcpy(&w, data, sizeof(w));
		/* in the code or up to 256 bytes past it, else as it is */
		v[n].addr = hi > lo ? lo + w % (hi - lo + 256) : w;
		v[n].count = 1;
	}
	return n;
}

static uint64_t
total(const struct profile_sample *v, size_t n)
{
	uint64_t t = 0;

	for (size_t i = 0; i < n; i++)
		t += v[i].count;
	return t;
}

static void
check_list(const struct func_list *l, uint64_t samples)
{
	for (size_t i = 0; i < l->n; i++)
		fuzz_assert(l->v[i].name != NULL && l->v[i].symbol != NULL &&
				    l->v[i].module != NULL,
			    "an entry without a name");
	fuzz_assert(func_list_samples(l, 0) == samples,
		    "samples lost or counted twice");
}

/* symbolize() or, for a second object, symbolize_object() of V. */
static void
run_report(struct symbolizer *sz, const struct profile *p,
	   const struct sym_object *o, const struct profile_sample *v, size_t n)
{
	struct func_list funcs = {.key = KEY_FUNCTION};
	struct func_list lines = {.key = KEY_LINE_CALLER};
	uint64_t t = total(v, n);
	int r = o ? symbolize_object(sz, o, v, n, &funcs, &lines)
		  : symbolize(sz, p, v, n, &funcs, &lines);

	if (r == 0) { /* -1: out of memory */
		check_list(&funcs, t);
		check_list(&lines, t);
		func_list_finish(&funcs);
		func_list_finish(&lines);
		check_list(&funcs, t);
		check_list(&lines, t);
	}
	func_list_fini(&funcs);
	func_list_fini(&lines);
}

static void
run_frames(struct symbolizer *sz, const struct sym_object *o, uint64_t addr,
	   int max)
{
	struct sym_frame f[MAX_LEVELS];
	int k = symbolize_frames(sz, o, addr, f, max);

	if (k < 0)
		return; /* out of memory */
	fuzz_assert(k >= 1 && k <= max, "levels");
	for (int j = 0; j < k; j++) {
		fuzz_assert(f[j].name != NULL && f[j].symbol != NULL,
			    "a level without a name");
		fuzz_assert(f[j].inlined == (j < k - 1),
			    "inlined levels are not the innermost ones");
	}
}

static void
run_source(struct symbolizer *sz, const struct profile *p, uint64_t addr)
{
	char *file = NULL;
	int line = -1;

	if (symbolize_source(sz, p, addr, &file, &line) == 0)
		fuzz_assert(file != NULL || line == 0, "a line without a file");
	free(file);
}

static void
symbolize_all(const char *path, const struct profile_sample *steps, size_t ns,
	      const struct profile_sample *tail, size_t nt)
{
	static const struct sym_opts so = {
		.demangle = true, .inlines = true, .lines = true};
	struct symbolizer *sz = symbolizer_new(&so);
	struct profile p = {.path = (char *)"fuzz", .exe = (char *)path};
	struct sym_object o = {.name = path,
			       .build_id = "",
			       .what = "fuzz",
			       .granule = 2,
			       .library = true};
	size_t i;

	if (sz == NULL)
		return;
	p.hdr.bucket_size = 2;
	run_report(sz, &p, NULL, steps, ns);
	run_report(sz, NULL, &o, tail, nt);
	for (i = 0; i < ns; i += 7)
		run_frames(sz, &o, steps[i].addr, MAX_LEVELS);
	for (i = 0; i < nt; i++) {
		run_frames(sz, &o, tail[i].addr, 1 + (int)(i % MAX_LEVELS));
		run_source(sz, &p, tail[i].addr);
	}
	symbolizer_free(sz);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int ready;
	struct profile_sample steps[STEPS + 1], tail[TAIL_WORDS];
	size_t ns, nt;
	uint64_t lo, hi;
	char path[64];
	int fd;

	if (!ready) {
		elf_version(EV_CURRENT);
		unsetenv("DEBUGINFOD_URLS"); /* never the network */
		ready = 1;
	}
	code_span(data, size, &lo, &hi);
	ns = sort_samples(steps, stepped(lo, hi, steps));
	nt = sort_samples(tail, from_tail(data, size, lo, hi, tail));
	fd = memfd_create("fuzz-dwarf", MFD_CLOEXEC);
	if (fd < 0)
		return 0;
	if (write(fd, data, size) == (ssize_t)size) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		symbolize_all(path, steps, ns, tail, nt);
	}
	close(fd);
	return 0;
}

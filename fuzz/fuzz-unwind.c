/* SPDX-License-Identifier: MIT */
/*
 * Harness: the unwinder (cli/symbols/unwind.c) and the naming of frames
 * (cli/symbols/frames.c) on any registers and stack words.  The process
 * is fixed: a real executable (FUZZ_EXE) and the C library, each at a
 * load bias, so that the PC and the return addresses the input makes up
 * land in real code with real CFI.  Input: a byte choosing the object,
 * 17 registers (x86-64 DWARF order), then the stack's words.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "profile.h"
#include "symbolize.h"
#include "unwind.h"

#define EXE_BIAS  0x555555554000ull
#define LIBC_BIAS 0x7f0000000000ull
#define SPAN	  0x400000ull
#define LIBC	  "/lib/x86_64-linux-gnu/libc.so.6"

static struct profile proc;
static struct profile_module mods[2];
static struct unwinder *uw;
static struct symbolizer *sz;

static void
setup(void)
{
	static const struct sym_opts so = {.demangle = true};

	mods[0] = (struct profile_module){.path = (char *)FUZZ_EXE,
					  .start = EXE_BIAS,
					  .end = EXE_BIAS + SPAN,
					  .bias = EXE_BIAS,
					  .kind = PROFRUN_MODULE_MAIN};
	mods[1] = (struct profile_module){.path = (char *)LIBC,
					  .start = LIBC_BIAS,
					  .end = LIBC_BIAS + SPAN,
					  .bias = LIBC_BIAS,
					  .kind = PROFRUN_MODULE_LIBRARY};
	proc.exe = (char *)FUZZ_EXE;
	proc.path = (char *)"fuzz";
	proc.modules = mods;
	proc.nmodules = 2;
	uw = unwinder_new(&proc);
	sz = symbolizer_new(&so);
	fuzz_assert(uw != NULL && sz != NULL, "set-up");
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct profile_stack s = {.tid = 1, .count = 1};
	uint64_t pcs[256];
	size_t n, off = 1 + PROFRUN_STACK_REGS * 8; /* x86-64's registers */

	if (uw == NULL)
		setup();
	if (size < off)
		return 0;
	memcpy(s.regs, data + 1, PROFRUN_STACK_REGS * 8);
	/* the PC inside one of the two objects */
	s.regs[16] = (data[0] & 1 ? LIBC_BIAS : EXE_BIAS) + s.regs[16] % SPAN;
	s.sp = s.regs[7];
	s.data = data + off;
	s.size = (uint32_t)((size - off) & ~(size_t)7);
	if (s.size > 65536)
		s.size = 65536;
	n = unwinder_run(uw, &s, pcs, 256);
	fuzz_assert(n >= 1 && n <= 256, "frame count");
	fuzz_assert(pcs[0] == s.regs[16], "the leaf is the interrupted PC");
	for (size_t i = 0; i < n; i++) {
		const struct profile_module *m =
			pcs[i] >= LIBC_BIAS && pcs[i] < LIBC_BIAS + SPAN
				? &mods[1]
			: pcs[i] >= EXE_BIAS && pcs[i] < EXE_BIAS + SPAN
				? &mods[0]
				: NULL;
		struct sym_object o = {
			.build_id = "", .what = "fuzz", .granule = 1};
		struct sym_frame f[16];
		int k;

		if (m == NULL)
			continue;
		o.name = m->path;
		o.library = m == &mods[1];
		k = symbolize_frames(sz, &o, pcs[i] - m->bias, f, 16);
		fuzz_assert(k >= 1 && k <= 16, "levels");
		for (int j = 0; j < k; j++)
			fuzz_assert(f[j].name != NULL,
				    "a level without a name");
	}
	return 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * Telling kernel time apart: a sample whose PC sits right after a
 * system-call instruction was taken when the thread came back from that
 * call, so the CPU time it stands for was spent in the kernel on the
 * program's behalf (docs/kernel-time.md).
 */
#ifndef PROFRUN_CLI_SYSCALL_SITE_H
#define PROFRUN_CLI_SYSCALL_SITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <elfutils/libdwfl.h>

/* The executable sections of one module, as read from its ELF file. */
struct code_bytes {
	struct code_section *v;
	size_t n;
	unsigned machine; /* EM_X86_64, EM_AARCH64; other: never kernel */
};

/* Read MOD's executable sections into C (link-time addresses).  A module
 * whose code cannot be read simply has none.  Returns 0, or -1 when out of
 * memory. */
int code_bytes_load(struct code_bytes *c, Dwfl_Module *mod);
void code_bytes_fini(struct code_bytes *c);

/* True when some PC in link-time [ADDR, ADDR + GRANULE) directly follows
 * a system-call instruction (x86-64 syscall 0f 05; AArch64 svc #0). */
bool code_after_syscall(const struct code_bytes *c, uint64_t addr,
			uint64_t granule);

#endif /* PROFRUN_CLI_SYSCALL_SITE_H */

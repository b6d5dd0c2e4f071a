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

/* The last bytes of code read. */
struct code_window {
	const struct code_section *s; /* NULL: none */
	uint64_t off, len;	      /* in the section */
	uint8_t buf[512];
};

/* The executable sections of one module, read from its ELF file where
 * samples fell (a few bytes each, not the whole code: the code of a large
 * program is tens of megabytes). */
struct code_bytes {
	struct code_section *v;
	size_t n;
	unsigned machine; /* EM_X86_64, EM_AARCH64, EM_RISCV; other: never
			   * kernel */
	int fd;		  /* the file, or -1 */
	struct code_window window;
};

/* The executable sections of MOD into C (link-time addresses), their
 * bytes to be read from FD, MOD's file (taken: closed by
 * code_bytes_fini, or at once when of no use).  A module whose code
 * cannot be read simply has none.  Returns 0, or -1 when out of memory. */
int code_bytes_load(struct code_bytes *c, Dwfl_Module *mod, int fd);
void code_bytes_fini(struct code_bytes *c);

/* True when some PC in link-time [ADDR, ADDR + GRANULE) directly follows
 * a system-call instruction (x86-64 syscall 0f 05; AArch64 svc #0; RISC-V
 * ecall). */
bool code_after_syscall(struct code_bytes *c, uint64_t addr, uint64_t granule);

#endif /* PROFRUN_CLI_SYSCALL_SITE_H */

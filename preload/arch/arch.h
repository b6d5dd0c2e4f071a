/* SPDX-License-Identifier: MIT */
/*
 * What the shim does differently on each CPU, one header per CPU in
 * arch/, chosen here by the compiler's target:
 *
 *   ARCH_ELF_MACHINE        e_machine of this CPU's programs (EM_*)
 *   ARCH_STACK_REGS         registers a stack slot holds (DWARF order)
 *   ARCH_REG_SP, ARCH_REG_PC  their indexes of the stack and program counter
 *   arch_ucontext_pc(uc)    the interrupted PC
 *   arch_ucontext_regs(uc, regs)  the ARCH_STACK_REGS registers
 *   arch_syscall6(nr, ...)  a system call made with the instruction itself
 *   ARCH_LARGE_SECTION      where the large zeroed arrays go (after the
 *                           small variables every process touches)
 *   ARCH_TRAMPOLINE(fn, file_reg), ARCH_DLOPEN_FILE, ARCH_DLMOPEN_FILE
 *                           dlopen()'s entry that hands the caller's
 *                           address to the shim (where the CPU has one)
 *
 * All of it is async-signal-safe.  The vfork() that flags its child is
 * assembly, vfork-CPU.S, built where it exists (meson.build).
 */
#ifndef PROFRUN_SHIM_ARCH_H
#define PROFRUN_SHIM_ARCH_H

#include <elf.h>
#include <stdint.h>
#include <ucontext.h>

#include "profrun/format.h"

#if defined(__x86_64__)
#include "x86_64.h"
#elif defined(__aarch64__)
#include "aarch64.h"
#elif defined(__riscv) && __riscv_xlen == 64
#include "riscv64.h"
#else
#error "profrun: no preload/arch/ header for this CPU"
#endif

_Static_assert(ARCH_STACK_REGS >= PROFRUN_STACK_REGS &&
		       ARCH_STACK_REGS <= PROFRUN_STACK_REGS_MAX,
	       "a slot's registers: its head's and at most the most");

#endif /* PROFRUN_SHIM_ARCH_H */

/* SPDX-License-Identifier: MIT */
/* RISC-V 64 (included by arch.h only). */
#ifndef PROFRUN_SHIM_ARCH_RISCV64_H
#define PROFRUN_SHIM_ARCH_RISCV64_H

#define ARCH_ELF_MACHINE EM_RISCV
/* DWARF 0-31: x0-x31 (x0 is zero, x2 the sp); then the pc, which
 * libdwfl's riscv backend takes apart */
#define ARCH_STACK_REGS 33
#define ARCH_REG_SP	2
#define ARCH_REG_PC	32

/* the kernel's context holds the pc where x0 would be (REG_PC, 0) */
static inline uintptr_t
arch_ucontext_pc(const ucontext_t *uc)
{
	return (uintptr_t)uc->uc_mcontext.__gregs[0];
}

static inline void
arch_ucontext_regs(const ucontext_t *uc, uint64_t *regs)
{
	regs[0] = 0;
	for (int i = 1; i < 32; i++)
		regs[i] = (uint64_t)uc->uc_mcontext.__gregs[i];
	regs[ARCH_REG_PC] = (uint64_t)uc->uc_mcontext.__gregs[0];
}

static inline long
arch_syscall6(long nr, long a0, long a1, long a2, long a3, long a4, long a5)
{
	register long a7_ __asm__("a7") = nr;
	register long a0_ __asm__("a0") = a0;
	register long a1_ __asm__("a1") = a1;
	register long a2_ __asm__("a2") = a2;
	register long a3_ __asm__("a3") = a3;
	register long a4_ __asm__("a4") = a4;
	register long a5_ __asm__("a5") = a5;

	__asm__ volatile("ecall"
			 : "+r"(a0_)
			 : "r"(a7_), "r"(a1_), "r"(a2_), "r"(a3_), "r"(a4_),
			   "r"(a5_)
			 : "memory");
	return a0_;
}

#define ARCH_LARGE_SECTION

/* no trampoline: dlopen() is an ordinary wrapper (dl.c) */

#endif /* PROFRUN_SHIM_ARCH_RISCV64_H */

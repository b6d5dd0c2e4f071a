/* SPDX-License-Identifier: MIT */
/* AArch64 (included by arch.h only). */
#ifndef PROFRUN_SHIM_ARCH_AARCH64_H
#define PROFRUN_SHIM_ARCH_AARCH64_H

#define ARCH_ELF_MACHINE EM_AARCH64
/* DWARF 0-31: x0-x30 sp; then the pc (libdwfl's aarch64 backend takes
 * 0-31 and the pc apart, as the kernel's perf registers do) */
#define ARCH_STACK_REGS 33
#define ARCH_REG_SP	31
#define ARCH_REG_PC	32

static inline uintptr_t
arch_ucontext_pc(const ucontext_t *uc)
{
	return (uintptr_t)uc->uc_mcontext.pc;
}

static inline void
arch_ucontext_regs(const ucontext_t *uc, uint64_t *regs)
{
	for (int i = 0; i < 31; i++)
		regs[i] = (uint64_t)uc->uc_mcontext.regs[i];
	regs[ARCH_REG_SP] = (uint64_t)uc->uc_mcontext.sp;
	regs[ARCH_REG_PC] = (uint64_t)uc->uc_mcontext.pc;
}

static inline long
arch_syscall6(long nr, long a0, long a1, long a2, long a3, long a4, long a5)
{
	register long x8 __asm__("x8") = nr;
	register long x0 __asm__("x0") = a0;
	register long x1 __asm__("x1") = a1;
	register long x2 __asm__("x2") = a2;
	register long x3 __asm__("x3") = a3;
	register long x4 __asm__("x4") = a4;
	register long x5 __asm__("x5") = a5;

	__asm__ volatile("svc #0"
			 : "+r"(x0)
			 : "r"(x8), "r"(x1), "r"(x2), "r"(x3), "r"(x4), "r"(x5)
			 : "memory");
	return x0;
}

#define ARCH_LARGE_SECTION

#ifdef __ARM_FEATURE_BTI_DEFAULT
#define ARCH_LANDING "bti c\n"
#else
#define ARCH_LANDING ""
#endif
/* save the argument registers, call shim_<fn>_target(file, caller),
 * restore them, jump to the address it returned */
#define ARCH_TRAMPOLINE(fn, file_reg)                                          \
	__asm__(".text\n"                                                      \
		".globl " #fn "\n"                                             \
		".type " #fn ", %function\n"                                   \
		".p2align 4\n" #fn ":\n"                                       \
		".cfi_startproc\n" ARCH_LANDING "stp x29, x30, [sp, -48]!\n"   \
		".cfi_def_cfa_offset 48\n"                                     \
		".cfi_offset 29, -48\n.cfi_offset 30, -40\n"                   \
		"mov x29, sp\n"                                                \
		"stp x0, x1, [sp, 16]\n"                                       \
		"str x2, [sp, 32]\n"                                           \
		"mov x0, " file_reg "\n"                                       \
		"mov x1, x30\n"                                                \
		"bl shim_" #fn "_target\n"                                     \
		"mov x16, x0\n"                                                \
		"ldp x0, x1, [sp, 16]\n"                                       \
		"ldr x2, [sp, 32]\n"                                           \
		"ldp x29, x30, [sp], 48\n"                                     \
		".cfi_def_cfa_offset 0\n"                                      \
		"br x16\n"                                                     \
		".cfi_endproc\n"                                               \
		".size " #fn ", . - " #fn "\n")
#define ARCH_DLOPEN_FILE  "x0"
#define ARCH_DLMOPEN_FILE "x1"

#endif /* PROFRUN_SHIM_ARCH_AARCH64_H */

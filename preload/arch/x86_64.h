/* SPDX-License-Identifier: MIT */
/* x86-64 (included by arch.h only). */
#ifndef PROFRUN_SHIM_ARCH_X86_64_H
#define PROFRUN_SHIM_ARCH_X86_64_H

#define ARCH_ELF_MACHINE EM_X86_64
/* DWARF 0-16: rax rdx rcx rbx rsi rdi rbp rsp r8-r15 rip */
#define ARCH_STACK_REGS 17
#define ARCH_REG_SP	7
#define ARCH_REG_PC	16

static inline uintptr_t
arch_ucontext_pc(const ucontext_t *uc)
{
	return (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
}

static inline void
arch_ucontext_regs(const ucontext_t *uc, uint64_t *regs)
{
	static const int map[ARCH_STACK_REGS] = {
		REG_RAX, REG_RDX, REG_RCX, REG_RBX, REG_RSI, REG_RDI,
		REG_RBP, REG_RSP, REG_R8,  REG_R9,  REG_R10, REG_R11,
		REG_R12, REG_R13, REG_R14, REG_R15, REG_RIP,
	};

	for (int i = 0; i < ARCH_STACK_REGS; i++)
		regs[i] = (uint64_t)uc->uc_mcontext.gregs[map[i]];
}

static inline long
arch_syscall6(long nr, long a0, long a1, long a2, long a3, long a4, long a5)
{
	register long r10 __asm__("r10") = a3;
	register long r8 __asm__("r8") = a4;
	register long r9 __asm__("r9") = a5;
	long ret;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "0"(nr), "D"(a0), "S"(a1), "d"(a2), "r"(r10),
			   "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
	return ret;
}

/* the large zeroed arrays, after everything else (.lbss follows .bss):
 * the small variables that every process touches at start stay together
 * on a page or two before them, one page fault each, rather than spread
 * between the arrays' pages */
#if defined(__clang__)
/* clang makes a section of that name PROGBITS: megabytes of stored zeros */
#define ARCH_LARGE_SECTION
#else
#define ARCH_LARGE_SECTION __attribute__((section(".lbss")))
#endif

#ifdef __CET__
#define ARCH_LANDING "endbr64\n"
#else
#define ARCH_LANDING ""
#endif
/* save the argument registers, call shim_<fn>_target(file, caller),
 * restore them, jump to the address it returned */
#define ARCH_TRAMPOLINE(fn, file_reg)                                          \
	__asm__(".text\n"                                                      \
		".globl " #fn "\n"                                             \
		".type " #fn ", @function\n"                                   \
		".p2align 4\n" #fn ":\n"                                       \
		".cfi_startproc\n" ARCH_LANDING                                \
		"push %rdi\n.cfi_adjust_cfa_offset 8\n"                        \
		"push %rsi\n.cfi_adjust_cfa_offset 8\n"                        \
		"push %rdx\n.cfi_adjust_cfa_offset 8\n"                        \
		"mov " file_reg ", %rdi\n"                                     \
		"mov 24(%rsp), %rsi\n"                                         \
		"call shim_" #fn "_target\n"                                   \
		"pop %rdx\n.cfi_adjust_cfa_offset -8\n"                        \
		"pop %rsi\n.cfi_adjust_cfa_offset -8\n"                        \
		"pop %rdi\n.cfi_adjust_cfa_offset -8\n"                        \
		"jmp *%rax\n"                                                  \
		".cfi_endproc\n"                                               \
		".size " #fn ", . - " #fn "\n")
#define ARCH_DLOPEN_FILE  "%rdi"
#define ARCH_DLMOPEN_FILE "%rsi"

#endif /* PROFRUN_SHIM_ARCH_X86_64_H */

/* SPDX-License-Identifier: MIT */
/*
 * vfork() for x86-64, as glibc's own (the return address kept in a
 * register: the child returns first, on the stack both share), plus: the
 * child goes through shim_vfork_child_start (shim.c), which sets the TLS
 * flag shim_vfork_child and gives the child what the program set for
 * SIGPROF, then returns 0 to vfork's caller; the parent clears the flag
 * as vfork returns there.  The child runs on the parent thread's memory
 * and TLS, so the flag tells the interposers that this is not the process
 * that owns the profile, without a getpid() in every call.  Errors go
 * through shim_vfork_failed (errno, -1).
 */
	.text
	.globl	vfork
	.type	vfork, @function
	.p2align 4
vfork:
	.cfi_startproc
	endbr64
	popq	%rdi
	.cfi_adjust_cfa_offset -8
	.cfi_register %rip, %rdi
	movl	$58, %eax		/* SYS_vfork */
	syscall
	pushq	%rdi
	.cfi_adjust_cfa_offset 8
	.cfi_rel_offset %rip, 0
	cmpq	$-4095, %rax
	jae	1f
	testq	%rax, %rax
	jz	2f
	movq	shim_vfork_child@gottpoff(%rip), %rcx
	movb	$0, %fs:(%rcx)
	ret
2:
	jmp	shim_vfork_child_start
1:
	movq	%rax, %rdi
	jmp	shim_vfork_failed
	.cfi_endproc
	.size	vfork, .-vfork

	.section .note.GNU-stack, "", @progbits

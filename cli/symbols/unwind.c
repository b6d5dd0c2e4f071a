/* SPDX-License-Identifier: MIT */
/*
 * Unwinding the stacks the shim copied, offline, with libdwfl (as perf's
 * --call-graph dwarf does): one Dwfl per process image, its objects
 * reported at their run-time addresses, attached once with thread
 * callbacks whose memory reads are served from the copy of the sample
 * being unwound, and reused for all of that image's samples.
 */
#define _GNU_SOURCE
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cli.h"
#include "debuginfo.h"
#include "file.h"
#include "unwind.h"

struct unwinder {
	Dwfl *dwfl;
	unsigned machine; /* of the registers: EM_X86_64 (or 0), EM_AARCH64,
			   * EM_RISCV */
	bool attached, attach_failed;
	const struct profile_stack *cur; /* the sample being unwound */
	uint64_t *pcs;			 /* where its frames go */
	size_t n, max;
	bool complete; /* the last stack reached its outermost frame */
};

/* ------------------------------------------------------- thread callbacks */

static pid_t
next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	struct unwinder *u = arg;

	(void)dwfl;
	if (*thread_argp != NULL || u->cur == NULL)
		return 0;
	*thread_argp = u;
	return u->cur->tid > 0 ? u->cur->tid : 1;
}

static bool
get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_argp)
{
	(void)dwfl;
	(void)tid;
	*thread_argp = arg;
	return true;
}

/* A word of the copied stack; anything else is unreadable. */
static bool
memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	struct unwinder *u = arg;
	const struct profile_stack *s = u->cur;

	(void)dwfl;
	if (s == NULL || addr < s->sp || s->size < sizeof(*result) ||
	    addr - s->sp > s->size - sizeof(*result))
		return false;
	memcpy(result, s->data + (addr - s->sp), sizeof(*result));
	return true;
}

/* Where a machine's slots keep the stack pointer and the pc, and how many
 * registers before the pc libdwfl takes as a block (DWARF 0 on): x86-64
 * has rip as DWARF 16, AArch64 and RISC-V give the pc apart
 * (dwfl_thread_state_register_pc), after their 32 registers. */
struct machine_regs {
	unsigned sp, pc, block;
};

static struct machine_regs
machine_regs(unsigned machine)
{
	switch (machine) {
	case EM_AARCH64:
		return (struct machine_regs){.sp = 31, .pc = 32, .block = 32};
	case EM_RISCV:
		return (struct machine_regs){.sp = 2, .pc = 32, .block = 32};
	default: /* EM_X86_64 */
		return (struct machine_regs){.sp = 7, .pc = 16, .block = 17};
	}
}

static bool
set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	struct unwinder *u = arg;
	struct machine_regs m = machine_regs(u->machine);
	Dwarf_Word regs[PROFRUN_STACK_REGS_MAX];
	bool pc_apart = m.pc >= m.block;

	for (size_t i = 0; i < PROFRUN_STACK_REGS_MAX; i++)
		regs[i] = u->cur->regs[i];
	if (pc_apart)
		dwfl_thread_state_register_pc(thread, regs[m.pc]);
	/* a blocked thread's stack (--wall): only SP and PC are known, the
	 * others stay undefined for the unwinder rather than 0 */
	if (u->cur->flags & PROFRUN_STACK_BLOCKED)
		return dwfl_thread_state_registers(thread, m.sp, 1,
						   &regs[m.sp]) &&
		       (pc_apart || dwfl_thread_state_registers(thread, m.pc, 1,
								&regs[m.pc]));
	return dwfl_thread_state_registers(thread, 0, m.block, regs);
}

static const Dwfl_Thread_Callbacks thread_callbacks = {
	.next_thread = next_thread,
	.get_thread = get_thread,
	.memory_read = memory_read,
	.set_initial_registers = set_initial_registers,
};

/* ---------------------------------------------------------------- modules */

/* A descriptor of an in-memory ELF image (the vdso's), or -1. */
static int
image_fd(const uint8_t *image, size_t size)
{
	int fd = memfd_create("profrun-vdso", MFD_CLOEXEC);

	if (fd >= 0 && write(fd, image, size) != (ssize_t)size) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/* Whether [START, END) overlaps a module reported already. */
static bool
taken(Dwfl *dwfl, uint64_t start, uint64_t end)
{
	Dwfl_Module *m = dwfl_addrmodule(dwfl, start);

	if (m == NULL && end > start)
		m = dwfl_addrmodule(dwfl, end - 1);
	return m != NULL;
}

/* Report the object M of P at its load bias (objects still loaded at the
 * end first, then ones unloaded, where their place is free). */
static void
report(Dwfl *dwfl, const struct profile *p, const struct profile_module *m)
{
	const char *path = m->kind == PROFRUN_MODULE_MAIN ? p->exe : m->path;
	int fd;

	if (taken(dwfl, m->start, m->end))
		return;
	if (m->kind == PROFRUN_MODULE_VDSO)
		fd = p->vdso ? image_fd(p->vdso, p->vdso_size) : -1;
	else
		fd = cli_open_target(path);
	if (fd < 0)
		return; /* its frames end the stack */
	if (dwfl_report_elf(dwfl, path, path, fd, m->bias, true) == NULL)
		close(fd);
}

struct unwinder *
unwinder_new(const struct profile *p)
{
	struct unwinder *u = calloc(1, sizeof(*u));

	if (u == NULL)
		return NULL;
	u->machine = p->stacks.machine;
	u->dwfl = dwfl_begin(&debuginfo_callbacks);
	if (u->dwfl == NULL) {
		free(u);
		return NULL;
	}
	dwfl_report_begin(u->dwfl);
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < p->nmodules; i++)
			if ((p->modules[i].gen_unloaded == 0) == (pass == 0))
				report(u->dwfl, p, &p->modules[i]);
	dwfl_report_end(u->dwfl, NULL, NULL);
	return u;
}

void
unwinder_free(struct unwinder *u)
{
	if (u == NULL)
		return;
	dwfl_end(u->dwfl);
	free(u);
}

static int
frame_cb(Dwfl_Frame *state, void *arg)
{
	struct unwinder *u = arg;
	Dwarf_Addr pc;
	bool activation;

	if (!dwfl_frame_pc(state, &pc, &activation))
		return DWARF_CB_ABORT;
	if (!activation && pc > 0)
		pc--; /* a return address: the call is the byte before */
	if (pc == 0 || u->n >= u->max)
		return DWARF_CB_ABORT;
	u->pcs[u->n++] = pc;
	return DWARF_CB_OK;
}

/* Whether the CFI at run-time PC says the caller's return address is
 * undefined: the outermost frame, as _start, clone and clone3 mark
 * theirs (cfi_undefined (rip)), named or not. */
static bool
outermost(Dwfl *dwfl, Dwarf_Addr pc)
{
	Dwfl_Module *m = dwfl_addrmodule(dwfl, pc);
	Dwarf_Op mem[3], *ops;
	Dwarf_Frame *f;
	Dwarf_CFI *cfi;
	Dwarf_Addr bias;
	size_t nops;
	bool undefined = false;
	int ra;

	for (int k = 0; m && k < 2 && !undefined; k++) {
		cfi = k == 0 ? dwfl_module_eh_cfi(m, &bias)
			     : dwfl_module_dwarf_cfi(m, &bias);
		if (cfi == NULL || pc < bias ||
		    dwarf_cfi_addrframe(cfi, pc - bias, &f) != 0)
			continue;
		ra = dwarf_frame_info(f, NULL, NULL, NULL);
		/* "undefined": no operations, in the caller's array */
		undefined =
			ra >= 0 &&
			dwarf_frame_register(f, ra, mem, &ops, &nops) == 0 &&
			nops == 0 && ops == mem;
		free(f);
	}
	return undefined;
}

size_t
unwinder_run(struct unwinder *u, const struct profile_stack *s, uint64_t *pcs,
	     size_t max)
{
	u->cur = s;
	u->pcs = pcs;
	u->n = 0;
	u->max = max;
	if (!u->attached && !u->attach_failed) {
		/* attached once, the first time: its Ebl comes from a module */
		u->attached = dwfl_attach_state(u->dwfl, NULL,
						s->tid > 0 ? s->tid : 1,
						&thread_callbacks, u);
		u->attach_failed = !u->attached;
	}
	if (u->attached)
		dwfl_getthread_frames(u->dwfl, s->tid > 0 ? s->tid : 1,
				      frame_cb, u);
	u->complete = u->n > 0 && u->n < u->max &&
		      outermost(u->dwfl, u->pcs[u->n - 1]);
	if (u->n == 0 && max > 0)
		pcs[u->n++] = unwinder_pc(u, s);
	u->cur = NULL;
	return u->n;
}

uint64_t
unwinder_pc(const struct unwinder *u, const struct profile_stack *s)
{
	return s->regs[machine_regs(u->machine).pc];
}

bool
unwinder_complete(const struct unwinder *u)
{
	return u->complete;
}

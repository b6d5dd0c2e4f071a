/* SPDX-License-Identifier: MIT */
/*
 * Call stacks (PROFRUN_STACKS=1, profrun -g): for each sample the handler
 * copies the interrupted thread's registers and the top of its stack into
 * a slot of the member's stack area (struct profrun_stacks); the CLI
 * unwinds them later with libdwfl, as perf does with --call-graph dwarf.
 * Nothing is unwound here, nothing is locked or allocated.
 *
 * The copy never faults: it goes through process_vm_readv on our own pid
 * (or, where that is missing, as under qemu-user, only as far as
 * /proc/self/maps shows readable memory), which stops short at a page
 * that cannot be read (a guard page of a
 * coroutine stack carved out of the thread's, a page the program
 * protected, the end of a stack mmapped elsewhere) where a load would
 * raise SIGSEGV.  It never reads past the thread's own stack when the
 * stack pointer is inside it (the bounds are recorded outside the
 * handler: the main thread's when the shim starts, every other thread's
 * when it starts through pthread_create); elsewhere (a coroutine's stack,
 * a handler on an alternate stack) it reads stack_max bytes or up to the
 * first unreadable page.
 *
 * Slots: the first slot_count samples take one each; sample n after them
 * replaces slot j for a j drawn uniformly in [0, n] when j < slot_count
 * (reservoir sampling), so the slots hold a uniform sample of all samples
 * while the flat counts stay exact.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "arch/arch.h"
#include "shim.h"
#include "sample/sample.h"
#include "member/member.h"
#include "sys.h"

/* registers after a slot's head, before its stack (none on x86-64) */
#define EXTRA_REGS (ARCH_STACK_REGS - PROFRUN_STACK_REGS)

static struct {
	uint32_t stack_max; /* 0 = stacks off */
	uint32_t slot_count;
	uint32_t slot_size;
	pid_t pid; /* whose stack a copy reads: this process, asked at attach */
	struct profrun_stacks *area; /* in the current member, or NULL */
} st;

/* The calling thread's stack [lo, hi); hi == 0: unknown. */
static __thread uintptr_t t_lo __attribute__((tls_model("initial-exec")));
static __thread uintptr_t t_hi __attribute__((tls_model("initial-exec")));
static __thread uint64_t t_rng __attribute__((tls_model("initial-exec")));
/* The calling thread's id, set when it starts (0: not known, asked) */
static __thread int t_tid __attribute__((tls_model("initial-exec")));

/* Not async-signal-safe (called once, from the settings). */
void
stacks_configure(uint32_t stack_max, uint32_t slot_count)
{
	if (stack_max > SHIM_MAX_STACK)
		stack_max = SHIM_MAX_STACK;
	stack_max &= ~7u;
	st.stack_max = stack_max;
	st.slot_count = stack_max ? slot_count : 0;
	st.slot_size = (uint32_t)ALIGN_UP(sizeof(struct profrun_stack_slot) +
						  EXTRA_REGS * 8 + stack_max,
					  64);
	if (st.slot_count == 0)
		st.stack_max = 0;
}

/* Pure, async-signal-safe. */
uint64_t
stacks_area_size(void)
{
	if (st.stack_max == 0)
		return 0;
	return sizeof(struct profrun_stacks) +
	       (uint64_t)st.slot_count * st.slot_size;
}

/* Async-signal-safe. */
void
stacks_attach(struct profrun_header *h, uint64_t off)
{
	struct profrun_stacks *a;

	if (st.stack_max == 0 || off == 0) {
		__atomic_store_n(&st.area, NULL, __ATOMIC_RELEASE);
		return;
	}
	a = (struct profrun_stacks *)((char *)h + off);
	st.pid = (pid_t)syscall(SYS_getpid);
	a->slot_size = st.slot_size;
	a->slot_count = st.slot_count;
	a->stack_max = st.stack_max;
	a->arch = ARCH_ELF_MACHINE;
	a->nregs = ARCH_STACK_REGS;
	__atomic_store_n(&st.area, a, __ATOMIC_RELEASE);
}

/* Not async-signal-safe (pthread_getattr_np). */
void
stacks_thread_start(void)
{
	pthread_attr_t attr;
	void *addr;
	size_t size;

	if (st.stack_max == 0)
		return;
	t_tid = (int)syscall(SYS_gettid);
	t_rng = (uint64_t)t_tid * 0x9e3779b97f4a7c15ull ^
		(uint64_t)writer_now_ns();
	if (pthread_getattr_np(pthread_self(), &attr) != 0)
		return;
	if (pthread_attr_getstack(&attr, &addr, &size) == 0 && size > 0) {
		t_lo = (uintptr_t)addr;
		t_hi = (uintptr_t)addr + size;
	}
	pthread_attr_destroy(&attr);
}

/* Async-signal-safe. */
void
stacks_fork_child(void)
{
	t_rng ^= (uint64_t)syscall(SYS_getpid) << 32 | 0x5bd1e995u;
	if (t_tid != 0)
		t_tid = (int)syscall(SYS_gettid);
}

/* The calling thread's id: kept from its start (a system call less per
 * sample), else asked.  Async-signal-safe. */
static int
self_tid(void)
{
	return t_tid != 0 ? t_tid : (int)syscall(SYS_gettid);
}

/* Async-signal-safe. */
void
stacks_seal(void)
{
	struct profrun_stacks *a = __atomic_load_n(&st.area, __ATOMIC_ACQUIRE);
	uintptr_t page = (uintptr_t)getauxval(AT_PAGESZ), lo, hi;
	uint64_t used;

	if (a == NULL || page == 0)
		return;
	used = __atomic_load_n(&a->offered, __ATOMIC_ACQUIRE);
	if (used >= a->slot_count)
		return;
	__atomic_store_n(&a->slot_count, (uint32_t)used, __ATOMIC_RELEASE);
	lo = (uintptr_t)(a + 1) + (uintptr_t)used * a->slot_size;
	hi = (uintptr_t)(a + 1) + (uintptr_t)st.slot_count * st.slot_size;
	lo = (lo + page - 1) & ~(page - 1);
	hi &= ~(page - 1);
	if (hi > lo)
		sys_madvise((void *)lo, hi - lo, MADV_REMOVE);
}

/* A uniform draw in [0, n].  Async-signal-safe. */
static uint64_t
draw(uint64_t n)
{
	uint64_t x;

	if (t_rng == 0)
		t_rng = 0x2545f4914f6cdd1dull;
	x = shim_xorshift64(&t_rng);
	return n == UINT64_MAX ? x : x % (n + 1);
}

#define PAGE 4096u

/* Where the readable memory from at on ends (maps_each's callback). */
struct readable {
	uint64_t at, end;
};

static int
readable_run(const struct maps_entry *e, void *arg)
{
	struct readable *r = arg;

	if (e->end <= r->at)
		return 0;
	if (e->start > r->at || !e->read)
		return 1; /* a hole, or a page that cannot be read */
	r->at = e->end;
	return r->at >= r->end;
}

/* memcpy by hand, which the handler may not call: words, then bytes
 * (volatile, or the compiler makes the loop a call to memcpy).
 * Async-signal-safe. */
static void
copy_words(void *dst, const void *src, size_t len)
{
	volatile uint64_t *dw = dst;
	const uint64_t *sw = src;
	size_t i, words = ((uintptr_t)dst | (uintptr_t)src) % 8 ? 0 : len / 8;

	for (i = 0; i < words; i++)
		dw[i] = sw[i];
	for (i *= 8; i < len; i++)
		((volatile uint8_t *)dst)[i] = ((const uint8_t *)src)[i];
}

/* Copy LEN stack bytes at SP into DST as far as /proc/self/maps shows
 * them readable: where process_vm_readv does not exist (qemu-user has
 * none).  The mappings do not change under us: the stack is the
 * interrupted thread's own, or a blocked one's.  Returns the bytes
 * copied.  Async-signal-safe (maps_each). */
static size_t
copy_mapped(void *dst, uintptr_t sp, size_t len)
{
	struct readable r = {.at = sp, .end = (uint64_t)sp + len};

	if (maps_each(readable_run, &r) < 0 || r.at <= sp)
		return 0;
	if (r.at < r.end)
		len = (size_t)(r.at - sp);
	copy_words(dst, (const void *)sp, len);
	return len;
}

/* Copy LEN stack bytes at SP into DST with process_vm_readv, a page at a
 * time so that a read ending in an unmapped page keeps what came before
 * it (copy_mapped where the system call is missing).  Returns the bytes
 * copied.  Async-signal-safe. */
static size_t
copy_checked(void *dst, uintptr_t sp, size_t len)
{
	static bool no_vm_readv;
	struct iovec local[17], remote[17];
	size_t n = 0, off = 0;
	ssize_t r;

	if (__atomic_load_n(&no_vm_readv, __ATOMIC_RELAXED))
		return copy_mapped(dst, sp, len);
	while (off < len && n < 17) {
		size_t chunk = PAGE - ((sp + off) % PAGE);

		if (chunk > len - off)
			chunk = len - off;
		local[n].iov_base = (char *)dst + off;
		local[n].iov_len = chunk;
		remote[n].iov_base = (void *)(sp + off);
		remote[n].iov_len = chunk;
		off += chunk;
		n++;
	}
	r = syscall(SYS_process_vm_readv,
		    st.pid != 0 ? st.pid : (pid_t)syscall(SYS_getpid), local, n,
		    remote, n, 0);
	if (r < 0 && errno == ENOSYS) {
		__atomic_store_n(&no_vm_readv, true, __ATOMIC_RELAXED);
		return copy_mapped(dst, sp, len);
	}
	return r > 0 ? (size_t)r : 0;
}

/* Where slot S's stack bytes go: after its head and its extra
 * registers.  Pure. */
static inline uint8_t *
slot_data(struct profrun_stack_slot *s)
{
	return (uint8_t *)(s + 1) + EXTRA_REGS * 8;
}

/* Store REGS (ARCH_STACK_REGS, DWARF order) in slot S: the head's, then
 * the rest after it.  Async-signal-safe. */
static void
slot_regs(struct profrun_stack_slot *s, const uint64_t *regs)
{
	for (int i = 0; i < PROFRUN_STACK_REGS; i++)
		s->regs[i] = regs[i];
	copy_words(s + 1, regs + PROFRUN_STACK_REGS, EXTRA_REGS * 8);
}

/* A slot of A for the next offered sample (its sequence number into
 * *SEQ), its commit word 0, or NULL (dropped, counted).
 * Async-signal-safe. */
static struct profrun_stack_slot *
claim_slot(struct profrun_stacks *a, uint64_t *seq)
{
	struct profrun_stack_slot *s;
	uint64_t j;
	uint32_t c;

	*seq = __atomic_fetch_add(&a->offered, 1, __ATOMIC_RELAXED);
	j = *seq < a->slot_count ? *seq : draw(*seq);
	if (j >= a->slot_count) {
		__atomic_add_fetch(&a->dropped, 1, __ATOMIC_RELAXED);
		return NULL;
	}
	s = (struct profrun_stack_slot *)((char *)(a + 1) +
					  (uint64_t)j * a->slot_size);
	/* a fresh slot's blocks reserved first (reserve.c) */
	if (*seq < a->slot_count && !reserve_room(s, a->slot_size, false)) {
		__atomic_add_fetch(&a->dropped, 1, __ATOMIC_RELAXED);
		return NULL;
	}
	if (*seq >= a->slot_count) {
		/* take it over from its committed stack; a slot that is
		 * being written (commit 0) is left to its writer */
		c = __atomic_load_n(&s->commit, __ATOMIC_ACQUIRE);
		if (c == 0 || !__atomic_compare_exchange_n(
				      &s->commit, &c, 0, false,
				      __ATOMIC_ACQ_REL, __ATOMIC_RELAXED)) {
			__atomic_add_fetch(&a->dropped, 1, __ATOMIC_RELAXED);
			return NULL;
		}
	}
	return s;
}

/* Async-signal-safe. */
void
stacks_record(void *ctx, uint32_t count, uint32_t gen, uint64_t time_ns)
{
	struct profrun_stacks *a = __atomic_load_n(&st.area, __ATOMIC_ACQUIRE);
	struct profrun_stack_slot *s;
	uint64_t seq, regs[ARCH_STACK_REGS];
	uintptr_t sp;
	size_t len, want;

	if (a == NULL)
		return;
	arch_ucontext_regs(ctx, regs);
	s = claim_slot(a, &seq);
	if (s == NULL)
		return;
	sp = (uintptr_t)regs[ARCH_REG_SP];
	want = a->stack_max;
	if (t_hi != 0 && sp >= t_lo && sp < t_hi && t_hi - sp < want)
		want = t_hi - sp;
	len = copy_checked(slot_data(s), sp, want);
	if (len == 0)
		__atomic_add_fetch(&a->failed, 1, __ATOMIC_RELAXED);
	s->tid = (int32_t)self_tid();
	s->size = (uint32_t)len;
	s->flags = (len == a->stack_max ? PROFRUN_STACK_PARTIAL : 0) |
		   PROFRUN_STACK_TIMED;
	s->time_ns = time_ns;
	s->count = count;
	s->gen = gen;
	s->seq = seq;
	s->sp = sp;
	slot_regs(s, regs);
	__atomic_store_n(&s->commit, 1, __ATOMIC_RELEASE);
}

/* The copy of a blocked thread's stack, checked before it goes into its
 * slot (only the one sampler thread of the process uses it). */
static uint8_t blocked_copy[SHIM_MAX_STACK] ARCH_LARGE_SECTION;

/* Async-signal-safe. */
void
stacks_record_blocked(int tid, uint64_t sp, uint64_t pc, uint32_t gen,
		      uint64_t time_ns, uint32_t count,
		      bool (*verify)(int tid, uint64_t sp, uint64_t pc))
{
	struct profrun_stacks *a = __atomic_load_n(&st.area, __ATOMIC_ACQUIRE);
	struct profrun_stack_slot *s;
	uint64_t seq, regs[ARCH_STACK_REGS];
	size_t len;

	if (a == NULL)
		return;
	s = claim_slot(a, &seq);
	if (s == NULL)
		return;
	/* another thread's stack: its bounds are not known here, so up to
	 * stack_max bytes or the first page that cannot be read; kept only
	 * if the thread is still blocked where it was (else the copy may be
	 * torn) */
	len = copy_checked(blocked_copy, (uintptr_t)sp, a->stack_max);
	if (len == 0 || !verify(tid, sp, pc)) {
		__atomic_add_fetch(&a->failed, 1, __ATOMIC_RELAXED);
		if (seq >= a->slot_count) /* the stack it held is intact */
			__atomic_store_n(&s->commit, 1, __ATOMIC_RELEASE);
		return;
	}
	memcpy(slot_data(s), blocked_copy, len);
	s->tid = tid;
	s->size = (uint32_t)len;
	s->flags = (len == a->stack_max ? PROFRUN_STACK_PARTIAL : 0) |
		   PROFRUN_STACK_TIMED | PROFRUN_STACK_BLOCKED;
	s->time_ns = time_ns;
	s->count = count;
	s->gen = gen;
	s->seq = seq;
	s->sp = sp;
	memset(regs, 0, sizeof(regs));
	regs[ARCH_REG_SP] = sp;
	regs[ARCH_REG_PC] = pc;
	slot_regs(s, regs);
	__atomic_store_n(&s->commit, 1, __ATOMIC_RELEASE);
}

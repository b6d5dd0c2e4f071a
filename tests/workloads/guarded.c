/* SPDX-License-Identifier: MIT */
/* guarded WHERE SECONDS: coroutines on stacks with unreadable pages right
 * above them, inside the bounds of the thread's own stack, each spinning
 * SECONDS of CPU time in guarded_spin (tests/e2e/e2e_faults.py).  A copy
 * of the top of the stack that does not stop at the first unreadable page
 * dies of SIGSEGV.  Prints one line and exits 0.
 *
 *   main    three coroutine stacks carved out of the main thread's stack,
 *           a PROT_NONE guard page below each and one above the last (a
 *           common coroutine-library layout)
 *   thread  the same in a thread started by pthread_create
 *   below   one coroutine stack mmapped 2 MiB below the main thread's
 *           [stack] mapping, with nothing mapped above it
 */
#define _GNU_SOURCE
#include <alloca.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>

#include "common.h"

#define PAGE 4096u
#define CO_COUNT 3
#define CO_SIZE (32u * 1024u)

volatile unsigned long workload_sink = 1;
static ucontext_t caller, co;
static double co_seconds;

__attribute__((noipa)) void
guarded_spin(double seconds)
{
	double start = thread_cpu_seconds();

	while (thread_cpu_seconds() - start < seconds)
		WORKLOAD_BODY(100000UL);
}

/* Runs near the top of its stack: a copy of 8 KiB from its stack pointer
 * reaches the page above. */
__attribute__((noipa)) void
guarded_coroutine(void)
{
	guarded_spin(co_seconds);
	workload_sink++; /* not a tail call: it stays the spin's caller */
}

static int
run_on(char *stack, size_t size)
{
	if (getcontext(&co) < 0)
		return -1;
	co.uc_stack.ss_sp = stack;
	co.uc_stack.ss_size = size;
	co.uc_link = &caller;
	makecontext(&co, guarded_coroutine, 0);
	return swapcontext(&caller, &co);
}

/* [guard][stack 0][guard][stack 1][guard][stack 2][guard], in the calling
 * thread's own stack; the protections are put back before returning. */
__attribute__((noipa)) static int
carved(void)
{
	size_t span = CO_COUNT * (PAGE + CO_SIZE) + PAGE;
	char *raw = alloca(span + PAGE);
	char *base = (char *)(((uintptr_t)raw + PAGE - 1) & ~(uintptr_t)(PAGE - 1));
	int r = 0;

	memset(raw, 0, span + PAGE); /* the stack mapping reaches them all */
	for (unsigned i = 0; i <= CO_COUNT; i++)
		if (mprotect(base + i * (PAGE + CO_SIZE), PAGE, PROT_NONE) < 0)
			return -1;
	for (unsigned i = 0; i < CO_COUNT && r == 0; i++)
		r = run_on(base + i * (PAGE + CO_SIZE) + PAGE, CO_SIZE);
	for (unsigned i = 0; i <= CO_COUNT; i++)
		if (mprotect(base + i * (PAGE + CO_SIZE), PAGE,
			     PROT_READ | PROT_WRITE) < 0)
			r = -1;
	return r;
}

static void *
carved_thread(void *unused)
{
	(void)unused;
	return (void *)(intptr_t)carved();
}

/* The start of the [stack] mapping, or 0. */
static uintptr_t
stack_mapping_start(void)
{
	char line[512];
	unsigned long lo = 0, hi;
	FILE *f = fopen("/proc/self/maps", "r");

	if (f == NULL)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "[stack]") &&
		    sscanf(line, "%lx-%lx", &lo, &hi) == 2)
			break;
	fclose(f);
	return lo;
}

static int
below(void)
{
	uintptr_t top = stack_mapping_start();
	char *stack;

	if (top == 0)
		return -1;
	stack = mmap((void *)(top - (2u << 20) - CO_SIZE), CO_SIZE,
		     PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (stack == MAP_FAILED)
		return -1;
	return run_on(stack, CO_SIZE) == 0 && munmap(stack, CO_SIZE) == 0 ? 0
									   : -1;
}

int
main(int argc, char **argv)
{
	const char *where = argc > 2 ? argv[1] : "";
	pthread_t t;
	void *ret = (void *)-1;
	int r;

	co_seconds = argc > 2 ? atof(argv[2]) : 0;
	guarded_spin(0.01); /* its calls bound before the coroutines run */
	if (strcmp(where, "main") == 0)
		r = carved();
	else if (strcmp(where, "thread") == 0)
		r = pthread_create(&t, NULL, carved_thread, NULL) == 0 &&
				    pthread_join(t, &ret) == 0 && ret == NULL
			    ? 0
			    : -1;
	else if (strcmp(where, "below") == 0)
		r = below();
	else {
		fprintf(stderr, "usage: guarded main|thread|below SECONDS\n");
		return 2;
	}
	if (r != 0) {
		perror("guarded");
		return 1;
	}
	printf("guarded %s: survived\n", where);
	return 0;
}

/* SPDX-License-Identifier: MIT */
/* Wall-clock profiles (profrun --wall): blocked time by thread and system
 * call, and each function's time off the CPU. */
#ifndef PROFRUN_CLI_WALL_H
#define PROFRUN_CLI_WALL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct profile;
struct report;

/* A thread's blocked samples in one system call. */
struct wall_row {
	const struct profile *p; /* its process */
	int32_t tid;		 /* 0: a thread without a record */
	const char *thread;	 /* its name, "" when unknown */
	int nr;			 /* x86-64 system call, -1: none */
	uint64_t samples;
	double seconds; /* samples times the sampler's interval */
};

struct report_wall {
	bool present;	       /* some selected process is a wall profile */
	struct wall_row *rows; /* by process, thread, most time first */
	size_t nrows;
	uint64_t blocked;	/* blocked samples, in the totals */
	uint64_t lost;		/* taken but not located (not in them) */
	double blocked_seconds; /* their time */
	uint64_t wakes;		/* the samplers' */
	double sampler_cpu;	/* CPU seconds the sampler threads used */
};

/* The name of the x86-64 system call NR, or NULL (syscall-names.c). */
const char *wall_syscall_name(int nr);

/* R's blocked time by thread and system call, from its processes' runs.
 * Returns 0, or -1 after printing an error. */
int report_wall_build(struct report *r);
void report_wall_fini(struct report_wall *w);

/* The profile of P's blocked samples alone, into *Q (sharing P's
 * modules; report_wall_profile_fini frees only what it made).  Returns 0,
 * or -1 after printing an error. */
int report_wall_profile(const struct profile *p, struct profile *q);
void report_wall_profile_fini(struct profile *q);

#endif /* PROFRUN_CLI_WALL_H */

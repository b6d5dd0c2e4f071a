/* SPDX-License-Identifier: MIT */
/*
 * Call stacks of a report: the stacks the shim copied (profrun -g),
 * unwound, symbolized (inlined frames expanded) and merged, for the views
 * that show callers (--callers, --callees, --call-graph, the inclusive
 * column) and the formats that carry stacks (folded, html, pprof, gmon).
 *
 * Stacks are a uniform sample of the samples: the flat counts stay exact,
 * and a stack's count is the number of samples it was taken for.  Shares
 * computed from stacks are over report_stacks.stacks.
 */
#ifndef PROFRUN_CLI_STACKS_H
#define PROFRUN_CLI_STACKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "strmap.h"

/* One function as frames name it, interned: one per (module, name). */
struct stack_fn {
	char *module;	    /* path of its module, "[vdso]", "[unknown]" */
	char *name;	    /* shown name (demangled unless asked not to) */
	char *symbol;	    /* raw name */
	uint64_t addr;	    /* link-time entry in its module, 0 when unknown */
	bool main;	    /* in the main executable of its process */
	size_t func;	    /* its entry in report.funcs, or SIZE_MAX if none */
	bool shim;	    /* in profrun's shim: passed over, or overhead */
	bool entry;	    /* holds its executable's entry point (e_entry) */
	bool caller_only;   /* no sample of its own: its entry in report.funcs
			     * (if any) was added for the stacks */
	uint64_t inclusive; /* samples with it anywhere on the stack, scaled
			     * as func.inclusive (also for functions that
			     * are only callers, with no entry) */
};

/* One frame: a function at one place.  Frames of one physical frame
 * (a function and the functions inlined into it at that address) are
 * consecutive, innermost first, all with the same addr; every one of
 * them but the last (outermost) has inlined set. */
struct stack_frame {
	uint32_t fn;	  /* index into report_stacks.fns */
	bool inlined;	  /* inlined into the next frame (toward the root) */
	uint64_t addr;	  /* link-time address in fn's module: the PC for the
			* leaf, the return address - 1 for callers */
	const char *file; /* source file (interned), NULL when unknown */
	uint32_t line;	  /* 0 when unknown */
};

/* STACK_* flags of a trace */
enum stack_flags {
	STACK_TRUNCATED = 1u << 0, /* ended before the thread's start */
	STACK_LEAF = 1u << 1,	   /* only the sampled function, no callers */
};

/* One distinct stack, leaf first: frames[first .. first + n). */
struct stack_trace {
	uint32_t first, n;
	uint32_t flags;
	uint64_t count; /* samples it stands for */
};

struct report_stacks {
	bool present; /* some selected process recorded stacks */
	struct stack_fn *fns;
	size_t nfns;
	struct stack_frame *frames;
	size_t nframes;
	struct stack_trace *traces; /* most samples first */
	size_t ntraces;

	uint64_t samples;   /* all samples of the processes with stacks */
	uint64_t stacks;    /* of them, the ones with a stack (sum of counts) */
	uint64_t truncated; /* of those, ended before the thread's start */
	uint64_t unwound_none; /* stacks with no frame at all (garbage) */
	uint64_t overhead;     /* stacks whose leaf is in profrun's shim: not
				* in the counts above, nor a trace */
	uint64_t not_kept;     /* samples whose stack the reservoir did not
				* keep (by design) */
	uint64_t copy_failed;  /* samples whose stack could not be copied */
	uint64_t uncopied;     /* of those, the ones in STACKS all the same:
				* their leaf alone, from their registers */
	uint64_t jit_stopped;  /* of the truncated, ended in JIT code */
	uint32_t stack_size;   /* bytes copied per stack (largest seen) */
	struct strmap strs;    /* owns the frames' file names */
};

/* Samples with FN anywhere on their stack (counting it once per stack),
 * over all traces of S.  (model/stacks.c) */
uint64_t stacks_inclusive(const struct report_stacks *s, uint32_t fn);

/* The function named NAME (shown or raw name; MODULE NULL = any
 * module), or -1 when S has none. */
long stacks_find_fn(const struct report_stacks *s, const char *name,
		    const char *module);

void stacks_fini(struct report_stacks *s);

#endif /* PROFRUN_CLI_STACKS_H */

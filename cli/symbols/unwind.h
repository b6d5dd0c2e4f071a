/* SPDX-License-Identifier: MIT */
/* Unwinding copied stacks with libdwfl (symbols/unwind.c). */
#ifndef PROFRUN_CLI_UNWIND_H
#define PROFRUN_CLI_UNWIND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "profile.h"

/* The objects of one process image, ready to unwind its stacks. */
struct unwinder;

/* An unwinder over the objects P recorded (those that cannot be opened
 * end the stacks that reach them), or NULL when out of memory. */
struct unwinder *unwinder_new(const struct profile *p);
void unwinder_free(struct unwinder *u);

/* The run-time PCs of the frames of S, leaf first, into PCS (at most
 * MAX): the interrupted PC, then for each caller its return address - 1.
 * Returns how many (at least 1 when MAX > 0: the interrupted PC). */
size_t unwinder_run(struct unwinder *u, const struct profile_stack *s,
		    uint64_t *pcs, size_t max);

/* The interrupted PC of S, from its registers (where S's machine keeps
 * it). */
uint64_t unwinder_pc(const struct unwinder *u, const struct profile_stack *s);

/* Whether the last unwinder_run reached the stack's outermost frame, the
 * one whose CFI leaves the return address undefined (a process's entry
 * point, clone, clone3), named or not; false when it stopped early. */
bool unwinder_complete(const struct unwinder *u);

#endif /* PROFRUN_CLI_UNWIND_H */

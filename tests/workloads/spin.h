/* SPDX-License-Identifier: MIT */
/* spin.c, linked into the workloads that call it (outcome, rival, observe):
 * the one function their tests count samples in. */
#ifndef WORKLOAD_SPIN_H
#define WORKLOAD_SPIN_H

/* Burns SECONDS of the process's CPU time in WORKLOAD_BODY. */
void spin(double seconds);

#endif

/* SPDX-License-Identifier: MIT */
/* Shared by the libFuzzer harnesses and their replay driver. */
#ifndef PROFRUN_FUZZ_H
#define PROFRUN_FUZZ_H

#include <stddef.h>
#include <stdint.h>

/* The entry point every harness defines (libFuzzer's name). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Abort with MSG when COND is false: an invariant the reader promises and
 * a fuzzer should report as a crash. */
void fuzz_assert(int cond, const char *msg);

#endif /* PROFRUN_FUZZ_H */

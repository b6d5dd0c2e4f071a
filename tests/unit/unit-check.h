/* SPDX-License-Identifier: MIT */
/* A tiny assert for the shim's unit tests: exit 0 pass, 1 fail, 77 skip. */
#ifndef PROFRUN_UNIT_CHECK_H
#define PROFRUN_UNIT_CHECK_H

#include <stdio.h>
#include <stdlib.h>

static int check_failures;

#define CHECK(cond)                                                            \
	do {                                                                   \
		if (!(cond)) {                                                 \
			fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, \
				__LINE__, #cond);                              \
			check_failures++;                                      \
		}                                                              \
	} while (0)

#define CHECK_EQ(a, b)                                                         \
	do {                                                                   \
		unsigned long long a_ = (unsigned long long)(a);               \
		unsigned long long b_ = (unsigned long long)(b);               \
		if (a_ != b_) {                                                \
			fprintf(stderr, "%s:%d: %s == %s: %llu != %llu\n",     \
				__FILE__, __LINE__, #a, #b, a_, b_);           \
			check_failures++;                                      \
		}                                                              \
	} while (0)

#define CHECK_DONE() return check_failures ? 1 : 0

#endif /* PROFRUN_UNIT_CHECK_H */

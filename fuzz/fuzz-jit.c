/* SPDX-License-Identifier: MIT */
/*
 * Harness: the readers of a runtime's perf map and jitdump
 * (cli/symbols/jit-names.c) on any bytes, as the copies beside a member
 * anyone can hand profrun would be.  The first byte chooses how the rest
 * is read: bit 0 as a jitdump (else a perf map), bit 1 a map copy cut
 * short.  Besides memory errors it checks what the report relies on:
 * every entry is a non-empty range with a name, a lookup returns an entry
 * holding the address, and a line comes with its file.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "jit-names.h"

static void
check_lookup(const struct jit_names *j, uint64_t pc)
{
	const struct jit_sym *s = jit_names_find(j, pc);
	const char *file = NULL;
	uint32_t line;

	if (!s)
		return;
	fuzz_assert(s->start <= pc && pc < s->end,
		    "lookup returns an entry not holding the address");
	line = jit_names_line(j, s, pc, &file);
	fuzz_assert(line == 0 || file != NULL, "a line without its file");
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct jit_names j = {0};
	int ret;

	if (size == 0)
		return 0;
	if (data[0] & 1)
		ret = jit_names_parse_dump(&j, data + 1, size - 1);
	else
		ret = jit_names_parse_map(&j, (const char *)data + 1, size - 1,
					  !(data[0] & 2));
	if (ret >= 0 && jit_names_finish(&j) == 0) {
		for (size_t i = 0; i < j.n; i++) {
			fuzz_assert(j.v[i].start < j.v[i].end,
				    "an empty or wrapping range");
			fuzz_assert(j.v[i].name != NULL,
				    "an entry without a name");
			check_lookup(&j, j.v[i].start);
			check_lookup(&j, j.v[i].end - 1);
		}
		check_lookup(&j, 0);
		check_lookup(&j, UINT64_MAX);
	}
	jit_names_fini(&j);
	return 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * Harness: the member file reader (profile_parse in cli/profile/member.c) on any
 * bytes.  Besides memory errors it checks what the report relies on: an
 * accepted member has its samples inside the text range, sorted, non-zero
 * and adding up to its main count, and a refusal says why.
 */
#include <string.h>

#include "profile.h"
#include "fuzz.h"

static void
check_accepted(const struct profile *p)
{
	const struct profrun_header *h = &p->hdr;
	uint64_t sum = 0;
	size_t i;

	fuzz_assert(p->exe != NULL, "no executable string");
	fuzz_assert(p->note == NULL || p->note[0] != '\0', "empty note kept");
	fuzz_assert(strlen(p->build_id) == 2 * h->build_id_len,
		    "build-id length");
	for (i = 0; i < p->nsamples; i++) {
		const struct profile_sample *s = &p->samples[i];

		fuzz_assert(s->count > 0, "sample with no count");
		fuzz_assert(s->addr >= h->text_start && s->addr < h->text_end,
			    "sample outside the text range");
		fuzz_assert(i == 0 || s->addr > p->samples[i - 1].addr,
			    "samples not sorted by address");
		fuzz_assert(sum + s->count >= sum, "sample counts overflow");
		sum += s->count;
	}
	fuzz_assert(sum == p->main, "samples do not add up to main");
	(void)profile_cpu_seconds(p);
	(void)profile_armed_hz(p);
	(void)profile_state_text(p);
}

/* Every committed stack handed out stays inside its slot. */
static int
check_stack(void *ctx, const struct profile_stack *s)
{
	const struct profile *p = ctx;

	fuzz_assert(s->size <= p->stacks.stack_max, "stack larger than a slot");
	fuzz_assert(s->count > 0, "stack with no count");
	if (s->size > 0)
		fuzz_assert(s->data[0] == s->data[0] &&
				    s->data[s->size - 1] ==
					    s->data[s->size - 1],
			    "stack bytes");
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct profile p;
	char err[256];

	err[0] = '\0';
	if (profile_parse(data, size, &p, err, sizeof(err)) == 0) {
		check_accepted(&p);
		if (p.has_stacks)
			fuzz_assert(profile_stacks_each(&p, check_stack, &p,
							err, sizeof(err)) == 0,
				    "stacks of a parsed profile unreadable");
		profile_fini(&p);
	} else {
		fuzz_assert(err[0] != '\0', "refused without a reason");
	}
	return 0;
}

/* SPDX-License-Identifier: MIT */
/* The member-name grammar (include/profrun/member-name.h): names written
 * are the names read back; anything else is not a member. */
#include <string.h>

#include "profrun/member-name.h"
#include "unit-check.h"

static void
round_trip(uint64_t pid, uint64_t seq, const char *want)
{
	char buf[PROFRUN_MEMBER_NAME_MAX];
	uint64_t p = 1, s = 1;
	size_t n = profrun_member_name(buf, pid, seq);

	CHECK(n == strlen(want) && strcmp(buf, want) == 0);
	CHECK(profrun_member_name_parse(buf, &p, &s));
	CHECK_EQ(p, pid);
	CHECK_EQ(s, seq);
}

int
main(void)
{
	static const char *const not_members[] = {
		"",
		".prof",
		"-1.prof",
		"1-.prof",
		"1-2-3.prof",
		"1.prof.tmp",
		"1.pro",
		"a1.prof",
		"1a.prof",
		"1--2.prof",
		"+1.prof",
		"1 .prof",
		"1.PROF",
		"run.prof",
		"1.prof/",
		"-.prof",
		"18446744073709551616.prof", /* 2^64 */
	};
	uint64_t seq = 7;
	size_t i;

	round_trip(4242, 0, "4242.prof");
	round_trip(4242, 1, "4242-1.prof");
	round_trip(0, 0, "0.prof");
	round_trip(UINT64_MAX, UINT64_MAX,
		   "18446744073709551615-18446744073709551615.prof");
	CHECK(profrun_member_name_parse("007-0.prof", NULL, &seq) && seq == 0);
	for (i = 0; i < sizeof(not_members) / sizeof(not_members[0]); i++) {
		if (profrun_member_name_parse(not_members[i], NULL, NULL)) {
			fprintf(stderr, "'%s' taken for a member name\n",
				not_members[i]);
			check_failures++;
		}
	}
	CHECK_DONE();
}

/* SPDX-License-Identifier: MIT */
/* Table cells (cli/formats/cells.c): names elided to their column in the
 * middle, never splitting a UTF-8 character; code without a symbol shown
 * without its module beside a module column. */
#include <string.h>

#include "formats.h"
#include "unit-check.h"

static void
check_elide(const char *s, size_t width, const char *want)
{
	char buf[128];
	const char *got = cell_elide(s, width, buf, sizeof(buf));

	if (strcmp(got, want) != 0) {
		fprintf(stderr,
			"cell_elide(\"%s\", %zu) = \"%s\", want \"%s\"\n", s,
			width, got, want);
		check_failures++;
	}
	CHECK(strlen(got) <= width || width < 5);
}

static void
check_function(const char *name, const char *file, bool modules,
	       const char *want)
{
	struct func f = {.module = "/usr/bin/zstd",
			 .name = (char *)name,
			 .symbol = (char *)name,
			 .file = (char *)file};
	char buf[128];
	const char *got = cell_function(&f, modules, buf, sizeof(buf));

	if (strcmp(got, want) != 0) {
		fprintf(stderr, "cell_function(\"%s\") = \"%s\", want \"%s\"\n",
			name, got, want);
		check_failures++;
	}
}

int
main(void)
{
	/* fits: itself */
	check_elide("libc.so.6", 20, "libc.so.6");
	check_elide("exactly-twenty-bytes", 20, "exactly-twenty-bytes");
	/* the head, "..", the tail: a library's version stays */
	check_elide("libMagickCore-6.Q16.so.6", 20, "libMagick...Q16.so.6");
	check_elide("libMagickCore-6.Q16.so.6", 10, "libM..so.6");
	/* a UTF-8 character is never cut: the cut moves off it */
	check_elide("aaaaaaa\xc3\xa9zzzzzzzzzz", 10, "aaaa..zzzz");
	check_elide("aaa\xc3\xa9\xc3\xa9\xc3\xa9zzzzzz", 9, "aaa..zzzz");
	check_elide("zzzzzz\xc3\xa9\xc3\xa9\xc3\xa9", 9,
		    "zzz..\xc3\xa9\xc3\xa9");
	/* too narrow to elide: itself */
	check_elide("abcdefgh", 4, "abcdefgh");

	check_function("[zstd 0x97210-0x980a6]", NULL, true,
		       "[0x97210-0x980a6]");
	check_function("[zstd 0x97210-0x980a6]", NULL, false,
		       "[zstd 0x97210-0x980a6]");
	check_function("[vdso]", NULL, true, "[vdso]");
	check_function("main", "main.c", true, "main");
	check_function("[x 0x1-0x2]", "x.c", true, "[x 0x1-0x2]");
	CHECK_DONE();
}

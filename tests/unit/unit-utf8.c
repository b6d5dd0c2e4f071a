/* SPDX-License-Identifier: MIT */
/* utf8_valid: well-formed UTF-8 passes unchanged; each maximal ill-formed
 * subpart becomes one U+FFFD (the same as Python's errors="replace"). */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "json.h"
#include "utf8.h"
#include "unit-check.h"

#define R "\xef\xbf\xbd" /* U+FFFD */

static const struct {
	const char *in;
	size_t len;
	const char *out;
	size_t outlen;
} cases[] = {
#define C(in, out)                                                             \
	{                                                                      \
		in, sizeof(in) - 1, out, sizeof(out) - 1                       \
	}
	C("", ""),
	C("plain ascii", "plain ascii"),
	C("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", /* 2, 3, 4 bytes */
	  "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"),
	C("\xc2\x80\xdf\xbf", "\xc2\x80\xdf\xbf"),
	C("\xef\xbf\xbf\xf4\x8f\xbf\xbf", "\xef\xbf\xbf\xf4\x8f\xbf\xbf"),
	C("a\xff"
	  "b",
	  "a" R "b"),			      /* never in UTF-8 */
	C("\xfe\xc0\xc1\xf5\xf8", R R R R R), /* nor these */
	C("\x80\xbf", R R),		      /* stray continuations */
	C("\xc0\xaf", R R),		      /* overlong '/' */
	C("\xe0\x80\xaf", R R R),	      /* overlong, 3 bytes */
	C("\xf0\x80\x80\xaf", R R R R),	      /* overlong, 4 bytes */
	C("\xed\xa0\x80", R R R),	      /* surrogate U+D800 */
	C("\xed\xbf\xbf", R R R),	      /* surrogate U+DFFF */
	C("\xed\x9f\xbf", "\xed\x9f\xbf"),    /* U+D7FF is fine */
	C("\xf4\x90\x80\x80", R R R R),	      /* U+110000 */
	C("\xe2\x82", R),		      /* truncated at the end */
	C("\xe2\x82x", R "x"),		      /* truncated mid-string */
	C("\xf0\x9f\x98", R),		      /* one subpart, one U+FFFD */
	C("\xf0\x9f\x98\xf0\x9f\x98\x80", R "\xf0\x9f\x98\x80"),
	C("\xc3", R),
	C("a\0b", "a\0b"), /* NUL is ASCII */
#undef C
};

static void
test_table(void)
{
	size_t i, n;
	char *v;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t want = cases[i].outlen;

		v = utf8_valid(cases[i].in, cases[i].len, &n);
		CHECK(v != NULL);
		if (!v)
			continue;
		if (n != want || memcmp(v, cases[i].out, n) != 0) {
			fprintf(stderr, "case %zu: wrong result\n", i);
			check_failures++;
		}
		CHECK(v[n] == '\0');
		free(v);
	}
}

static void
test_json_string(void)
{
	json_object *o = json_utf8_string("x\xff");

	CHECK(o != NULL);
	CHECK(strcmp(json_object_get_string(o), "x" R) == 0);
	json_object_put(o);
}

/* cli_printable: C0 and C1 controls (CSI, ESC, newline) never reach a
 * terminal; tabs, and line ends when asked, stay. */
static void
test_printable(void)
{
	static const struct {
		const char *in, *out;
		bool keep_newlines;
	} p[] = {
		{"a\x1b[31mb", "a?[31mb", false},
		{"x\xc2\x9b"
		 "2Jy",
		 "x??2Jy", false}, /* U+009B, CSI */
		{"\xc2\x80\xc2\x9f\xc2\xa0", "????\xc2\xa0", false},
		{"line\nnext\r\n", "line?next??", false},
		{"line\nnext\r\n", "line\nnext\r\n", true},
		{"tab\there\x7f", "tab\there?", false},
	};

	for (size_t i = 0; i < sizeof(p) / sizeof(p[0]); i++) {
		char *s = strdup(p[i].in);

		CHECK(s != NULL);
		cli_printable(s, strlen(s), p[i].keep_newlines);
		CHECK(strcmp(s, p[i].out) == 0);
		free(s);
	}
}

int
main(void)
{
	test_table();
	test_json_string();
	test_printable();
	CHECK_DONE();
}

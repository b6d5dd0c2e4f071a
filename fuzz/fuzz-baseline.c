/* SPDX-License-Identifier: MIT */
/*
 * Harness: the JSON baseline reader of `profrun diff`
 * (diff_side_parse_json in cli/diff/input.c) and the comparison and
 * output that follow it.
 *
 * Besides memory errors it checks that an accepted report's functions add
 * up to at most its total.
 *
 * Input: one option byte (bits 0-1 format: text, markdown, json, html; bit 2
 * --top 3; bit 3 --fail-on any), then BASE, a NUL byte, and NEW; without a
 * NUL, BASE is compared with itself.
 */
#include <stdio.h>
#include <string.h>

#include "diff.h"
#include "fuzz.h"

static const char *const formats[] = {"text", "markdown", "json", "html"};

/* What the comparison relies on: the functions of an accepted side add up
 * to at most its total. */
static void
check_side(const struct diff_side *s)
{
	uint64_t sum = 0;
	size_t i;

	for (i = 0; i < s->n; i++) {
		fuzz_assert(s->fns[i].samples <= s->total - sum,
			    "functions add up to more than samples.total");
		sum += s->fns[i].samples;
	}
}

static int
load(struct diff_side *s, const char *name, const char *text, size_t len)
{
	if (diff_side_parse_json(s, name, text, len) != 0)
		return -1;
	check_side(s);
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *sink;
	struct diff_opts opts = {.threshold = 1.0, .confidence = 99.0};
	struct diff d = {.opts = &opts};
	const char *base, *new, *nul;
	size_t nbase, nnew;

	if (size < 1)
		return 0;
	if (!sink)
		sink = fopen("/dev/null", "w");
	fuzz_assert(sink != NULL, "cannot open /dev/null");
	opts.format = formats[data[0] & 3];
	opts.top = data[0] & 4 ? 3 : 0;
	opts.fail_on = data[0] & 8 ? FAIL_ON_ANY : FAIL_ON_REGRESSION;
	base = (const char *)data + 1;
	nul = memchr(base, '\0', size - 1);
	nbase = nul ? (size_t)(nul - base) : size - 1;
	new = nul ? nul + 1 : base;
	nnew = nul ? size - 2 - nbase : nbase;
	if (load(&d.base, "base", base, nbase) == 0 &&
	    load(&d.new, "new", new, nnew) == 0 && diff_compute(&d) == 0) {
		diff_write(&d, sink);
		(void)diff_fails(&d);
	}
	diff_fini(&d);
	return 0;
}

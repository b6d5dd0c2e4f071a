/* SPDX-License-Identifier: MIT */
/*
 * The command line of a member (struct profrun_argv, region kind
 * PROFRUN_REGION_ARGV, found only through the region list): the arguments
 * as the process received them, raw; the formats make them printable.
 */
#include <stdlib.h>
#include <string.h>

#include "profile.h"

/* Far above PROFRUN_ARGV_MAX, the shim's own bound. */
#define PROFILE_MAX_ARGV (1u << 16)

/* Point P->argv at the ARGC NUL-terminated strings of BLOCK (N bytes,
 * the last one a NUL), which must hold exactly ARGC.  Returns 0, or -1 with
 * a reason in ERR. */
static int
split_args(char *block, size_t n, uint32_t argc, struct profile *p, char *err,
	   size_t errlen)
{
	size_t nuls = 0, k = 0;

	for (size_t i = 0; i < n; i++)
		nuls += block[i] == '\0';
	if (nuls != argc)
		return profile_fail(
			err, errlen,
			"command line holds %zu arguments, its head says %u",
			nuls, argc);
	p->argv = calloc(argc, sizeof(*p->argv));
	if (!p->argv)
		return profile_fail(err, errlen, "out of memory");
	for (size_t off = 0; off < n; off += strlen(block + off) + 1)
		p->argv[k++] = block + off; /* argv[0] owns the block */
	p->argc = k;
	return 0;
}

int
profile_parse_argv(const uint8_t *buf, size_t avail, struct profile *p,
		   char *err, size_t errlen)
{
	struct profrun_region e;
	struct profrun_argv a;
	char *block;

	if (!profile_find_region(buf, &p->hdr, PROFRUN_REGION_ARGV, &e) ||
	    e.version != 1)
		return 0; /* none, or a layout of a newer writer */
	if (e.size < sizeof(a) || e.size > sizeof(a) + PROFILE_MAX_ARGV ||
	    e.off + e.size > avail)
		return profile_fail(
			err, errlen, "command line of %llu bytes at %llu",
			(unsigned long long)e.size, (unsigned long long)e.off);
	memcpy(&a, buf + e.off, sizeof(a));
	if (a.size != e.size - sizeof(a) || a.argc == 0 || a.size == 0 ||
	    a.argc > a.size || a.argc_all < a.argc ||
	    buf[e.off + e.size - 1] != '\0')
		return profile_fail(err, errlen, "bad command line record");
	block = malloc(a.size);
	if (!block)
		return profile_fail(err, errlen, "out of memory");
	memcpy(block, buf + e.off + sizeof(a), a.size);
	p->argc_all = a.argc_all;
	p->argv_truncated =
		(a.flags & PROFRUN_ARGV_TRUNCATED) != 0 || a.argc_all > a.argc;
	if (split_args(block, a.size, a.argc, p, err, errlen)) {
		free(block);
		free(p->argv);
		p->argv = NULL;
		p->argc = 0;
		return -1;
	}
	return 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * Names of the member files of a run directory (docs/format.md, "A run"):
 * "<pid>.prof" for the first image of a process, "<pid>-<n>.prof" (n = 1,
 * 2, ...) when that name is taken.  The one definition of the grammar, for
 * the shim that writes members and the CLI that reads, merges and clears
 * run directories.  Pure functions without library calls: async-signal-safe.
 */
#ifndef PROFRUN_MEMBER_NAME_H
#define PROFRUN_MEMBER_NAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Room for the longest name: two 20-digit numbers, '-', ".prof", NUL. */
#define PROFRUN_MEMBER_NAME_MAX 48

#define PROFRUN_MEMBER_SUFFIX ".prof"

/* Files a member may have beside it, named after it: the copy of the
 * perf map and of the jitdump of its process ("<pid>.prof.map"). */
#define PROFRUN_COMPANION_MAP	  ".map"
#define PROFRUN_COMPANION_JITDUMP ".jitdump"

/* Decimal V at BUF; returns the digits written (no NUL). */
static inline size_t
profrun_member_decimal(char *buf, uint64_t v)
{
	char tmp[20];
	size_t k = 0, n = 0;

	do
		tmp[k++] = (char)('0' + v % 10);
	while ((v /= 10) != 0);
	while (k > 0)
		buf[n++] = tmp[--k];
	return n;
}

/* "<PID>.prof" (SEQ 0) or "<PID>-<SEQ>.prof" into BUF, which holds at least
 * PROFRUN_MEMBER_NAME_MAX bytes; returns the length (without the NUL). */
static inline size_t
profrun_member_name(char *buf, uint64_t pid, uint64_t seq)
{
	static const char suffix[] = PROFRUN_MEMBER_SUFFIX;
	size_t n = profrun_member_decimal(buf, pid), i;

	if (seq > 0) {
		buf[n++] = '-';
		n += profrun_member_decimal(buf + n, seq);
	}
	for (i = 0; i < sizeof(suffix); i++)
		buf[n + i] = suffix[i];
	return n + sizeof(suffix) - 1;
}

/* The number at *S (one digit at least, no sign, at most 2^64 - 1); moves
 * *S past it.  False when there is none or it overflows. */
static inline bool
profrun_member_number(const char **s, uint64_t *v)
{
	const char *p = *s;

	*v = 0;
	if (*p < '0' || *p > '9')
		return false;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (*v > (UINT64_MAX - (uint64_t)(*p - '0')) / 10)
			return false;
		*v = *v * 10 + (uint64_t)(*p - '0');
	}
	*s = p;
	return true;
}

/* Whether NAME is a member name followed by TAIL (a NUL-terminated
 * suffix, "" for the member itself); if so its PID and SEQ (0 for
 * "<pid>.prof").  PID and SEQ may be NULL. */
static inline bool
profrun_member_name_parse_tail(const char *name, const char *tail,
			       uint64_t *pid, uint64_t *seq)
{
	static const char suffix[] = PROFRUN_MEMBER_SUFFIX;
	uint64_t p, q = 0;
	size_t i;

	if (!profrun_member_number(&name, &p))
		return false;
	if (*name == '-') {
		name++;
		if (!profrun_member_number(&name, &q))
			return false;
	}
	for (i = 0; i + 1 < sizeof(suffix); i++)
		if (name[i] != suffix[i])
			return false;
	for (name += i; *tail != '\0'; name++, tail++)
		if (*name != *tail)
			return false;
	if (*name != '\0')
		return false;
	if (pid)
		*pid = p;
	if (seq)
		*seq = q;
	return true;
}

/* Whether NAME is a member name; if so its PID and SEQ (0 for
 * "<pid>.prof").  PID and SEQ may be NULL. */
static inline bool
profrun_member_name_parse(const char *name, uint64_t *pid, uint64_t *seq)
{
	return profrun_member_name_parse_tail(name, "", pid, seq);
}

/* Whether NAME is a member's companion file (a member name followed by
 * PROFRUN_COMPANION_MAP or PROFRUN_COMPANION_JITDUMP). */
static inline bool
profrun_member_companion_parse(const char *name)
{
	return profrun_member_name_parse_tail(name, PROFRUN_COMPANION_MAP, NULL,
					      NULL) ||
	       profrun_member_name_parse_tail(name, PROFRUN_COMPANION_JITDUMP,
					      NULL, NULL);
}

#endif /* PROFRUN_MEMBER_NAME_H */

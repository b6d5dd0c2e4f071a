/* SPDX-License-Identifier: MIT */
/* Valid UTF-8 out of whatever bytes a profile, an ELF file or a source file
 * holds: JSON readers, and most terminals, want nothing else. */
#ifndef PROFRUN_CLI_UTF8_H
#define PROFRUN_CLI_UTF8_H

#include <stddef.h>

/* A NUL-terminated copy of the LEN bytes at S in which every ill-formed
 * sequence (a stray or truncated byte, an overlong form, a surrogate, a
 * code point above U+10FFFF) is replaced by U+FFFD, one per maximal
 * ill-formed subpart as Unicode recommends.  Its length goes to *OUTLEN
 * unless OUTLEN is NULL.  NULL when out of memory. */
char *utf8_valid(const char *s, size_t len, size_t *outlen);

#endif /* PROFRUN_CLI_UTF8_H */

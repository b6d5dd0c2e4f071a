/* SPDX-License-Identifier: MIT */
/* Build-ids (and any bytes) as lowercase hex, the one way the CLI shows,
 * compares and writes them. */
#ifndef PROFRUN_CLI_HEX_H
#define PROFRUN_CLI_HEX_H

#include <stddef.h>
#include <stdint.h>

/* The LEN bytes at BITS as 2 * LEN hex digits and a NUL, into OUT. */
void hex_format(char *out, const uint8_t *bits, size_t len);

/* The same in a new string; NULL when out of memory. */
char *hex_dup(const uint8_t *bits, size_t len);

/* The bytes HEX spells, two digits each, into OUT (at most MAX of them),
 * up to the first pair that is not two hex digits; returns how many. */
size_t hex_parse(const char *hex, uint8_t *out, size_t max);

#endif /* PROFRUN_CLI_HEX_H */

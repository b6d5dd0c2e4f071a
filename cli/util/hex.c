/* SPDX-License-Identifier: MIT */
/* Lowercase hex (util/hex.h). */
#include <stdlib.h>

#include "hex.h"

static const char digits[] = "0123456789abcdef";

void
hex_format(char *out, const uint8_t *bits, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		out[2 * i] = digits[bits[i] >> 4];
		out[2 * i + 1] = digits[bits[i] & 15];
	}
	out[2 * len] = '\0';
}

char *
hex_dup(const uint8_t *bits, size_t len)
{
	char *s = malloc(2 * len + 1);

	if (s)
		hex_format(s, bits, len);
	return s;
}

/* The value of the hex digit C, or -1. */
static int
digit_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

size_t
hex_parse(const char *hex, uint8_t *out, size_t max)
{
	size_t n = 0;
	int hi, lo;

	while (n < max && (hi = digit_value(hex[0])) >= 0 &&
	       (lo = digit_value(hex[1])) >= 0) {
		out[n++] = (uint8_t)(hi << 4 | lo);
		hex += 2;
	}
	return n;
}

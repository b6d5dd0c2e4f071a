/* SPDX-License-Identifier: MIT */
/* Making strings valid UTF-8 (see utf8.h). */
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "utf8.h"

/* The length of the sequence starting at S (LEN > 0 bytes left): the
 * whole sequence when *OK, else the maximal ill-formed subpart (>= 1). */
static size_t
sequence(const unsigned char *s, size_t len, bool *ok)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t need, i;

	*ok = false;
	if (s[0] < 0x80) {
		*ok = true;
		return 1;
	} else if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		need = 1;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		need = 2;
		lo = s[0] == 0xe0 ? 0xa0 : lo; /* overlong */
		hi = s[0] == 0xed ? 0x9f : hi; /* surrogates */
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		need = 3;
		lo = s[0] == 0xf0 ? 0x90 : lo; /* overlong */
		hi = s[0] == 0xf4 ? 0x8f : hi; /* above U+10FFFF */
	} else {
		return 1; /* continuation byte, C0, C1, F5..FF */
	}
	for (i = 1; i <= need; i++) {
		if (i >= len || s[i] < lo || s[i] > hi)
			return i;
		lo = 0x80;
		hi = 0xbf;
	}
	*ok = true;
	return need + 1;
}

char *
utf8_valid(const char *s, size_t len, size_t *outlen)
{
	const unsigned char *in = (const unsigned char *)s;
	char *out, *o;
	size_t i = 0, n;
	bool ok;

	/* U+FFFD takes 3 bytes; it replaces at least one */
	if (len > (SIZE_MAX - 1) / 3 || !(out = malloc(3 * len + 1)))
		return NULL;
	o = out;
	while (i < len) {
		n = sequence(in + i, len - i, &ok);
		if (ok) {
			memcpy(o, in + i, n);
			o += n;
		} else {
			memcpy(o, "\xef\xbf\xbd", 3);
			o += 3;
		}
		i += n;
	}
	*o = '\0';
	if (outlen)
		*outlen = (size_t)(o - out);
	return out;
}

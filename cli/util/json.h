/* SPDX-License-Identifier: MIT */
/* Building and printing the JSON documents profrun writes (reports,
 * diffs): every string valid UTF-8, numbers with fixed decimals, one
 * layout. */
#ifndef PROFRUN_CLI_JSON_H
#define PROFRUN_CLI_JSON_H

#include <json-c/json.h>
#include <stdint.h>
#include <stdio.h>

/* A JSON string of S made valid UTF-8 (S must not be NULL). */
json_object *json_utf8_string(const char *s);

/* V with DECIMALS decimals, as printed by "%.*f" (0 when not finite). */
json_object *json_decimal(double v, int decimals);

/* O[KEY] = V, or the string S made valid UTF-8 (S must not be NULL). */
void json_add_u64(json_object *o, const char *key, uint64_t v);
void json_add_string(json_object *o, const char *key, const char *s);

/* O pretty-printed to OUT with a newline, then released. */
void json_print(json_object *o, FILE *out);

/* S as a JSON string (valid UTF-8, escaped) to OUT: for documents too
 * large to build as objects, written piece by piece. */
void json_put_string(FILE *out, const char *s);

#endif /* PROFRUN_CLI_JSON_H */

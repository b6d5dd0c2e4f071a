/* SPDX-License-Identifier: MIT */
/* JSON output (util/json.h). */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "utf8.h"

json_object *
json_utf8_string(const char *s)
{
	size_t n;
	char *v = utf8_valid(s, strlen(s), &n);
	json_object *o;

	if (!v || n > INT_MAX) {
		free(v);
		return NULL;
	}
	o = json_object_new_string_len(v, (int)n);
	free(v);
	return o;
}

json_object *
json_decimal(double v, int decimals)
{
	char buf[64];

	if (!isfinite(v))
		v = 0;
	snprintf(buf, sizeof(buf), "%.*f", decimals, v);
	return json_object_new_double_s(v, buf);
}

void
json_add_u64(json_object *o, const char *key, uint64_t v)
{
	json_object_object_add(o, key, json_object_new_uint64(v));
}

void
json_add_string(json_object *o, const char *key, const char *s)
{
	json_object_object_add(o, key, json_utf8_string(s));
}

void
json_put_string(FILE *out, const char *s)
{
	json_object *o = json_utf8_string(s ? s : "");

	fputs(o ? json_object_to_json_string_ext(
			  o, JSON_C_TO_STRING_PLAIN |
				     JSON_C_TO_STRING_NOSLASHESCAPE)
		: "\"\"",
	      out);
	json_object_put(o);
}

void
json_print(json_object *o, FILE *out)
{
	fprintf(out, "%s\n",
		json_object_to_json_string_ext(
			o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
				   JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
}

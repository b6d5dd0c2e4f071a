/* SPDX-License-Identifier: MIT */
/* The views of a report's call stacks: --callers FUNC, --callees FUNC and
 * --call-graph, in text and in JSON (formats/calls.c). */
#ifndef PROFRUN_CLI_CALLS_H
#define PROFRUN_CLI_CALLS_H

#include <json-c/json.h>
#include <stdio.h>

#include "report.h"

/* Whether R can show the views its options ask for: 0, or -1 after a
 * one-line error (no stacks recorded, FUNC on no stack). */
int calls_check(const struct report *r);

/* The views asked for, as text sections. */
void report_text_calls(const struct report *r, FILE *out);

/* The views asked for, as the keys "callers", "callees" and "call_graph"
 * of the JSON report O. */
void report_json_calls(const struct report *r, json_object *o);

/* R's stacks; or, when R has none, its functions as stacks of one frame
 * each, in *TMP (borrowing R's strings), to free with calls_stacks_fini.
 * NULL after an error message. */
const struct report_stacks *calls_stacks(const struct report *r,
					 struct report_stacks *tmp);
void calls_stacks_fini(const struct report *r, struct report_stacks *tmp);

#endif /* PROFRUN_CLI_CALLS_H */

/* SPDX-License-Identifier: MIT */
/* The flame graph page (formats/html.c writes the data, html-page.c the
 * page around it). */
#ifndef PROFRUN_CLI_HTML_H
#define PROFRUN_CLI_HTML_H

#include <stdio.h>

#include <stdbool.h>

#include "report.h"
#include "stacks.h"

/* What a page adds to the flame graph page.  Its script runs inside the
 * page's, after the flame graph's functions are defined and before the
 * first drawing: it may set the hooks of the object V (color(i), the fill
 * of frame i; ink(i), its text's; tip(i), more lines for its tooltip;
 * note(i), its note in the list of frames drawn; draw(drawn), a view
 * drawn instead of the flame graph, returning how many frames it drew;
 * info(text), the line under the header; title) and use D, the data. */
struct html_page {
	const char *exe;    /* names the program in the title */
	const char *style;  /* more CSS, or NULL */
	const char *aside;  /* markup beside the flame graph, or NULL */
	const char *script; /* the page's own script, or NULL */
};

/* The page up to its data: a JSON object the caller writes without its
 * closing brace. */
void html_page_head(FILE *out, const struct html_page *pg);

/* The closing brace of the data, then the script, then the page's end. */
void html_page_tail(FILE *out, const struct html_page *pg);

/* The flame graph's keys of the data object: "total", "stacks",
 * "samples", "truncated", "has_stacks" (as HAS_STACKS says), "min",
 * "names", "modules", "module_of" and "nodes", the last without a comma
 * after it.  S's functions name their modules by path or file name.  0, or
 * -1 when out of memory. */
int html_flame_data(FILE *out, const struct report_stacks *s, bool has_stacks);

/* S as a JSON string safe inside <script>: '<', '>', '&', control
 * characters, U+2028 and U+2029 as \u escapes. */
void html_json_string(FILE *out, const char *s);

/* "names": each function of S's name (html.c). */
void html_write_names(FILE *out, const struct report_stacks *s);

/* "modules" (distinct, in order of first use) and "module_of" (each
 * function's index into them, negative for the main executable's).
 * Returns 0, or -1 when out of memory (html.c). */
int html_write_modules(FILE *out, const struct report_stacks *s);

/* ,"timeline": R's samples in time order for the page's timeline, or
 * null (html-timeline.c). */
void html_write_timeline(FILE *out, const struct report *r);

#endif /* PROFRUN_CLI_HTML_H */

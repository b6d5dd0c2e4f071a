/* SPDX-License-Identifier: MIT */
/* The flame graph page (formats/html.c writes the data, html-page.c the
 * page around it). */
#ifndef PROFRUN_CLI_HTML_H
#define PROFRUN_CLI_HTML_H

#include <stdio.h>

#include "report.h"

/* The page up to its data: a JSON object the caller writes without its
 * closing brace.  EXE names the program in the title. */
void html_page_head(FILE *out, const char *exe);

/* The closing brace of the data, then the script, then the page's end. */
void html_page_tail(FILE *out);

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

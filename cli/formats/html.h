/* SPDX-License-Identifier: MIT */
/* The flame graph page (formats/html.c writes the data, html-page.c the
 * page around it). */
#ifndef PROFRUN_CLI_HTML_H
#define PROFRUN_CLI_HTML_H

#include <stdio.h>

/* The page up to its data: a JSON object the caller writes without its
 * closing brace.  EXE names the program in the title. */
void html_page_head(FILE *out, const char *exe);

/* The closing brace of the data, then the script, then the page's end. */
void html_page_tail(FILE *out);

/* S as a JSON string safe inside <script>: '<', '>', '&', control
 * characters, U+2028 and U+2029 as \u escapes. */
void html_json_string(FILE *out, const char *s);

#endif /* PROFRUN_CLI_HTML_H */

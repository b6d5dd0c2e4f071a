/* SPDX-License-Identifier: MIT */
/* Report formats beyond text and JSON: tables and other tools' files. */
#ifndef PROFRUN_CLI_FORMATS_H
#define PROFRUN_CLI_FORMATS_H

#include <stdbool.h>
#include <stdio.h>

#include "report.h"

/* The flat profile for a terminal. */
int report_text(const struct report *r, FILE *out);

/* JSON, schema profrun-report/1. */
int report_json(const struct report *r, FILE *out);

/* CSV (RFC 4180: CRLF, header row, quoting): one row per function. */
int report_csv(const struct report *r, FILE *out);

/* The flat profile as a GitHub-flavoured markdown table. */
int report_markdown(const struct report *r, FILE *out);

/* A gmon.out histogram that `gprof -p BINARY gmon.out` reads. */
int export_gmon(const struct report *r, FILE *out);

/* A gzipped pprof profile.proto. */
int export_pprof(const struct report *r, FILE *out);

struct report_format {
	const char *name;
	int (*write)(const struct report *r, FILE *out);
	bool binary; /* never written to a terminal */
};

/* The format called NAME, or NULL. */
const struct report_format *report_format_find(const char *name);

/* "text|json|csv|..." for messages. */
const char *report_format_names(void);

/* Write R in FORMAT to OUT; 0 or -1 (after an error message, except for
 * write errors, which the caller reports). */
int report_write(const struct report *r, const char *format, FILE *out);

/* Markdown-safe copy of S for a table cell ('|' escaped, backticks
 * replaced), written to OUT. */
void markdown_cell(FILE *out, const char *s);

#endif /* PROFRUN_CLI_FORMATS_H */

/* SPDX-License-Identifier: MIT */
/* The output formats of a report: one file each (formats/NAME.c defines
 * format_NAME), listed once in formats/table.c. */
#ifndef PROFRUN_CLI_FORMATS_H
#define PROFRUN_CLI_FORMATS_H

#include <stdbool.h>
#include <stdio.h>

#include "report.h"

struct report_format {
	const char *name; /* of --format */
	const char *what; /* what it is for, one line of --help */
	/* R in this format to OUT; 0, or -1 after an error message (OUT's
	 * write errors are report_write's to check) */
	int (*write)(const struct report *r, FILE *out);
	bool binary;   /* never written to a terminal */
	bool timeline; /* shows the samples in time order: the report
			* builds them (report_opts.timeline) */
};

/* Defines the format ID, "ID" in --format, in formats/ID.c: its row of
 * the table of formats (formats/table.c) refers to format_ID. */
#define REPORT_FORMAT(id, what_, write_, binary_)                              \
	const struct report_format format_##id = {#id, what_, write_, binary_}

/* A textual format that shows the samples in time order. */
#define REPORT_FORMAT_TIMED(id, what_, write_)                                 \
	const struct report_format format_##id = {#id, what_, write_, false,   \
						  true}

/* The format called NAME, or NULL. */
const struct report_format *report_format_find(const char *name);

/* The formats in the order of the table (text, the default, first), for
 * --help: the Ith, or NULL past the last. */
const struct report_format *report_format_at(size_t i);

/* Write R in FORMAT to OUT; 0 or -1 (after an error message, except for
 * write errors, which the caller reports). */
int report_write(const struct report *r, const char *format, FILE *out);

/* Markdown-safe copy of S for a table cell ('|' escaped, backticks
 * replaced), written to OUT. */
void markdown_cell(FILE *out, const char *s);

/* S elided in its middle to at most WIDTH bytes ("head..tail", never
 * splitting a UTF-8 character), in BUF (SIZE bytes), or S itself when it
 * fits.  (formats/cells.c) */
const char *cell_elide(const char *s, size_t width, char *buf, size_t size);

/* True when F is a range of code without a symbol, "[module 0xA-0xB]". */
bool func_unnamed(const struct func *f);

/* F's name in a table: beside a module column, a range of code without a
 * symbol drops its module ("[0xA-0xB]", in BUF of SIZE bytes). */
const char *cell_function(const struct func *f, bool module_column, char *buf,
			  size_t size);

#endif /* PROFRUN_CLI_FORMATS_H */

/* SPDX-License-Identifier: MIT */
/* What every layer of the CLI shares: exit codes and one way to say what
 * went wrong ("profrun: context: reason" on stderr). */
#ifndef PROFRUN_CLI_H
#define PROFRUN_CLI_H

#include <stdbool.h>
#include <stdio.h>

/* Exit codes of profrun's own subcommands (profrun PROGRAM exits with the
 * program's status instead). */
enum {
	EXIT_OK = 0,
	EXIT_FAIL = 1,	  /* the profile or binary could not be used */
	EXIT_PARTIAL = 3, /* written, but without members that could not be
			   * read: the report is partial */
	EXIT_USAGE = 64,  /* bad command line */
};

/* Replace the terminal control characters in the LEN bytes at S (escape
 * sequences a hostile profile could carry in a path, a note or a symbol
 * name) with '?'; line ends ("\n", "\r\n") are kept when KEEP_NEWLINES. */
void cli_printable(char *s, size_t len, bool keep_newlines);

/* What RENDER writes of ARG, rendered in memory, then written to OUT
 * printable (as above, line ends kept) and valid UTF-8.  0, or -1 when
 * RENDER, the write or a memory allocation failed. */
int cli_write_rendered(int (*render)(const void *arg, FILE *mem),
		       const void *arg, FILE *out);

/* "profrun: " + printf-style message + newline, on stderr, printable. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void cli_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Where the messages go instead of stderr, for code that runs the CLI's
 * libraries without a terminal to talk to (unit tests count them, fuzz
 * harnesses drop them): FN gets WARNING (cli_warn or cli_error) and the
 * message, printable, without "profrun: " or a newline.  NULL restores
 * stderr. */
typedef void cli_message_fn(bool warning, const char *msg);
void cli_set_message_sink(cli_message_fn *fn);

#endif /* PROFRUN_CLI_H */

/* SPDX-License-Identifier: MIT */
/* Private interfaces shared by the profrun CLI's subcommands. */
#ifndef PROFRUN_CLI_H
#define PROFRUN_CLI_H

#include <stdbool.h>
#include <stdio.h>

/* Exit codes of profrun's own subcommands (profrun PROGRAM exits with the
 * program's status instead). */
enum {
	EXIT_OK = 0,
	EXIT_FAIL = 1,	 /* the profile or binary could not be used */
	EXIT_USAGE = 64, /* bad command line */
};

/* `profrun report [OPTIONS] PROFILE`; argv[0] is "report". */
int cmd_report(int argc, char **argv);

/* `profrun merge -o OUT PROFILE...`; argv[0] is "merge". */
int cmd_merge(int argc, char **argv);

/* `profrun diff BASE NEW`; argv[0] is "diff". */
int cmd_diff(int argc, char **argv);

/* `profrun annotate [OPTIONS] [FUNCTION...] PROFILE`. */
int cmd_annotate(int argc, char **argv);

/* `profrun [OPTIONS] [--] PROGRAM [ARGS...]`. */
int cmd_run(int argc, char **argv);

/* Options shared by `report` and the report printed after a run. */
struct report_opts {
	const char *format; /* "text" (default), "json", "csv", ... */
	int top;	    /* at most this many functions; 0 = all */
	bool force;	    /* report even when the binary's build-id changed */
	bool by_process;    /* one section per process */
	long pid;	    /* only this process; 0 = all */
	bool by_thread;	    /* a table of each process's threads */
	long tid;	    /* only the process of this thread; 0 = all */
	bool lines;	    /* also the profile by source line */
	bool inlines;	    /* split functions among their inlined callees */
	bool lines_by_caller;	 /* keep lines of different callers apart */
	bool no_demangle;	 /* raw symbol names */
	const char **debug_dirs; /* --debug-dir, in order */
	size_t ndebug_dirs;
	bool main_only;	    /* only the main executables, as profil sees */
	const char *module; /* only this module's entries; NULL = all */
};

/* Print the report of PATH (a run directory or one member file) to OUT.
 * Errors are printed as one line "profrun: PATH: reason" on stderr.
 * Returns EXIT_OK or EXIT_FAIL. */
int report_path(const char *path, const struct report_opts *opts, FILE *out);

/* The same for the N profiles PATHS, added up. */
int report_paths(char *const *paths, size_t n, const struct report_opts *opts,
		 FILE *out);

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

#endif /* PROFRUN_CLI_H */

/* SPDX-License-Identifier: MIT */
/* Opening the files a profile names: regular files only (util/file.c). */
#ifndef PROFRUN_CLI_FILE_H
#define PROFRUN_CLI_FILE_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/stat.h>

/* PATH opened for reading, close-on-exec, if it is a regular file: a FIFO,
 * a device or a directory fails with EINVAL, without blocking in open().
 * Returns the descriptor, or -1 with errno set. */
int cli_open_regular(const char *path);

/* The root under which the profiled machine's files are found (report
 * --sysroot, as perf's --symfs): the directory DIR, which must be one.
 * Returns 0, or -1 with errno set (ENOTDIR when DIR is not a directory). */
int cli_set_sysroot(const char *dir);

/* A file of the profiled machine (an executable, a library, a debug file)
 * opened as cli_open_regular does: an absolute PATH under the sysroot
 * first, then PATH itself (as qemu-user's -L root is searched).  Returns
 * the descriptor, or -1 with errno set (the sysroot's when neither). */
int cli_open_target(const char *path);

/* The same as a stream, or NULL with errno set. */
FILE *cli_fopen_regular(const char *path);

/* Caps on what the CLI reads whole (documented in README.md, Limits). */
#define CLI_MAX_JSON_REPORT (256u << 20) /* a JSON baseline of diff */
#define CLI_MAX_SOURCE	    (16u << 20)	 /* a source file to annotate */

/* The regular file PATH read whole into a new NUL-terminated buffer
 * *OUT of *LEN bytes, if it holds at most CAP: 0, or -1 with errno set
 * (EFBIG when larger, also when it grew while read; EINVAL when not a
 * regular file). */
int cli_read_file(const char *path, size_t cap, char **out, size_t *len);

/* An output named by -o: written to a temporary file beside it and renamed
 * over it only when complete, so a failure never destroys or truncates
 * what was there (a symlink is replaced, its target left alone); a device,
 * FIFO or terminal is written in place and never removed. */
struct cli_output {
	FILE *f;
	const char *path;
	char *tmp; /* NULL when written in place */
};

/* Note the file ST (a profile, a member, a file read whole or opened by
 * cli_open_regular, which notes it) as an input of this command: an
 * output never takes its place. */
void cli_input_note(const struct stat *st);

/* Whether PATH (the name, or what it leads to) is a noted input. */
bool cli_is_input(const char *path);

/* Open O for PATH.  Returns 0, -1 with errno set, or -2 after saying in
 * one line that PATH is one of the inputs. */
int cli_output_open(struct cli_output *o, const char *path);

/* Close O: when KEEP, the output takes PATH's place, unless PATH is one of
 * the inputs (checked again: those read since the open count too); else
 * it is removed (only what profrun created).  Returns 0, -1 with errno
 * set, or -2 after saying that PATH is an input (the output removed). */
int cli_output_close(struct cli_output *o, bool keep);

#endif /* PROFRUN_CLI_FILE_H */

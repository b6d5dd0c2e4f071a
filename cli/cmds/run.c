/* SPDX-License-Identifier: MIT */
/* `profrun [OPTIONS] [--] PROGRAM [ARGS...]`: run a program under the shim,
 * then print its flat profile on stderr. */
#define _GNU_SOURCE
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmds.h"
#include "options.h"
#include "program.h"
#include "run.h"

#define FREQ_MAX 100000L

struct run_opts {
	const char *output; /* -o; NULL = "<program>.prof" */
	bool quiet;
	long freq; /* 0 = the shim's default */
	struct report_opts report;
};

static const char run_usage[] =
	"Usage: profrun [OPTIONS] [--] PROGRAM [ARGS...]\n"
	"       profrun report [OPTIONS] PROFILE...\n"
	"       profrun annotate [OPTIONS] [FUNCTION...] PROFILE\n"
	"       profrun merge -o OUT PROFILE...\n"
	"       profrun diff [OPTIONS] BASE NEW\n"
	"\n"
	"Runs PROGRAM (dynamically linked, not rebuilt) with the profrun shim\n"
	"preloaded, then prints its flat profile on stderr.  PROGRAM's stdout,\n"
	"stdin and exit status are its own.\n"
	"\n"
	"Options:\n"
	"  -o, --output PATH   write the run's profile to PATH, a directory with one\n"
	"                      file per process (default: ./PROGRAM.prof); an earlier\n"
	"                      profile at PATH is replaced\n"
	"  -q, --quiet         record only; print no report\n"
	"  -F, --freq HZ       sampling rate in Hz (default 100; the kernel's tick,\n"
	"                      often 250 Hz, caps what is achieved)\n"
	"      --top N         print at most N functions\n"
	"      --format FMT    report format: text (default) or json\n"
	"  -h, --help          show this help\n"
	"  -V, --version       show the version\n"
	"\n"
	"Subcommands:\n"
	"  report              print the profile of an earlier run (profrun report --help)\n"
	"  annotate            the hottest functions' source, line by line (profrun annotate --help)\n"
	"  merge               add profiles up exactly (profrun merge --help)\n"
	"  diff                compare two profiles; exit 1 on a regression (profrun diff --help)\n"
	"\n"
	"Exit status:\n"
	"  PROGRAM's own exit status, or 128+N if it was killed by signal N;\n"
	"  126 if PROGRAM cannot be executed or is statically linked;\n"
	"  127 if PROGRAM is not found;\n"
	"  1   if profrun itself failed before starting PROGRAM;\n"
	"  64  on a bad command line.\n"
	"\n"
	"Environment: PROFRUN_SHIM overrides the shim's location.\n";

/* Without -F, a PROFRUN_FREQ inherited from the environment reaches every
 * process of the run: refuse a bad one now rather than have each process
 * warn about it. */
static int
check_inherited_freq(const struct run_opts *o)
{
	const char *env = getenv("PROFRUN_FREQ");

	if (o->freq || !env || opt_number(env, 1, FREQ_MAX) > 0)
		return EXIT_OK;
	cli_error("PROFRUN_FREQ: '%s' is not a rate between 1 and %ld Hz", env,
		  FREQ_MAX);
	return EXIT_USAGE;
}

/* Returns -1 to go on, or the exit status. */
static int
run_option(int c, struct run_opts *o)
{
	switch (c) {
	case 'o':
		o->output = optarg;
		return -1;
	case 'q':
		o->quiet = true;
		return -1;
	case 'F':
		o->freq = opt_number(optarg, 1, FREQ_MAX);
		if (o->freq >= 0)
			return -1;
		cli_error("--freq: '%s' is not a rate between 1 and %ld Hz",
			  optarg, FREQ_MAX);
		return EXIT_USAGE;
	case 't':
		o->report.top = (int)opt_number(optarg, 1, INT_MAX);
		if (o->report.top >= 0)
			return -1;
		cli_error("--top: '%s' is not a positive number", optarg);
		return EXIT_USAGE;
	case 'f':
		o->report.format = optarg;
		if (strcmp(optarg, "text") == 0 || strcmp(optarg, "json") == 0)
			return -1;
		cli_error("--format: unknown format '%s' (text, json)", optarg);
		return EXIT_USAGE;
	case 'h':
		fputs(run_usage, stdout);
		return EXIT_OK;
	case 'V':
		printf("profrun %s\n", PROFRUN_VERSION_STRING);
		return EXIT_OK;
	default:
		fputs("Try 'profrun --help'.\n", stderr);
		return EXIT_USAGE;
	}
}

/* Returns -1 to run the program, or the exit status. */
static int
parse_run_opts(int argc, char **argv, struct run_opts *o)
{
	static const struct option longopts[] = {
		{"output", required_argument, NULL, 'o'},
		{"quiet", no_argument, NULL, 'q'},
		{"freq", required_argument, NULL, 'F'},
		{"top", required_argument, NULL, 't'},
		{"format", required_argument, NULL, 'f'},
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'V'},
		{NULL, 0, NULL, 0},
	};
	int c, ret = -1;

	while (ret < 0 &&
	       (c = getopt_long(argc, argv, "+o:qF:hV", longopts, NULL)) != -1)
		ret = run_option(c, o);
	if (ret >= 0)
		return ret;
	if (optind >= argc) {
		cli_error("no program to run (try 'profrun --help')");
		return EXIT_USAGE;
	}
	return check_inherited_freq(o) == EXIT_OK ? -1 : EXIT_USAGE;
}

/* ------------------------------------------------------------------ shim */

static bool
readable(const char *path)
{
	return access(path, R_OK) == 0;
}

/* Where libprofrun.so is: $PROFRUN_SHIM, the build tree when running from
 * it, the install location relative to this binary, or the configured one. */
static int
find_shim(char *out, size_t outsz)
{
	char self[PATH_MAX], dir[PATH_MAX];
	const char *env = getenv("PROFRUN_SHIM");
	ssize_t n;

	if (env && *env) {
		snprintf(out, outsz, "%s", env);
		return readable(out) ? 0 : -1;
	}
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n > 0) {
		self[n] = '\0';
		snprintf(dir, sizeof(dir), "%s", self);
		dirname(dir);
		snprintf(out, outsz, "%s/cli/profrun", PROFRUN_BUILD_ROOT);
		if (strcmp(self, out) == 0) {
			snprintf(out, outsz, "%s/preload/libprofrun.so",
				 PROFRUN_BUILD_ROOT);
			if (readable(out))
				return 0;
		}
		if (PROFRUN_SHIM_RELPATH[0] &&
		    (size_t)snprintf(out, outsz, "%s/%s", dir,
				     PROFRUN_SHIM_RELPATH) < outsz &&
		    readable(out))
			return 0;
	}
	snprintf(out, outsz, "%s", PROFRUN_SHIM_INSTALLED);
	return readable(out) ? 0 : -1;
}

/* ---------------------------------------------------------- output path */

/* OUTPUT (not a symbolic link) and its resolved path ABS are still one
 * directory: nobody swapped a link in while it was being prepared, which
 * would send the shim's writes elsewhere. */
static int
same_directory(const char *output, const char *abs)
{
	struct stat a, b;

	if (lstat(output, &a) != 0 || lstat(abs, &b) != 0 ||
	    !S_ISDIR(a.st_mode) || !S_ISDIR(b.st_mode) ||
	    a.st_dev != b.st_dev || a.st_ino != b.st_ino) {
		cli_error(
			"%s: changed while being prepared; refusing to write there",
			output);
		return -1;
	}
	return 0;
}

/* Make OUTPUT an empty run directory and its absolute path into ABS. */
static int
prepare_output(const char *output, char *abs, size_t abssz)
{
	struct stat st;

	if (lstat(output, &st) == 0) {
		if (S_ISLNK(st.st_mode)) {
			cli_error(
				"%s: is a symbolic link; refusing to write through it",
				output);
			return -1;
		}
		if (!S_ISDIR(st.st_mode)) {
			cli_error(
				"%s: exists and is not a profrun profile; choose another path with -o",
				output);
			return -1;
		}
		/* an earlier run's profile is replaced, nothing else */
		if (run_dir_empty(output, false, "choose another path with -o"))
			return -1;
	} else if (errno != ENOENT || mkdir(output, 0755) != 0) {
		cli_error("%s: cannot create: %s", output, strerror(errno));
		return -1;
	}
	if (!realpath(output, abs) || strlen(abs) >= abssz) {
		cli_error("%s: %s", output, strerror(errno));
		return -1;
	}
	return same_directory(output, abs);
}

static void
default_output(const char *program, char *out, size_t outsz)
{
	const char *base = strrchr(program, '/');

	base = base ? base + 1 : program;
	if (*base == '\0' || *base == '.')
		base = "profrun";
	snprintf(out, outsz, "%s.prof", base);
}

/* ------------------------------------------------------------- the child */

static int
setup_child_environ(const char *shim, const char *outdir, long freq)
{
	const char *old = getenv("LD_PRELOAD");
	char *preload, hz[32];
	int ret;

	if (strpbrk(shim, ": ")) {
		cli_error(
			"%s: the shim's path contains ':' or ' ', which LD_PRELOAD cannot carry",
			shim);
		return -1;
	}
	if (old && *old)
		ret = asprintf(&preload, "%s:%s", old, shim);
	else
		ret = asprintf(&preload, "%s", shim);
	if (ret < 0)
		return -1;
	setenv("LD_PRELOAD", preload, 1);
	free(preload);
	setenv("PROFRUN_OUTPUT", outdir, 1);
	if (freq) {
		snprintf(hz, sizeof(hz), "%ld", freq);
		setenv("PROFRUN_FREQ", hz, 1);
	}
	return 0;
}

static int
wait_status(pid_t pid)
{
	struct sigaction ign = {.sa_handler = SIG_IGN}, oint, oquit;
	int status;
	pid_t r;

	/* like system(3): the terminal's ^C and ^\ are the program's to handle */
	sigaction(SIGINT, &ign, &oint);
	sigaction(SIGQUIT, &ign, &oquit);
	do
		r = waitpid(pid, &status, 0);
	while (r < 0 && errno == EINTR);
	sigaction(SIGINT, &oint, NULL);
	sigaction(SIGQUIT, &oquit, NULL);
	if (r < 0)
		return 1;
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

/* posix_spawn rather than fork: a vfork-style start copies none of this
 * process's page tables (elfutils and json-c are mapped by then), and it
 * returns the error of a failed exec itself. */
static int
spawn(const char *path, char **argv, int *status)
{
	pid_t pid;
	int err;

	*status = EXIT_FAIL;
	fflush(NULL);
	err = posix_spawn(&pid, path, NULL, NULL, argv, environ);
	if (err == EAGAIN) {
		cli_error("cannot start %s: %s", argv[0], strerror(err));
		return -1;
	}
	if (err) {
		cli_error("%s: cannot execute: %s", argv[0], strerror(err));
		*status = err == ENOENT ? 127 : 126;
		return err;
	}
	*status = wait_status(pid);
	return 0;
}

/* A set-user-ID or set-group-ID program runs with its own privileges in
 * secure-execution mode, where the shim is never loaded: run it as it is,
 * with no profile and no report. */
static int
run_unprofiled(const char *prog, char **argv)
{
	int status;

	cli_error(
		"%s: set-user-ID or set-group-ID program: it runs, but is not profiled",
		argv[0]);
	spawn(prog, argv, &status);
	return status;
}

int
cmd_run(int argc, char **argv)
{
	struct run_opts o = {.report = {.format = "text"}};
	char prog[PATH_MAX], shim[PATH_MAX], outdir[PATH_MAX],
		defout[NAME_MAX + 1];
	int ret, status;

	ret = parse_run_opts(argc, argv, &o);
	if (ret >= 0)
		return ret;
	argv += optind;
	ret = program_resolve(argv[0], prog, sizeof(prog));
	if (ret == 0)
		ret = program_check_dynamic(prog);
	if (ret != 0)
		return ret;
	if (program_is_setid(prog))
		return run_unprofiled(prog, argv);
	if (find_shim(shim, sizeof(shim)) != 0) {
		cli_error("%s: shim not found (set PROFRUN_SHIM, or reinstall)",
			  shim);
		return EXIT_FAIL;
	}
	if (!o.output) {
		default_output(argv[0], defout, sizeof(defout));
		o.output = defout;
	}
	if (prepare_output(o.output, outdir, sizeof(outdir)) != 0 ||
	    setup_child_environ(shim, outdir, o.freq) != 0)
		return EXIT_FAIL;
	if (spawn(prog, argv, &status) != 0)
		return status;
	if (!o.quiet) {
		report_path(o.output, &o.report, stderr);
		fprintf(stderr,
			"profrun: profile written to %s (profrun report %s)\n",
			o.output, o.output);
	} else if (o.output == defout) {
		fprintf(stderr, "profrun: profile written to %s\n", o.output);
	}
	return status;
}

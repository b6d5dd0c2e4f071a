/* SPDX-License-Identifier: MIT */
/* `profrun [OPTIONS] [--] PROGRAM [ARGS...]`: run a program under the shim,
 * then print its flat profile on stderr. */
#define _GNU_SOURCE
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <sys/file.h>
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
#include "profrun/member-name.h"
#include "program.h"
#include "run-env.h"
#include "run-pause.h"
#include "run.h"

#define FREQ_MAX 100000L
/* Functions (and lines) the text report after a run shows unless --top
 * says otherwise: a build's report stays a screenful or two; `profrun
 * report` shows them all. */
#define RUN_DEFAULT_TOP 25

struct run_opts {
	const char *output; /* -o; NULL = "<program>.prof" */
	bool quiet;
	long freq;	    /* 0 = the shim's default */
	bool stacks;	    /* -g */
	bool wall;	    /* --wall */
	long stack_size;    /* 0 = the shim's default */
	long stack_samples; /* likewise */
	bool exact_env;	    /* --exact-env */
	struct report_opts report;
	bool top_given; /* --top, else RUN_DEFAULT_TOP for text */
	struct pause_opts pause;
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
	"                      profile at PATH is replaced; made mode 0700, its\n"
	"                      files 0600 (they hold the program's memory with -g)\n"
	"  -q, --quiet         record only; print no report\n"
	"  -F, --freq HZ       sampling rate in Hz (default 100; the kernel's tick,\n"
	"                      often 250 Hz, caps what is achieved)\n"
	"  -g, --call-graph    record call stacks too: the report gains callers,\n"
	"                      inclusive shares, flame graphs (report --format html)\n"
	"      --wall          wall-clock profile: threads blocked in a system call\n"
	"                      (sleeping, waiting on a lock, a pipe, a socket) are\n"
	"                      sampled too, by a sampler thread that reads /proc\n"
	"                      and never signals them; the report splits each\n"
	"                      function's time on and off the CPU\n"
	"      --stack-size B  stack bytes copied per sample with -g (default 8192,\n"
	"                      at most 65536; deep C++/Rust stacks want 16384-32768)\n"
	"      --stack-samples N  stacks kept per process (default 2048; past them a\n"
	"                      uniform random sample is kept; 8.4 KiB of disk each)\n"
	"      --exact-env     leave the environment a process passes to exec or\n"
	"                      posix_spawn as it made it, even when it lacks\n"
	"                      LD_PRELOAD and PROFRUN_* (env -i): that program is\n"
	"                      not profiled (default: they are put back)\n"
	"      --top N         print at most N functions (default 25; 'all')\n"
	"      --format FMT    report format: text (default) or json\n"
	"      --callers FUNC  report who calls FUNC instead of the flat table\n"
	"      --callees FUNC  report whom FUNC calls\n" PAUSE_OPTIONS_HELP
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
	"  PROGRAM's own exit status; if PROGRAM was killed by a signal, profrun\n"
	"  writes its report, then dies of the same signal (no core dump of its own);\n"
	"  126 if PROGRAM cannot be executed or is statically linked;\n"
	"  127 if PROGRAM is not found;\n"
	"  1   if profrun itself failed before starting PROGRAM;\n"
	"  64  on a bad command line.\n"
	"\n"
	"Environment: PROFRUN_SHIM overrides the shim's location (a musl program's,\n"
	"libprofrun-musl.so, is looked for beside it); an LD_PRELOAD of your own\n"
	"applies to PROGRAM only, never to profrun itself.\n"
	"\n"
	"A program can pause and resume sampling itself, with no library to link:\n"
	"#include <profrun/profrun.h> and call profrun_pause() and profrun_resume().\n"
	"The report says how much CPU time was profiled and how much paused.\n";

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
	if (opt_calls(c, &o->report) == -1)
		return -1;
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
	case 'g':
		o->stacks = true;
		return -1;
	case 'S':
		o->stack_size = opt_number(optarg, 64, 65536);
		if (o->stack_size >= 0)
			return -1;
		cli_error(
			"--stack-size: '%s' is not a size between 64 and 65536 bytes",
			optarg);
		return EXIT_USAGE;
	case 'N':
		o->stack_samples = opt_number(optarg, 1, 1048576);
		if (o->stack_samples >= 0)
			return -1;
		cli_error(
			"--stack-samples: '%s' is not a count between 1 and 1048576",
			optarg);
		return EXIT_USAGE;
	case 'E':
		o->exact_env = true;
		return -1;
	case 'W':
		o->wall = true;
		return -1;
	case 't':
		o->top_given = true;
		o->report.top = strcmp(optarg, "all") == 0
					? 0
					: (int)opt_number(optarg, 1, INT_MAX);
		if (o->report.top >= 0)
			return -1;
		cli_error("--top: '%s' is neither a positive number nor 'all'",
			  optarg);
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
	case OPT_START_PAUSED:
	case OPT_TOGGLE_SIGNAL:
	case OPT_DELAY:
	case OPT_DURATION:
		return pause_option(c, optarg, &o->pause);
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
		{"call-graph", no_argument, NULL, 'g'},
		{"stack-size", required_argument, NULL, 'S'},
		{"stack-samples", required_argument, NULL, 'N'},
		{"exact-env", no_argument, NULL, 'E'},
		{"wall", no_argument, NULL, 'W'},
		{"top", required_argument, NULL, 't'},
		{"format", required_argument, NULL, 'f'},
		CALLS_OPTIONS,
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'V'},
		PAUSE_LONGOPTS,
		{NULL, 0, NULL, 0},
	};
	int c, ret = -1;

	while (ret < 0 &&
	       (c = getopt_long(argc, argv, "+o:qF:ghV", longopts, NULL)) != -1)
		ret = run_option(c, o);
	if (ret >= 0)
		return ret;
	if (optind >= argc) {
		cli_error("no program to run (try 'profrun --help')");
		return EXIT_USAGE;
	}
	if (pause_check(&o->pause) != 0)
		return EXIT_USAGE;
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

/* The shim for musl programs, libprofrun-musl.so, beside the glibc one
 * SHIM (whose path is replaced). */
static int
musl_shim(char *shim, size_t outsz)
{
	char *slash = strrchr(shim, '/');
	size_t dir = slash ? (size_t)(slash - shim) + 1 : 0;

	if (dir + sizeof("libprofrun-musl.so") > outsz)
		return -1;
	strcpy(shim + dir, "libprofrun-musl.so");
	return readable(shim) ? 0 : -1;
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
/* Hold an exclusive lock on the run directory PATH for the rest of this
 * run (the descriptor stays open, close-on-exec), so that a second run
 * with the same -o never empties or mixes into this one's profile. */
static int
lock_output(const char *path, int *out)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0) {
		cli_error("%s: %s", path, strerror(errno));
		return -1;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) == 0) {
		*out = fd; /* kept open until profrun exits */
		return 0;
	}
	if (errno == EWOULDBLOCK)
		cli_error(
			"%s: another profrun run is writing this profile; choose another path with -o",
			path);
	else
		cli_error("%s: cannot lock: %s", path, strerror(errno));
	close(fd);
	return -1;
}

/* A profile holds the program's memory (-g), its command line and paths:
 * the run directory DFD is its owner's alone, whatever it was before
 * (only once it is known to hold nothing but members). */
static int
make_private(const char *output, int dfd)
{
	struct stat st;

	if (fstat(dfd, &st) == 0 && (st.st_mode & 07777) == 0700)
		return 0;
	if (fchmod(dfd, 0700) == 0)
		return 0;
	cli_error("%s: cannot make it private (mode 0700): %s", output,
		  strerror(errno));
	return -1;
}

static int
prepare_output(const char *output, char *abs, size_t abssz)
{
	struct stat st;
	int dfd = -1;

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
		/* an earlier run's profile is replaced, nothing else, and
		 * never one a run still going writes */
		if (lock_output(output, &dfd) ||
		    run_dir_empty(output, false,
				  "choose another path with -o") ||
		    make_private(output, dfd))
			return -1;
	} else if (errno != ENOENT || mkdir(output, 0700) != 0) {
		cli_error("%s: cannot create: %s", output, strerror(errno));
		return -1;
	} else if (lock_output(output, &dfd) || make_private(output, dfd)) {
		return -1;
	}
	if (!realpath(output, abs)) {
		cli_error("%s: %s", output, strerror(errno));
		return -1;
	}
	if (strlen(abs) >= abssz) {
		cli_error("%s: path too long (at most %zu bytes)", output,
			  abssz - 1);
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

/* NAME=N in the environment when N is not 0. */
static void
setenv_number(const char *name, long n)
{
	char buf[32];

	if (n == 0)
		return;
	snprintf(buf, sizeof(buf), "%ld", n);
	setenv(name, buf, 1);
}

static int
setup_child_environ(const char *shim, const char *outdir,
		    const struct run_opts *o)
{
	if (strpbrk(shim, ": ")) {
		cli_error(
			"%s: the shim's path contains ':' or ' ', which LD_PRELOAD cannot carry",
			shim);
		return -1;
	}
	if (run_env_append("LD_PRELOAD", run_env_user_preload(), shim) != 0)
		return -1;
	setenv("PROFRUN_OUTPUT", outdir, 1);
	setenv_number("PROFRUN_FREQ", o->freq);
	if (o->stacks)
		setenv("PROFRUN_STACKS", "1", 1);
	setenv_number("PROFRUN_STACK_SIZE", o->stack_size);
	setenv_number("PROFRUN_STACK_SAMPLES", o->stack_samples);
	if (o->exact_env)
		setenv("PROFRUN_EXACT_ENV", "1", 1);
	if (o->wall)
		setenv("PROFRUN_WALL", "1", 1);
	return run_env_sanitizers();
}

unsigned cli_filled_std_fds;

/* The program being waited for; 0 before it starts. */
static volatile pid_t child_pid;
static pid_t program_pid; /* the program's pid, kept after it ended */

/* Signals a supervisor sends to stop or poke a job; the last slot is the
 * toggle signal's (--toggle-signal), 0 when none. */
static int forwarded[] = {SIGTERM, SIGHUP,  SIGINT, SIGQUIT,
			  SIGUSR1, SIGUSR2, 0};

/* A forwarded signal sent to profrun goes to the program, which decides;
 * profrun waits for it, reports and exits with its status.  ^C and ^\
 * from the terminal already reach the program (its process group): only
 * those a process sent are passed on. */
static void
forward(int sig, siginfo_t *si, void *uc)
{
	int saved = errno;

	(void)uc;
	if (child_pid > 0 &&
	    ((sig != SIGINT && sig != SIGQUIT) || si->si_code == SI_USER ||
	     si->si_code == SI_QUEUE))
		kill(child_pid, sig);
	errno = saved;
}

/* Forward the signals of FORWARDED that profrun was not started with
 * ignored (an ignored one stays ignored, for profrun and the program, as
 * from a shell); ON false puts the defaults back. */
static void
set_forwarding(bool on)
{
	struct sigaction sa = {.sa_flags = SA_SIGINFO | SA_RESTART}, old;

	sa.sa_sigaction = forward;
	sigfillset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(forwarded) / sizeof(forwarded[0]); i++) {
		if (forwarded[i] == 0 ||
		    sigaction(forwarded[i], NULL, &old) != 0 ||
		    old.sa_handler == SIG_IGN)
			continue;
		if (on) {
			sigaction(forwarded[i], &sa, NULL);
		} else {
			struct sigaction dfl = {.sa_handler = SIG_DFL};

			sigaction(forwarded[i], &dfl, NULL);
		}
	}
}

/* The signal that ended the program, 0 if it exited. */
static int program_signal;
static int program_status = -1; /* its wait status, -1 = not known */

static int
wait_status(pid_t pid)
{
	int status;
	pid_t r;

	do
		r = waitpid(pid, &status, 0);
	while (r < 0 && errno == EINTR);
	if (r < 0)
		return 1;
	program_status = status;
	if (WIFSIGNALED(status)) {
		program_signal = WTERMSIG(status);
		return 128 + WTERMSIG(status);
	}
	return WEXITSTATUS(status);
}

/* End as the program ended: of the signal that killed it, with no core
 * dump of profrun's own, so that whoever waits for profrun (a shell loop
 * stopped by ^C, a build tool) sees what it would see without profrun.
 * Returns STATUS when the program exited, or the signal did not end us. */
static int
end_like_the_program(int status)
{
	struct sigaction dfl = {.sa_handler = SIG_DFL};
	struct rlimit core;
	sigset_t set;

	if (program_signal == 0)
		return status;
	fflush(NULL);
	if (getrlimit(RLIMIT_CORE, &core) == 0) {
		core.rlim_cur = 0;
		setrlimit(RLIMIT_CORE, &core);
	}
	sigaction(program_signal, &dfl, NULL);
	sigemptyset(&set);
	sigaddset(&set, program_signal);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	raise(program_signal);
	return status;
}

/* vfork and execve: the program inherits exactly this process's signal
 * dispositions (caught ones become default at exec, ignored ones stay
 * ignored) and mask, as from a shell (posix_spawn would leave glibc's
 * internal signals ignored in it), and no page tables are copied.  The
 * error of a failed exec comes back through the shared memory. */
static int
spawn(const char *path, char **argv, int *status)
{
	volatile int exec_err = 0;
	pid_t pid;

	*status = EXIT_FAIL;
	fflush(NULL);
	set_forwarding(true);
	pid = vfork();
	if (pid == 0) {
		for (int fd = 0; fd <= 2; fd++)
			if (cli_filled_std_fds & (1u << fd))
				close(fd); /* closed when profrun started */
		execve(path, argv, environ);
		exec_err = errno;
		_exit(127);
	}
	if (pid < 0) {
		set_forwarding(false);
		cli_error("cannot start %s: %s", argv[0], strerror(errno));
		return -1;
	}
	if (exec_err) {
		waitpid(pid, NULL, 0);
		set_forwarding(false);
		cli_error("%s: cannot execute: %s", argv[0],
			  strerror(exec_err));
		*status = exec_err == ENOENT ? 127 : 126;
		return exec_err;
	}
	child_pid = pid;
	program_pid = pid;
	*status = wait_status(pid);
	child_pid = 0;
	set_forwarding(false);
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
	return end_like_the_program(status);
}

/* The members in the run directory DIR: how many, and whether one is
 * the program's own (PID's). */
static size_t
count_members(const char *dir, pid_t pid, bool *own)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	uint64_t p, seq;
	size_t n = 0;

	*own = false;
	if (d == NULL)
		return 0;
	while ((e = readdir(d)) != NULL) {
		if (!profrun_member_name_parse(e->d_name, &p, &seq))
			continue;
		n++;
		*own |= p == (uint64_t)pid;
	}
	closedir(d);
	return n;
}

/* After the run: the report, or why there is none, and where the profile
 * is.  The program's process left no member when the run directory was
 * removed or replaced while it ran (its children made a new one). */
static void
after_run(const struct run_opts *o, const char *outdir, bool default_out)
{
	bool own;
	size_t n = count_members(outdir, program_pid, &own);

	/* how the program ended, for a member whose image never finished
	 * (a raw exit_group, or a kill): only its parent knows */
	if (own && program_status != -1)
		run_note_reaped(outdir, (uint32_t)program_pid, program_status);
	if (n == 0) {
		cli_error(
			"no profile in %s: the program ran without being profiled (see the messages above)",
			o->output);
		return;
	}
	if (!own && program_pid > 0)
		cli_warn(
			"the program (pid %ld) left no profile in %s: was the directory removed or replaced while it ran?",
			(long)program_pid, o->output);
	if (!o->quiet) {
		report_path(o->output, &o->report, stderr);
		cli_error("profile written to %s (profrun report %s)",
			  o->output, o->output);
	} else if (default_out) {
		cli_error("profile written to %s", o->output);
	}
}

int
cmd_run(int argc, char **argv)
{
	struct run_opts o = {.report = {.format = "text"},
			     .pause = PAUSE_OPTS_INIT};
	char prog[PATH_MAX], shim[PATH_MAX], outdir[PATH_MAX],
		defout[NAME_MAX + 1];
	int ret, status;

	ret = parse_run_opts(argc, argv, &o);
	if (ret >= 0)
		return ret;
	if (!o.top_given && strcmp(o.report.format, "text") == 0)
		o.report.top = RUN_DEFAULT_TOP;
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
	if (program_is_musl(prog) && musl_shim(shim, sizeof(shim)) != 0) {
		cli_error(
			"%s: a musl program, and the shim for musl programs is not installed (%s)",
			prog, shim);
		return EXIT_FAIL;
	}
	if (!o.output) {
		default_output(argv[0], defout, sizeof(defout));
		o.output = defout;
	}
	if (prepare_output(o.output, outdir, sizeof(outdir)) != 0 ||
	    setup_child_environ(shim, outdir, &o) != 0 ||
	    pause_environ(&o.pause) != 0)
		return EXIT_FAIL;
	forwarded[sizeof(forwarded) / sizeof(forwarded[0]) - 1] =
		o.pause.toggle_sig;
	if (spawn(prog, argv, &status) != 0)
		return status;
	after_run(&o, outdir, o.output == defout);
	return end_like_the_program(status);
}

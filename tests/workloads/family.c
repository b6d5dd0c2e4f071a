/* SPDX-License-Identifier: MIT */
/* family MODE ...: programs made of many processes, each burning CPU in a
 * function named after its role, and checking what it can of its own
 * behaviour (exit statuses, errno).  One line on stdout per outcome;
 * exit 0 when everything went as without a profiler, else 1.
 *
 *   fork P C STATUS     child burns C s in child_hot and exits STATUS,
 *                       parent burns P s in parent_hot and checks it
 *   forkexec P PROG ... child execs PROG ARGS..., parent burns P s
 *   chain K STATUS STATIC [S]
 *                       burn S s (default 0.2) in chain_hot, then exec
 *                       itself with K-1 through another exec wrapper each
 *                       time; at K == 0 exec STATIC ("outcome" built
 *                       -static) with "exit:STATUS", whose status becomes
 *                       ours
 *   execfail S          exec wrappers on missing programs must fail with
 *                       ENOENT; then burn S s in after_fail
 *   many N MB           fork N children (exit i % 256) from a process
 *                       with MB MiB touched and its timer running
 *   spawn PROG ARGS...  vfork+execv, posix_spawn and posix_spawnp PROG
 *                       (and a vfork child that _exit()s with 5)
 *   daemon S            double fork, setsid, chdir /, close every
 *                       descriptor, then burn S s in daemon_hot
 *   ownenv PROG ARGS... runs PROG with an environment of its own making
 *                       (only OWNENV=1): vfork+execve with it, posix_spawn
 *                       with it, then clearenv(), setenv and fork+execv;
 *                       each child must see OWNENV=1 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"

volatile unsigned long workload_sink = 1;
extern char **environ;

WORKLOAD_BURN(parent_hot, cpu_seconds)
WORKLOAD_BURN(child_hot, cpu_seconds)
WORKLOAD_BURN(chain_hot, cpu_seconds)
WORKLOAD_BURN(after_fail, cpu_seconds)
WORKLOAD_BURN(daemon_hot, cpu_seconds)

/* Exit status of PID, or -1 (printed) when it did not exit normally. */
static int
reap(pid_t pid)
{
	int st;

	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR) {
			perror("waitpid");
			return -1;
		}
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	printf("process %d died of signal %d\n", (int)pid, WTERMSIG(st));
	return -1;
}

static int
mode_fork(char **argv)
{
	int want = atoi(argv[2]), got;
	pid_t pid = fork();

	if (pid < 0)
		return perror("fork"), 1;
	if (pid == 0) {
		child_hot(atof(argv[1]));
		exit(want);
	}
	parent_hot(atof(argv[0]));
	got = reap(pid);
	printf("fork: child exit %d\n", got);
	return got == want ? 0 : 1;
}

static int
mode_forkexec(char **argv)
{
	pid_t pid = fork();
	int got;

	if (pid < 0)
		return perror("fork"), 1;
	if (pid == 0) {
		execv(argv[1], argv + 1);
		_exit(127);
	}
	parent_hot(atof(argv[0]));
	got = reap(pid);
	printf("forkexec: child exit %d\n", got);
	return got == 0 ? 0 : 1;
}

/* Exec SELF ARGV through wrapper number K (of 9). */
static void
exec_with(int k, const char *self, char **av)
{
	int fd;

	switch (k % 9) {
	case 0: execv(self, av); break;
	case 1: execvp(self, av); break;
	case 2: execve(self, av, environ); break;
	case 3: execvpe(self, av, environ); break;
	case 4: execl(self, av[0], av[1], av[2], av[3], av[4], av[5], (char *)NULL); break;
	case 5: execlp(self, av[0], av[1], av[2], av[3], av[4], av[5], (char *)NULL); break;
	case 6:
		execle(self, av[0], av[1], av[2], av[3], av[4], av[5], (char *)NULL, environ);
		break;
	case 7:
		fd = open(self, O_RDONLY | O_CLOEXEC);
		fexecve(fd, av, environ);
		break;
	case 8: execveat(AT_FDCWD, self, av, environ, 0); break;
	}
	perror("exec");
}

static int
mode_chain(char **argv)
{
	int k = atoi(argv[0]);
	char *seconds = argv[3] ? argv[3] : "0.2";
	char self[4096], kbuf[16], arg[32];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n <= 0)
		return perror("readlink"), 1;
	self[n] = '\0';
	chain_hot(atof(seconds));
	if (k == 0) {
		snprintf(arg, sizeof(arg), "exit:%s", argv[1]);
		execl(argv[2], argv[2], arg, "0.1", (char *)NULL);
		return perror("exec static"), 1;
	}
	snprintf(kbuf, sizeof(kbuf), "%d", k - 1);
	char *av[] = { self, "chain", kbuf, argv[1], argv[2], seconds, NULL };
	exec_with(k, self, av);
	return 1;
}

static int
mode_execfail(char **argv)
{
	static char *const av[] = { "no-such-program", NULL };
	const char *missing = "/nonexistent/no-such-program";
	int bad = 0, r;

	errno = 0;
	r = execv(missing, av);
	bad += r != -1 || errno != ENOENT;
	errno = 0;
	r = execvp("no-such-program-in-path", av);
	bad += r != -1 || errno != ENOENT;
	errno = 0;
	r = execl(missing, "x", (char *)NULL);
	bad += r != -1 || errno != ENOENT;
	after_fail(atof(argv[0]));
	printf("execfail: %s\n", bad ? "wrong result or errno" : "ENOENT each time");
	return bad ? 1 : 0;
}

static int
mode_many(char **argv)
{
	int n = atoi(argv[0]), ok = 0;
	size_t mb = (size_t)atoi(argv[1]) << 20;
	char *mem = mmap(NULL, mb, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (mem == MAP_FAILED)
		return perror("mmap"), 1;
	memset(mem, 1, mb); /* makes every fork copy page tables */
	for (int i = 0; i < n; i++) {
		pid_t pid;

		parent_hot(0.005);
		pid = fork();
		if (pid < 0)
			return perror("fork"), 1;
		if (pid == 0)
			_exit(i % 256);
		ok += reap(pid) == i % 256;
	}
	printf("many: %d of %d ok\n", ok, n);
	return ok == n ? 0 : 1;
}

/* Reap PID and print "WHAT: exit N"; 1 when N is not WANT. */
static int
outcome(const char *what, pid_t pid, int want)
{
	int st = reap(pid);

	printf("%s: exit %d\n", what, st);
	return st != want;
}

/* vfork, then (EXEC true) execve ARGV with ENVP or _exit(5) (a child that
 * ends without exec, in our memory); reaped and printed as WHAT. */
static int
vforked(const char *what, bool exec, char **argv, char **envp)
{
	pid_t pid = vfork();

	if (pid < 0)
		return perror("vfork"), 1;
	if (pid == 0) {
		if (exec)
			execve(argv[0], argv, envp);
		_exit(exec ? 127 : 5);
	}
	return outcome(what, pid, exec ? 0 : 5);
}

/* posix_spawn or posix_spawnp (P) ARGV with ENVP, reaped and printed. */
static int
spawned(const char *what, bool p, char **argv, char **envp)
{
	pid_t pid;

	errno = (p ? posix_spawnp : posix_spawn)(&pid, argv[0], NULL, NULL,
						  argv, envp);
	if (errno)
		return perror(what), 1;
	return outcome(what, pid, 0);
}

static int
mode_spawn(char **argv)
{
	int bad = vforked("vfork", true, argv, environ);

	bad += vforked("vfork+_exit", false, argv, environ);
	bad += spawned("posix_spawn", false, argv, environ);
	bad += spawned("posix_spawnp", true, argv, environ);
	return bad ? 1 : 0;
}

static int
mode_daemon(char **argv)
{
	pid_t pid = fork();

	if (pid < 0)
		return perror("fork"), 1;
	if (pid > 0) {
		int st = reap(pid);

		printf("daemon: started (%d)\n", st);
		return st == 0 ? 0 : 1;
	}
	if (setsid() < 0)
		_exit(2);
	pid = fork();
	if (pid != 0)
		_exit(pid < 0 ? 3 : 0);
	if (chdir("/") < 0)
		_exit(4);
	umask(0);
	for (int fd = 0; fd < 1024; fd++)
		close(fd);
	daemon_hot(atof(argv[0]));
	exit(0);
}

static int
mode_ownenv(char **argv)
{
	char *own[] = {"OWNENV=1", NULL};
	int bad = vforked("execve own envp", true, argv, own);
	pid_t pid;

	bad += spawned("posix_spawn own envp", false, argv, own);
	if (clearenv() != 0 || setenv("OWNENV", "1", 1) != 0)
		return perror("clearenv"), 1;
	pid = fork();
	if (pid < 0)
		return perror("fork"), 1;
	if (pid == 0) {
		execv(argv[0], argv);
		_exit(127);
	}
	bad += outcome("clearenv+execv", pid, 0);
	return bad ? 1 : 0;
}

int
main(int argc, char **argv)
{
	static const struct {
		const char *name;
		int nargs;
		int (*fn)(char **);
	} modes[] = {
		{ "fork", 3, mode_fork },	  { "forkexec", 2, mode_forkexec },
		{ "chain", 3, mode_chain },	  { "execfail", 1, mode_execfail },
		{ "many", 2, mode_many },	  { "spawn", 1, mode_spawn },
		{ "daemon", 1, mode_daemon },	  { "ownenv", 1, mode_ownenv },
	};

	setvbuf(stdout, NULL, _IONBF, 0);
	for (size_t i = 0; argc > 1 && i < sizeof(modes) / sizeof(modes[0]); i++)
		if (strcmp(argv[1], modes[i].name) == 0 && argc - 2 >= modes[i].nargs)
			return modes[i].fn(argv + 2);
	fprintf(stderr, "usage: family MODE ARGS (see the source)\n");
	return 2;
}

/* SPDX-License-Identifier: MIT */
/* faults MODE: programs that meet the edges of what the shim touches
 * (tests/e2e_faults.py).  Each prints one line and exits 0 when the
 * program saw what it would see without profrun.
 *
 *   early      (faults-early) linked with libearlyprof.so, whose constructor took SIGPROF
 *              and ITIMER_PROF: its handler must get its ticks
 *   fsize DATA lowers RLIMIT_FSIZE to 64 KiB, closes stderr, opens DATA
 *              (it lands on fd 2), forks a child that writes a line to
 *              it and exits 0
 *   itimer     setitimer and getitimer on ITIMER_PROF with bad arguments:
 *              the kernel's errors, and nothing else changes
 *   pending    blocks SIGPROF, raises it: it must stay pending, and end
 *              the program (exit 155) once unblocked
 *   spawn      prints the signals it starts with ignored or caught and
 *              whether SIGPROF is blocked, then ignores and blocks
 *              SIGPROF and posix_spawns itself as "spawned", which prints
 *              the same of itself
 *   seccomp FORK  installs a seccomp filter that allows only what it
 *              needs and the system calls README's Limits lists for the
 *              shim, spins, then (FORK "fork") forks a child that spins and
 *              ends with _exit(4), and ends with _exit(3): any other
 *              system call kills it with SIGSYS (exit 159)
 *   dlexit HOW dlopens libburnplugin.so (beside it) by path, burns 1 s in
 *              it, then ends by HOW: "_exit" or "kill" (SIGKILL)
 *   stress     threads start and end in a loop, another dlopens and
 *              dlcloses libburnplugin.so in a loop, and after 0.8 s the
 *              main thread takes SIGPROF and ITIMER_PROF for itself while
 *              they run; prints whether its own handler ticked
 *   fill FILE S [T]  spins S seconds of CPU, writes zeros to FILE until
 *              the disk is full, spins T more seconds (S if not given),
 *              and removes FILE
 *   refuse S   installs (prctl) a seccomp filter that refuses openat and
 *              fallocate with EPERM, before its first sample, then
 *              spins S seconds of CPU
 *   coroutine  spins in a coroutine on a 16 KiB stack (makecontext),
 *              then checks sigaltstack() shows none, sets its own and
 *              sees it back
 */
#include <alloca.h>
#include <dlfcn.h>
#include <limits.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <ucontext.h>
#include <unistd.h>

#include "common.h"

volatile unsigned long workload_sink = 1;
#ifdef WITH_EARLYPROF /* the faults-early build: libearlyprof.so's */
extern volatile int earlyprof_ticks;
#else
static volatile int earlyprof_ticks = -1;
#endif

__attribute__((noipa)) void
fault_spin(double seconds)
{
	double start = cpu_seconds();

	while (cpu_seconds() - start < seconds)
		WORKLOAD_BODY(100000UL);
}

static int
mode_early(void)
{
	if (earlyprof_ticks < 0)
		return 2;
	fault_spin(1.0);
	printf("early: %s\n", earlyprof_ticks >= 50 ? "its profiler ticks"
						    : "its profiler starved");
	return 0;
}

static int
mode_fsize(const char *data)
{
	struct rlimit rl = {65536, 65536};
	int status = -1, fd;
	pid_t pid;

	fault_spin(0.2);
	if (setrlimit(RLIMIT_FSIZE, &rl) < 0)
		return 1;
	close(STDERR_FILENO);
	fd = open(data, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd != STDERR_FILENO)
		return 1;
	pid = fork();
	if (pid == 0) {
		fault_spin(0.05);
		if (write(STDERR_FILENO, "child data\n", 11) != 11)
			_exit(1);
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0)
		return 1;
	printf("fsize: child %s\n",
	       WIFEXITED(status) && WEXITSTATUS(status) == 0 ? "exit 0"
							     : "killed");
	return 0;
}

/* The raw system call's answer, as errno. */
static int
kernel_says(int which, const struct itimerval *it)
{
	return syscall(SYS_setitimer, which, it, NULL) < 0 ? errno : 0;
}

static int
mode_itimer(void)
{
	struct itimerval neg = {{0, 0}, {-1, 0}}, big = {{0, 1000000}, {0, 0}};
	int bad = 0, e;

	errno = 0;
	bad += setitimer(ITIMER_PROF, &neg, NULL) != -1 || errno != EINVAL;
	errno = 0;
	bad += setitimer(ITIMER_PROF, &big, NULL) != -1 || errno != EINVAL;
	errno = 0;
	bad += getitimer(ITIMER_PROF, NULL) != -1 || errno != EFAULT;
	e = kernel_says(ITIMER_VIRTUAL, &neg);
	bad += e != EINVAL;
	fault_spin(0.6);
	printf("itimer: %s\n", bad ? "differs from the kernel" : "as the kernel");
	return 0;
}

/* WHO's signals that are not at their default, and SIGPROF's mask bit. */
static void
print_dispositions(const char *who)
{
	struct sigaction sa;
	sigset_t cur;

	printf("%s: not default:", who);
	for (int sig = 1; sig < NSIG; sig++)
		if (sigaction(sig, NULL, &sa) == 0 && sa.sa_handler != SIG_DFL)
			printf(" %d%s", sig, sa.sa_handler == SIG_IGN ? "=ign" : "");
	sigprocmask(SIG_SETMASK, NULL, &cur);
	printf("; SIGPROF %sblocked\n", sigismember(&cur, SIGPROF) ? "" : "not ");
}

static int
mode_pending(void)
{
	sigset_t prof, pend;

	sigemptyset(&prof);
	sigaddset(&prof, SIGPROF);
	pthread_sigmask(SIG_BLOCK, &prof, NULL);
	fault_spin(0.3);
	raise(SIGPROF);
	fault_spin(0.3);
	sigpending(&pend);
	printf("pending: SIGPROF %s\n", sigismember(&pend, SIGPROF) ? "pending" : "gone");
	pthread_sigmask(SIG_UNBLOCK, &prof, NULL);
	printf("pending: survived the unblock\n");
	return 0;
}

static int
mode_spawn(const char *self)
{
	char *argv[] = {(char *)self, "spawned", NULL};
	extern char **environ;
	sigset_t prof;
	int status;
	pid_t pid;

	print_dispositions("parent");
	fault_spin(0.3);
	signal(SIGPROF, SIG_IGN);
	sigemptyset(&prof);
	sigaddset(&prof, SIGPROF);
	sigprocmask(SIG_BLOCK, &prof, NULL);
	if (posix_spawn(&pid, self, NULL, NULL, argv, environ) != 0 ||
	    waitpid(pid, &status, 0) < 0)
		return 1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

/* What the program needs, then the shim's sets (README, Limits): its
 * handler, its exit paths, and a fork child's new member. */
static const int seccomp_allowed[] = {
	SYS_write, SYS_exit_group, SYS_wait4, SYS_clone,
#ifdef SYS_clone3
	SYS_clone3,
#endif
	/* handler */
	SYS_rt_sigreturn, SYS_clock_gettime,
	/* _exit, exit */
	SYS_getpid, SYS_rt_sigaction, SYS_getrusage, SYS_mincore, SYS_madvise,
	SYS_sched_yield,
	/* fork: the child's member */
	SYS_gettid, SYS_openat, SYS_fallocate, SYS_ftruncate, SYS_mmap, SYS_munmap, SYS_close,
	SYS_timer_create, SYS_timer_settime, SYS_rt_sigprocmask, SYS_set_robust_list, SYS_setitimer, SYS_prlimit64,
};

#if defined(__x86_64__)
#define SECCOMP_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define SECCOMP_ARCH AUDIT_ARCH_AARCH64
#elif defined(__riscv)
#define SECCOMP_ARCH AUDIT_ARCH_RISCV64
#endif

static int
install_seccomp(void)
{
	enum { N = sizeof(seccomp_allowed) / sizeof(seccomp_allowed[0]) };
	struct sock_filter f[4 + 2 * N + 1];
	struct sock_fprog prog = {.len = 0, .filter = f};
	unsigned k = 0;

	f[k++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
					      offsetof(struct seccomp_data, arch));
	f[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SECCOMP_ARCH, 1, 0);
	f[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS);
	f[k++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
					      offsetof(struct seccomp_data, nr));
	for (unsigned i = 0; i < N; i++) {
		f[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
						      (unsigned)seccomp_allowed[i], 0, 1);
		f[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	}
	f[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS);
	prog.len = (unsigned short)k;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return -1;
	return (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog);
}

static int
mode_fill(const char *file, double seconds, double after)
{
	static char zeros[65536];
	int fd;

	fault_spin(seconds);
	fd = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0) {
		perror(file);
		return 1;
	}
	while (write(fd, zeros, sizeof(zeros)) > 0)
		;
	close(fd);
	fault_spin(after);
	unlink(file);
	printf("fill: survived a full disk\n");
	return 0;
}

static int
mode_refuse(double seconds)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_openat, 2, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_fallocate, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
	};
	struct sock_fprog prog = {.len = sizeof(f) / sizeof(f[0]), .filter = f};

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) < 0) {
		perror("seccomp");
		return 1;
	}
	fault_spin(seconds);
	printf("refuse: spun under the filter\n");
	return 0;
}

static int
mode_seccomp(const char *how)
{
	int status = -1;
	pid_t pid;

	fault_spin(0.3);
	printf("seccomp: filtered\n");
	if (install_seccomp() < 0) {
		perror("seccomp");
		return 1;
	}
	fault_spin(0.3);
	if (strcmp(how, "fork") == 0) {
		pid = fork();
		if (pid == 0) {
			fault_spin(0.2);
			_exit(4);
		}
		if (pid < 0 || waitpid(pid, &status, 0) < 0)
			_exit(1);
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 4)
			_exit(WIFSIGNALED(status) ? 128 + WTERMSIG(status) : 2);
	}
	_exit(3);
}

static int
mode_dlexit(const char *how)
{
	char path[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 32);
	double (*burn)(double);
	char *slash;
	void *h;

	if (n <= 0)
		return 1;
	path[n] = '\0';
	slash = strrchr(path, '/');
	strcpy(slash + 1, "libburnplugin.so");
	h = dlopen(path, RTLD_NOW);
	if (h == NULL || (*(void **)&burn = dlsym(h, "plugin_burn")) == NULL) {
		fprintf(stderr, "dlexit: %s\n", dlerror());
		return 1;
	}
	burn(1.0);
	printf("dlexit: burnt\n");
	if (strcmp(how, "kill") == 0)
		raise(SIGKILL);
	_exit(0);
}

static volatile int stress_stop, stress_ticks;

static void *
stress_short(void *unused)
{
	(void)unused;
	fault_spin(0.003);
	return NULL;
}

static void *
stress_threads(void *unused)
{
	(void)unused;
	while (!stress_stop) {
		pthread_t t[3];

		for (int i = 0; i < 3; i++)
			pthread_create(&t[i], NULL, stress_short, NULL);
		for (int i = 0; i < 3; i++)
			pthread_join(t[i], NULL);
	}
	return NULL;
}

static void *
stress_dl(void *path)
{
	while (!stress_stop) {
		void *h = dlopen(path, RTLD_NOW);
		double (*burn)(double);

		if (h == NULL)
			return NULL;
		*(void **)&burn = dlsym(h, "plugin_burn");
		if (burn != NULL)
			burn(0.004);
		dlclose(h);
	}
	return NULL;
}

static void
stress_tick(int sig)
{
	(void)sig;
	stress_ticks++;
}

static int
mode_stress(void)
{
	struct itimerval it = {{0, 10000}, {0, 10000}}, off = {{0, 0}, {0, 0}};
	static char path[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 32);
	pthread_t a, b;

	if (n <= 0)
		return 1;
	path[n] = '\0';
	strcpy(strrchr(path, '/') + 1, "libburnplugin.so");
	pthread_create(&a, NULL, stress_threads, NULL);
	pthread_create(&b, NULL, stress_dl, path);
	fault_spin(0.8);
	signal(SIGPROF, stress_tick); /* the rival, while the others run */
	setitimer(ITIMER_PROF, &it, NULL);
	fault_spin(0.5);
	setitimer(ITIMER_PROF, &off, NULL);
	stress_stop = 1;
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	printf("stress: survived, %s\n",
	       stress_ticks > 0 ? "own handler ticked" : "own handler starved");
	return 0;
}

static ucontext_t co_main, co_ctx;

/* The coroutine uses its stack: all but 3 KiB of it, less than a signal
 * frame and a handler need (AT_MINSIGSTKSZ is 3632 bytes on x86-64 with
 * AVX-512, about 12 KiB where AMX is enabled), and enough for the spin. */
__attribute__((noipa)) void
coroutine_body(void)
{
	volatile char *used = alloca(16384 - 3072);

	used[0] = 1;
	fault_spin(1.0);
	used[1] = used[0];
}

static int
mode_coroutine(void)
{
	static char own[65536];
	char *co_stack = mmap(NULL, 4096 + 16384, PROT_READ | PROT_WRITE,
			      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	stack_t cur, mine = {.ss_sp = own, .ss_size = sizeof(own)};
	int ok;

	if (co_stack == MAP_FAILED || mprotect(co_stack, 4096, PROT_NONE) < 0 ||
	    getcontext(&co_ctx) < 0)
		return 1;
	co_ctx.uc_stack.ss_sp = co_stack + 4096; /* a guard page below */
	co_ctx.uc_stack.ss_size = 16384;
	co_ctx.uc_link = &co_main;
	makecontext(&co_ctx, coroutine_body, 0);
	fault_spin(0.01); /* its calls bound (lazy binding saves the FPU on the stack) */
	if (swapcontext(&co_main, &co_ctx) < 0)
		return 1;
	ok = sigaltstack(NULL, &cur) == 0 && cur.ss_flags == SS_DISABLE &&
	     cur.ss_sp == NULL && cur.ss_size == 0;
	ok = ok && sigaltstack(&mine, NULL) == 0 &&
	     sigaltstack(NULL, &cur) == 0 && cur.ss_sp == own &&
	     cur.ss_size == sizeof(own) && cur.ss_flags == 0;
	fault_spin(0.2);
	printf("coroutine: survived; sigaltstack %s\n",
	       ok ? "as the kernel" : "differs");
	return 0;
}

int
main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (strcmp(mode, "early") == 0)
		return mode_early();
	if (strcmp(mode, "fsize") == 0 && argc > 2)
		return mode_fsize(argv[2]);
	if (strcmp(mode, "itimer") == 0)
		return mode_itimer();
	if (strcmp(mode, "pending") == 0)
		return mode_pending();
	if (strcmp(mode, "spawn") == 0)
		return mode_spawn(argv[0]);
	if (strcmp(mode, "seccomp") == 0 && argc > 2)
		return mode_seccomp(argv[2]);
	if (strcmp(mode, "fill") == 0 && argc > 3)
		return mode_fill(argv[2], atof(argv[3]),
				 atof(argv[argc > 4 ? 4 : 3]));
	if (strcmp(mode, "refuse") == 0 && argc > 2)
		return mode_refuse(atof(argv[2]));
	if (strcmp(mode, "dlexit") == 0 && argc > 2)
		return mode_dlexit(argv[2]);
	if (strcmp(mode, "stress") == 0)
		return mode_stress();
	if (strcmp(mode, "coroutine") == 0)
		return mode_coroutine();
	if (strcmp(mode, "spawned") == 0) {
		print_dispositions("child");
		return 0;
	}
	fprintf(stderr, "faults: unknown mode '%s'\n", mode);
	return 2;
}

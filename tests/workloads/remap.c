/* SPDX-License-Identifier: MIT */
/* Maps its own code a second time, from its own file at the offset of
 * remap_burn(), as node maps its embedded builtins again, and spends its
 * CPU time at random between the function where the loader put it and
 * its copy.  Prints the CPU seconds spent in the copy, and in all.  With
 * "jit", the copy is made as a JIT compiler makes code: its bytes copied
 * into anonymous memory made executable; with "jit-map", a perf map
 * (/tmp/perf-PID.map) names it "jitted_burn", as runtimes do for perf.
 *
 *   remap SECONDS [file|jit|jit-map] */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common.h"

typedef unsigned long (*burn_fn)(unsigned long, unsigned long);

/* No memory reference and no call: the copy runs anywhere. */
__attribute__((noinline)) unsigned long
remap_burn(unsigned long x, unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		x = x * 6364136223846793005UL + 1442695040888963407UL;
	return x;
}

/* The file offset of ADDR in this executable, from /proc/self/maps. */
static long
file_offset(uintptr_t addr)
{
	unsigned long lo, hi, off;
	char line[512], perms[8];
	FILE *f = fopen("/proc/self/maps", "r");
	long ret = -1;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "%lx-%lx %7s %lx", &lo, &hi, perms, &off) ==
			    4 &&
		    addr >= lo && addr < hi)
			ret = (long)(addr - lo + off);
	if (f)
		fclose(f);
	return ret;
}

/* The copy of the page holding remap_burn mapped from the file again;
 * remap_burn's place in it. */
static char *
copy_from_file(long off)
{
	long page = off & ~4095L;
	int fd = open("/proc/self/exe", O_RDONLY);
	char *p;

	if (off < 0 || fd < 0)
		return NULL;
	p = mmap(NULL, 8192, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, page);
	close(fd);
	return p == MAP_FAILED ? NULL : p + (off - page);
}

/* A copy of remap_burn's bytes (and what follows, 4 KiB) in anonymous
 * memory made executable; named in /tmp/perf-PID.map when MAP. */
static char *
copy_as_jit(bool map)
{
	char *p = mmap(NULL, 8192, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char path[64];
	FILE *f;

	if (p == MAP_FAILED)
		return NULL;
	memcpy(p + 64, (const void *)remap_burn, 4096);
	if (mprotect(p, 8192, PROT_READ | PROT_EXEC) < 0)
		return NULL;
	if (map) {
		snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
		f = fopen(path, "w");
		if (!f)
			return NULL;
		fprintf(f, "%lx 40 stub\n%lx 1000 jitted_burn\n",
			(unsigned long)p, (unsigned long)(p + 64));
		fclose(f);
	}
	return p + 64;
}

int
main(int argc, char **argv)
{
	double seconds = arg_double(argc, argv, 1, 1.0), copy = 0, t;
	const char *how = argc > 2 ? argv[2] : "file";
	burn_fn fns[2] = {remap_burn, NULL};
	unsigned long x = 1, w[2] = {1, 1};
	char *p;

	if (strcmp(how, "file") == 0)
		p = copy_from_file(file_offset((uintptr_t)remap_burn));
	else
		p = copy_as_jit(strcmp(how, "jit-map") == 0);
	if (p == NULL)
		return 1;
	fns[1] = (burn_fn)(void *)p;
	while (cpu_seconds() < seconds) {
		size_t k = workload_pick(w, 2);

		t = cpu_seconds();
		x = fns[k](x, workload_chunk(2000000));
		if (k == 1)
			copy += cpu_seconds() - t;
	}
	printf("copy %.3f total %.3f (%lu)\n", copy, cpu_seconds(), x & 1);
	return 0;
}

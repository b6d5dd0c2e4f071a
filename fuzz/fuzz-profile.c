/* SPDX-License-Identifier: MIT */
/*
 * Harness: the member file reader on any bytes, twice: in memory
 * (profile_parse in cli/profile/member.c), and as a file (profile_read) of
 * the size its header claims, the input at its start and holes after it,
 * so that a member claiming far more than it holds is read as the CLI
 * reads one.  Besides memory errors it checks what the report relies on:
 * an accepted member has its samples inside the text range, sorted,
 * non-zero and adding up to its main count; a refusal says why; and
 * reading a file costs memory in proportion to what it holds, not to what
 * it claims: no allocation above ALLOC_CAP (every allocation of the
 * reader goes through the capped allocator below, linked with --wrap),
 * and the resident memory grows by at most RSS_CAP while it is read.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "profile.h"
#include "fuzz.h"

#define ALLOC_CAP  (64u << 20)	 /* the largest block the reader may ask */
#define RSS_CAP	   (64ull << 20) /* growth of the resident set per input */
#define SPARSE_MAX (64ull << 30) /* the largest claimed size made a file */

/* The capped allocator: the reader's requests, refused above the cap
 * with a crash the fuzzer reports (-Wl,--wrap=malloc,...). */
void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t n);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *p, size_t n);

void *
__wrap_malloc(size_t n)
{
	fuzz_assert(n <= ALLOC_CAP, "allocation above the cap");
	return __real_malloc(n);
}

void *
__wrap_calloc(size_t n, size_t size)
{
	fuzz_assert(size == 0 || n <= ALLOC_CAP / size,
		    "allocation above the cap");
	return __real_calloc(n, size);
}

void *
__wrap_realloc(void *p, size_t n)
{
	fuzz_assert(n <= ALLOC_CAP, "allocation above the cap");
	return __real_realloc(p, n);
}

static void
check_accepted(const struct profile *p)
{
	const struct profrun_header *h = &p->hdr;
	uint64_t sum = 0;
	size_t i;

	fuzz_assert(p->exe != NULL, "no executable string");
	fuzz_assert(p->note == NULL || p->note[0] != '\0', "empty note kept");
	fuzz_assert(strlen(p->build_id) == 2 * h->build_id_len,
		    "build-id length");
	for (i = 0; i < p->nsamples; i++) {
		const struct profile_sample *s = &p->samples[i];

		fuzz_assert(s->count > 0, "sample with no count");
		fuzz_assert(s->addr >= h->text_start && s->addr < h->text_end,
			    "sample outside the text range");
		fuzz_assert(i == 0 || s->addr > p->samples[i - 1].addr,
			    "samples not sorted by address");
		fuzz_assert(sum + s->count >= sum, "sample counts overflow");
		sum += s->count;
	}
	fuzz_assert(sum == p->main, "samples do not add up to main");
	(void)profile_cpu_seconds(p);
	(void)profile_armed_hz(p);
	(void)profile_state_text(p);
}

/* Every committed stack handed out stays inside its slot. */
static int
check_stack(void *ctx, const struct profile_stack *s)
{
	const struct profile *p = ctx;

	fuzz_assert(s->size <= p->stacks.stack_max, "stack larger than a slot");
	fuzz_assert(s->count > 0, "stack with no count");
	if (s->size > 0)
		fuzz_assert(s->data[0] == s->data[0] &&
				    s->data[s->size - 1] ==
					    s->data[s->size - 1],
			    "stack bytes");
	return 0;
}

/* P (accepted) checked, its stacks walked, and freed. */
static void
check_and_free(struct profile *p)
{
	char err[256];

	check_accepted(p);
	if (p->has_stacks)
		fuzz_assert(profile_stacks_each(p, check_stack, p, err,
						sizeof(err)) == 0,
			    "stacks of a parsed profile unreadable");
	profile_fini(p);
}

/* The peak of the resident set (VmHWM) in bytes, after resetting it to
 * the current size when RESET; 0 when the kernel does not say. */
static unsigned long long
peak_rss(int reset)
{
	char line[128];
	unsigned long long kib = 0;
	FILE *f;
	int fd;

	if (reset) {
		fd = open("/proc/self/clear_refs", O_WRONLY | O_CLOEXEC);
		if (fd < 0 || write(fd, "5", 1) != 1) {
			if (fd >= 0)
				close(fd);
			return 0;
		}
		close(fd);
	}
	f = fopen("/proc/self/status", "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmHWM: %llu kB", &kib) == 1)
			break;
	fclose(f);
	return kib * 1024;
}

/* The member file the input is written to, made once. */
static const char *
member_path(void)
{
	static char path[64];
	int fd;

	if (path[0])
		return path;
	/* in memory where there is a tmpfs: a disk's writes would be most
	 * of the time of a run */
	snprintf(path, sizeof(path), "%s/fuzz-profile-%d.prof",
		 access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp",
		 (int)getpid());
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	fuzz_assert(fd >= 0, "no temporary file");
	close(fd);
	return path;
}

static void
remove_member(void)
{
	unlink(member_path());
}

/* The input as the start of a file of the size its header claims (when
 * more, and at most SPARSE_MAX): what it does not hold are holes. */
static void
write_sparse(const uint8_t *data, size_t size)
{
	static int registered;
	uint64_t claimed = 0;
	int fd = open(member_path(), O_WRONLY | O_TRUNC | O_CLOEXEC);

	fuzz_assert(fd >= 0, "temporary file lost");
	if (!registered++)
		atexit(remove_member);
	fuzz_assert(size == 0 || pwrite(fd, data, size, 0) == (ssize_t)size,
		    "temporary file not written");
	if (size >= 24)
		memcpy(&claimed, data + 16, sizeof(claimed)); /* file_size */
	if (claimed > size && claimed <= SPARSE_MAX)
		(void)ftruncate(fd, (off_t)claimed);
	close(fd);
}

static void
read_sparse(const uint8_t *data, size_t size)
{
	struct profile p;
	char err[256];
	unsigned long long before, after;

	write_sparse(data, size);
	before = peak_rss(1);
	err[0] = '\0';
	if (profile_read(member_path(), &p, err, sizeof(err)) == 0)
		check_and_free(&p);
	else
		fuzz_assert(err[0] != '\0', "refused without a reason");
	profile_read_release();
	after = peak_rss(0);
	if (before > 0 && after > before + RSS_CAP)
		fprintf(stderr,
			"fuzz: reading grew the resident set %llu MiB\n",
			(after - before) >> 20);
	fuzz_assert(before == 0 || after <= before + RSS_CAP,
		    "reading a member took memory out of proportion to it");
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct profile p;
	char err[256];

	err[0] = '\0';
	if (profile_parse(data, size, &p, err, sizeof(err)) == 0)
		check_and_free(&p);
	else
		fuzz_assert(err[0] != '\0', "refused without a reason");
	read_sparse(data, size);
	return 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * The main executable: its executable text (all PF_X PT_LOAD segments, PIE
 * or not), the histogram geometry that covers it, its GNU build-id read from
 * the PT_NOTE segments in memory, and its absolute path.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <link.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#include "shim.h"
#include "member/member.h"
#include "sys.h"

/* Smallest power-of-two bucket size (>= 2) with at most MAX buckets.
 * Async-signal-safe. */
int
target_size_buckets(struct target *t, uint64_t lo, uint64_t hi,
		    uint64_t max_buckets)
{
	uint64_t bs = 2;

	if (hi <= lo || max_buckets == 0)
		return -EINVAL;
	for (; bs <= 131072; bs *= 2) {
		uint64_t start = lo & ~(bs - 1);
		uint64_t n = (hi - start + bs - 1) / bs;

		if (n <= max_buckets) {
			t->text_start = start;
			t->text_end = start + n * bs;
			t->nbuckets = n;
			t->bucket_size = (uint32_t)bs;
			t->scale = (uint32_t)(131072 / bs);
			return 0;
		}
	}
	return -E2BIG;
}

/* Pure, async-signal-safe. */
uint32_t
target_note_build_id(const uint8_t *p, const uint8_t *end, size_t align,
		     uint8_t *out)
{
	while (p + sizeof(ElfW(Nhdr)) <= end) {
		const ElfW(Nhdr) *n = (const ElfW(Nhdr) *)p;
		size_t namesz = (n->n_namesz + align - 1) & ~(align - 1);
		size_t descsz = (n->n_descsz + align - 1) & ~(align - 1);
		const uint8_t *name = p + sizeof(*n);
		const uint8_t *desc = name + namesz;

		if (desc + descsz > end || desc < name)
			return 0;
		if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 &&
		    memcmp(name, "GNU", 4) == 0 &&
		    n->n_descsz <= PROFRUN_BUILD_ID_MAX) {
			memcpy(out, desc, n->n_descsz);
			return n->n_descsz;
		}
		p = desc + descsz;
	}
	return 0;
}

/* Async-signal-safe. */
bool
target_describe_object(const struct dl_phdr_info *info, uint64_t *lo,
		       uint64_t *hi, uint8_t *build_id, uint32_t *build_id_len)
{
	*lo = UINT64_MAX;
	*hi = 0;
	*build_id_len = 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		const uint8_t *mem =
			(const uint8_t *)(info->dlpi_addr + ph->p_vaddr);

		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
			if (ph->p_vaddr < *lo)
				*lo = ph->p_vaddr;
			if (ph->p_vaddr + ph->p_memsz > *hi)
				*hi = ph->p_vaddr + ph->p_memsz;
		} else if (ph->p_type == PT_NOTE && *build_id_len == 0) {
			*build_id_len = target_note_build_id(
				mem, mem + ph->p_memsz,
				ph->p_align == 8 ? 8 : 4, build_id);
		}
	}
	return *hi > *lo;
}

struct phdr_scan {
	struct target *t;
	uint64_t lo, hi;
	int found;
};

/* dl_iterate_phdr callback: the first object is the main executable.
 * Not async-signal-safe. */
static int
on_object(struct dl_phdr_info *info, size_t size, void *data)
{
	struct phdr_scan *s = data;

	s->found = 1;
	s->t->load_bias = info->dlpi_addr;
	target_describe_object(info, &s->lo, &s->hi, s->t->build_id,
			       &s->t->build_id_len);
	return 1; /* stop after the main executable */
}

/* Absolute path of the executable into T->exe.  Not async-signal-safe. */
static int
find_exe_path(struct target *t)
{
	ssize_t n = sys_readlink("/proc/self/exe", t->exe, sizeof(t->exe) - 1);
	const char *fn;

	if (n > 0) {
		t->exe[n] = '\0';
		return 0;
	}
	fn = (const char *)getauxval(AT_EXECFN);
	if (fn == NULL)
		return -ENOENT;
	return writer_absolute(fn, t->exe, sizeof(t->exe));
}

/* Not async-signal-safe (dl_iterate_phdr, readlink). */
int
target_find(struct target *t)
{
	struct phdr_scan s = {.t = t};
	int r;

	memset(t, 0, sizeof(*t));
	dl_iterate_phdr(on_object, &s);
	if (!s.found || s.hi <= s.lo)
		return -ENOEXEC;
	r = target_size_buckets(t, s.lo, s.hi, PROFRUN_MAX_BUCKETS);
	if (r < 0)
		return r;
	return find_exe_path(t);
}

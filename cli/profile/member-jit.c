/* SPDX-License-Identifier: MIT */
/*
 * Code no object file holds (struct profrun_jit, region kind
 * PROFRUN_REGION_JIT, found only through the region list): the ranges of
 * executable memory a runtime compiled code into, and what the shim says
 * of the copies of its perf map and jitdump beside the member
 * ("<member>.map", "<member>.jitdump"), which are read here too, no
 * larger than the member says they are.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "file.h"
#include "profile.h"

/* Far above PROFRUN_JIT_RANGES, the shim's own. */
#define PROFILE_MAX_JIT_RANGES (1u << 16)

static int
parse_record(const uint8_t *rec, uint64_t size, struct profile *p, char *err,
	     size_t errlen)
{
	struct profrun_jit j;

	memcpy(&j, rec, sizeof(j));
	if (j.range_slots == 0 && j.flags == 0)
		return 0; /* left untouched: no such code */
	if (j.range_slots > PROFILE_MAX_JIT_RANGES ||
	    j.range_count > j.range_slots ||
	    size < sizeof(j) + (uint64_t)j.range_slots *
				       sizeof(struct profrun_jit_range) ||
	    j.map_size > PROFRUN_JIT_COPY_MAX ||
	    j.dump_size > PROFRUN_JIT_COPY_MAX)
		return profile_fail(err, errlen, "bad JIT code record");
	p->jit_ranges = malloc((j.range_count ? j.range_count : 1) *
			       sizeof(*p->jit_ranges));
	if (!p->jit_ranges)
		return profile_fail(err, errlen, "out of memory");
	memcpy(p->jit_ranges, rec + sizeof(j),
	       j.range_count * sizeof(*p->jit_ranges));
	p->njit_ranges = j.range_count;
	p->jit_flags = j.flags;
	p->jit_map_size = j.flags & PROFRUN_JIT_MAP ? j.map_size : 0;
	p->jit_dump_size = j.flags & PROFRUN_JIT_DUMP ? j.dump_size : 0;
	return 0;
}

int
profile_parse_jit(const uint8_t *buf, size_t avail, struct profile *p,
		  char *err, size_t errlen)
{
	struct profrun_region e;
	bool later;

	if (!profile_find_region(buf, &p->hdr, PROFRUN_REGION_JIT, &e) ||
	    e.version != 1)
		return 0; /* none, or a layout of a newer writer */
	if (profile_region_later(&e, sizeof(struct profrun_jit),
				 2ull * PROFILE_MAX_JIT_RANGES, avail,
				 "JIT code record", &p->jit_off, &p->jit_size,
				 &later, err, errlen))
		return -1;
	if (later)
		return 0; /* read later, from the file */
	return parse_record(buf + e.off, e.size, p, err, errlen);
}

int
profile_jit_load(int fd, struct profile *p, char *err, size_t errlen)
{
	return profile_region_load(fd, &p->jit_off, &p->jit_size,
				   "JIT code record", parse_record, p, err,
				   errlen);
}

bool
profile_in_jit(const struct profile *p, uint64_t pc)
{
	for (size_t i = 0; i < p->njit_ranges; i++)
		if (pc >= p->jit_ranges[i].start && pc < p->jit_ranges[i].end)
			return true;
	return false;
}

int
profile_jit_copy(const struct profile *p, const char *suffix, uint64_t size,
		 uint8_t **out, char *err, size_t errlen)
{
	struct stat st;
	char *path;
	uint8_t *buf = NULL;
	int fd, ret = -1;

	*out = NULL;
	if (size == 0 || !p->path)
		return 0;
	if (asprintf(&path, "%s%s", p->path, suffix) < 0)
		return profile_fail(err, errlen, "out of memory");
	fd = open(path,
		  O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW | O_NOCTTY);
	if (fd < 0) {
		profile_fail(err, errlen, "%s: %s", path, strerror(errno));
	} else if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
		   (uint64_t)st.st_size != size) {
		profile_fail(err, errlen,
			     "%s: not the copy the profile made (%llu bytes)",
			     path, (unsigned long long)size);
	} else if (!(buf = malloc(size))) {
		profile_fail(err, errlen, "out of memory");
	} else if (profile_pread_all(fd, buf, size, 0)) {
		profile_fail(err, errlen, "%s: read error", path);
	} else {
		cli_input_note(&st);
		*out = buf;
		buf = NULL;
		ret = 0;
	}
	if (fd >= 0)
		close(fd);
	free(buf);
	free(path);
	return ret;
}

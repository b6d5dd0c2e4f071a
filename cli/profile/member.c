/* SPDX-License-Identifier: MIT */
/*
 * Reader of profrun member files.  Every field of a file is treated as
 * hostile: the layout is checked against the real file size before
 * anything is allocated, and every offset, size and key is bounds-checked.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "array.h"
#include "cli.h"
#include "file.h"
#include "hex.h"
#include "intern.h"
#include "profile.h"

int
profile_fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

static const char profrun_magic[PROFRUN_MAGIC_LEN] = PROFRUN_MAGIC;

/* Identification: magic, versions, header size and file size. */
static int
check_ident(const uint8_t *buf, uint64_t size, struct profrun_header *h,
	    char *err, size_t errlen)
{
	size_t n = size < PROFRUN_MAGIC_LEN ? size : PROFRUN_MAGIC_LEN;

	if (size == 0)
		return profile_fail(err, errlen, "empty file");
	if (memcmp(buf, profrun_magic, n) != 0)
		return profile_fail(err, errlen,
				    "not a profrun profile (bad magic)");
	if (size < PROFRUN_HEADER_SIZE)
		return profile_fail(
			err, errlen,
			"truncated (file is %llu bytes, a header needs %u)",
			(unsigned long long)size, PROFRUN_HEADER_SIZE);
	memcpy(h, buf, sizeof(*h));
	if (h->min_version > PROFRUN_VERSION)
		return profile_fail(
			err, errlen,
			"written by a newer profrun (format %u, this reads %u)",
			h->version > h->min_version ? h->version
						    : h->min_version,
			PROFRUN_VERSION);
	if (h->version == 0 || h->min_version == 0 ||
	    h->min_version > h->version)
		return profile_fail(err, errlen,
				    "bad format version %u (minimum %u)",
				    h->version, h->min_version);
	if (h->header_size < PROFRUN_HEADER_SIZE || h->header_size % 8 != 0)
		return profile_fail(err, errlen, "bad header size %u",
				    h->header_size);
	if (h->file_size > size)
		return profile_fail(
			err, errlen,
			"truncated (file is %llu bytes, header says %llu)",
			(unsigned long long)size,
			(unsigned long long)h->file_size);
	if (h->file_size != size)
		return profile_fail(
			err, errlen,
			"size mismatch (file is %llu bytes, header says %llu)",
			(unsigned long long)size,
			(unsigned long long)h->file_size);
	if (h->header_size > size)
		return profile_fail(err, errlen,
				    "header size %u beyond the file",
				    h->header_size);
	return 0;
}

static int
check_buckets(const struct profrun_header *h, char *err, size_t errlen)
{
	uint64_t span, cover;
	uint32_t bs = h->bucket_size;

	if (h->nbuckets == 0 || h->nbuckets > PROFRUN_MAX_BUCKETS)
		return profile_fail(
			err, errlen,
			"bad histogram size (%llu buckets, at most %u)",
			(unsigned long long)h->nbuckets, PROFRUN_MAX_BUCKETS);
	if (bs < 2 || bs > 131072 || (bs & (bs - 1)) != 0)
		return profile_fail(
			err, errlen,
			"bad bucket size %u (not a power of two >= 2)", bs);
	if (h->scale != 131072u / bs)
		return profile_fail(
			err, errlen,
			"profil scale %u does not match bucket size %u",
			h->scale, bs);
	cover = h->nbuckets * bs;
	span = h->text_end - h->text_start;
	if (h->text_end <= h->text_start ||
	    h->text_start > UINT64_MAX - cover || span > cover ||
	    cover - span >= bs)
		return profile_fail(
			err, errlen,
			"text range 0x%llx-0x%llx does not match %llu buckets of %u bytes",
			(unsigned long long)h->text_start,
			(unsigned long long)h->text_end,
			(unsigned long long)h->nbuckets, bs);
	return 0;
}

/* The regions the header places, into R (at least 9); returns how many. */
static size_t
header_regions(const struct profrun_header *h, struct region *r)
{
	size_t n = 3;

	r[0] = (struct region){"string area", h->strings_off, h->strings_size};
	r[1] = (struct region){"wrap table", h->wraps_off,
			       (uint64_t)h->wrap_slots *
				       sizeof(struct profrun_wrap)};
	r[2] = (struct region){"histogram", h->hist_off, h->nbuckets * 2};
	n += profile_outside_regions(h, r + n);
	n += profile_thread_regions(h, r + n);
	n += profile_region_list_regions(h, r + n);
	return n;
}

/* Of a header check_regions accepted. */
uint64_t
profile_known_end(const struct profrun_header *h)
{
	struct region r[9];
	size_t n = header_regions(h, r);
	uint64_t end = h->header_size;

	for (size_t i = 0; i < n; i++)
		if (r[i].size > 0 && r[i].off + r[i].size > end)
			end = r[i].off + r[i].size;
	return end;
}

static int
check_regions(const struct profrun_header *h, char *err, size_t errlen)
{
	struct region r[9];
	size_t i, j, n = header_regions(h, r);

	if (h->strings_size > PROFILE_MAX_STRINGS)
		return profile_fail(err, errlen,
				    "string area of %u bytes (at most %u)",
				    h->strings_size, PROFILE_MAX_STRINGS);
	if (h->wrap_slots > PROFILE_MAX_WRAP_SLOTS)
		return profile_fail(err, errlen,
				    "wrap table of %u slots (at most %u)",
				    h->wrap_slots, PROFILE_MAX_WRAP_SLOTS);
	for (i = 0; i < n; i++) {
		if (r[i].off < h->header_size || r[i].size > h->file_size ||
		    r[i].off > h->file_size - r[i].size)
			return profile_fail(
				err, errlen,
				"%s (offset %llu, %llu bytes) out of range",
				r[i].what, (unsigned long long)r[i].off,
				(unsigned long long)r[i].size);
	}
	for (i = 0; i < n; i++) {
		for (j = i + 1; j < n; j++) {
			if (r[i].size == 0 || r[j].size == 0)
				continue;
			if (r[i].off < r[j].off + r[j].size &&
			    r[j].off < r[i].off + r[i].size)
				return profile_fail(err, errlen,
						    "%s overlaps %s", r[i].what,
						    r[j].what);
		}
	}
	return 0;
}

/* The string at file offset OFF, which must lie in the string area and be
 * NUL-terminated inside it (exe_off and note_off are file offsets, so 0
 * can mean "none"). */
static int
get_string(const uint8_t *buf, const struct profrun_header *h, uint32_t off,
	   const char *what, char **out, char *err, size_t errlen)
{
	uint64_t end = h->strings_off + h->strings_size;
	const char *s;

	if (off < h->strings_off || off >= end)
		return profile_fail(err, errlen,
				    "%s string at %u outside the string area",
				    what, off);
	s = (const char *)buf + off;
	if (!memchr(s, '\0', end - off))
		return profile_fail(err, errlen, "%s string not terminated",
				    what);
	*out = strdup(s);
	if (!*out)
		return profile_fail(err, errlen, "out of memory");
	return 0;
}

static int
read_strings(const uint8_t *buf, struct profile *p, char *err, size_t errlen)
{
	const struct profrun_header *h = &p->hdr;

	if (h->build_id_len > PROFRUN_BUILD_ID_MAX)
		return profile_fail(err, errlen,
				    "build-id length %u exceeds %u",
				    h->build_id_len, PROFRUN_BUILD_ID_MAX);
	hex_format(p->build_id, h->build_id, h->build_id_len);
	if (get_string(buf, h, h->exe_off, "executable", &p->exe, err, errlen))
		return -1;
	if (h->note_off == 0)
		return 0;
	if (get_string(buf, h, h->note_off, "note", &p->note, err, errlen))
		return -1;
	if (p->note[0] == '\0') {
		free(p->note);
		p->note = NULL;
	}
	return 0;
}

struct wrap_entry {
	uint64_t index;
	uint64_t wraps;
};

static int
cmp_wrap(const void *a, const void *b)
{
	const struct wrap_entry *x = a, *y = b;

	return (x->index > y->index) - (x->index < y->index);
}

/* The used wrap slots, validated and sorted by bucket index. */
static int
read_wraps(const uint8_t *buf, const struct profrun_header *h,
	   struct wrap_entry **out, size_t *nout, char *err, size_t errlen)
{
	struct wrap_entry *w;
	struct profrun_wrap slot;
	size_t n = 0;
	uint32_t i;

	/* not cleared: the table is mostly empty */
	w = malloc((h->wrap_slots ? h->wrap_slots : 1) * sizeof(*w));
	if (!w)
		return profile_fail(err, errlen, "out of memory");
	for (i = 0; i < h->wrap_slots; i++) {
		memcpy(&slot, buf + h->wraps_off + (uint64_t)i * sizeof(slot),
		       sizeof(slot));
		if (slot.key == 0)
			continue;
		if (slot.key > h->nbuckets ||
		    slot.wraps >= PLAUSIBLE_SAMPLES >> 16) {
			free(w);
			return profile_fail(
				err, errlen,
				"wrap slot %u is bad (bucket %llu of %llu, %llu wraps)",
				i, (unsigned long long)slot.key - 1,
				(unsigned long long)h->nbuckets,
				(unsigned long long)slot.wraps);
		}
		w[n].index = slot.key - 1;
		w[n++].wraps = slot.wraps;
	}
	qsort(w, n, sizeof(*w), cmp_wrap);
	*out = w;
	*nout = n;
	return 0;
}

static int
add_sample(struct profile *p, size_t *cap, uint64_t index, uint64_t count)
{
	if (ARRAY_GROW(p->samples, *cap, p->nsamples, 256))
		return -1;
	p->samples[p->nsamples].addr = profrun_bucket_addr(&p->hdr, index);
	p->samples[p->nsamples++].count = count;
	p->main += count;
	return 0;
}

/* No more room than the samples need: a member keeps what it holds. */
static int
shrink_samples(struct profile *p, char *err, size_t errlen)
{
	struct profile_sample *t;

	if (p->nsamples == 0) {
		free(p->samples);
		p->samples = NULL;
		return 0;
	}
	t = realloc(p->samples, p->nsamples * sizeof(*t));
	if (!t)
		return profile_fail(err, errlen, "out of memory");
	p->samples = t;
	return 0;
}

/* Where the histogram may hold counts: its buckets in the data extents
 * of the file (all of them when X is NULL). */
struct scan {
	const struct profile_extents *x;
	size_t e; /* the first extent not wholly before the bucket looked at */
	uint64_t hist_off, nbuckets;
};

/* The first bucket >= I in a data extent, or nbuckets. */
static uint64_t
next_data(struct scan *s, uint64_t i)
{
	if (s->x == NULL)
		return i;
	for (; s->e < s->x->n; s->e++) {
		const struct profile_extent *v = &s->x->v[s->e];
		uint64_t at = s->hist_off + 2 * i, b;

		if (v->end <= at)
			continue;
		if (v->off <= at)
			return i;
		b = (v->off - s->hist_off) / 2;
		return b < s->nbuckets ? b : s->nbuckets;
	}
	return s->nbuckets;
}

#define ZERO_RUN 32u /* buckets checked at once: 64 bytes */

/* True when the ZERO_RUN buckets from I are all zero. */
static bool
zero_run(const uint8_t *hist, uint64_t i)
{
	uint64_t q[ZERO_RUN / 4], any = 0;

	memcpy(q, hist + 2 * i, sizeof(q));
	for (size_t j = 0; j < ZERO_RUN / 4; j++)
		any |= q[j];
	return any == 0;
}

/* Exact count of bucket I: hist[i] + 65536 * wraps(i), consuming its
 * wrap entries from W[*K]. */
static uint64_t
bucket_count(const uint8_t *hist, uint64_t i, const struct wrap_entry *w,
	     size_t nw, size_t *k)
{
	uint16_t v;
	uint64_t count;

	memcpy(&v, hist + 2 * i, sizeof(v));
	count = v;
	/* duplicate keys (racing writers) add up */
	for (; *k < nw && w[*k].index == i; (*k)++) {
		count += w[*k].wraps << 16;
		if (count >= PLAUSIBLE_SAMPLES)
			break;
	}
	return count;
}

/* Exact count of every bucket that has samples, looking only where the
 * data extents X (NULL: everywhere) and the wrap entries W say there can
 * be some: report time follows the data, not the size of the text. */
static int
read_counts(const uint8_t *buf, struct profile *p, const struct wrap_entry *w,
	    size_t nw, const struct profile_extents *x, char *err,
	    size_t errlen)
{
	const struct profrun_header *h = &p->hdr;
	const uint8_t *hist = buf + h->hist_off;
	struct scan s = {x, 0, h->hist_off, h->nbuckets};
	size_t cap = 0, k = 0;
	uint64_t i = 0, count, d, wi;

	while (i < h->nbuckets) {
		d = next_data(&s, i);
		wi = k < nw ? w[k].index : h->nbuckets;
		/* a hole, up to data or a wrap (a wrap in the hole counts) */
		if (d > i && wi > i) {
			i = d < wi ? d : wi;
			continue;
		}
		if (i % ZERO_RUN == 0 && i + ZERO_RUN <= h->nbuckets &&
		    wi >= i + ZERO_RUN && zero_run(hist, i)) {
			i += ZERO_RUN;
			continue;
		}
		count = bucket_count(hist, i, w, nw, &k);
		if (count >= PLAUSIBLE_SAMPLES ||
		    p->main >= PLAUSIBLE_SAMPLES - count)
			return profile_fail(err, errlen,
					    "implausible sample counts");
		if (count > 0 && add_sample(p, &cap, i, count))
			return profile_fail(err, errlen, "out of memory");
		i++;
	}
	return shrink_samples(p, err, errlen);
}

/* profile_parse of a member of SIZE bytes of which the first AVAIL are in
 * BUF: at least up to profile_known_end (the stack area may stay in the
 * file). */
static int
parse_image(const uint8_t *buf, size_t avail, uint64_t size,
	    const struct profile_extents *x, struct profile *p, char *err,
	    size_t errlen)
{
	struct wrap_entry *w = NULL;
	size_t nw = 0;
	int ret;

	memset(p, 0, sizeof(*p));
	if (check_ident(buf, size, &p->hdr, err, errlen) ||
	    check_buckets(&p->hdr, err, errlen) ||
	    check_regions(&p->hdr, err, errlen))
		goto fail;
	if (profile_known_end(&p->hdr) > avail) {
		profile_fail(err, errlen, "truncated");
		goto fail;
	}
	if (profile_check_region_list(buf, avail, p, err, errlen) ||
	    read_strings(buf, p, err, errlen) ||
	    read_wraps(buf, &p->hdr, &w, &nw, err, errlen))
		goto fail;
	ret = read_counts(buf, p, w, nw, x, err, errlen);
	free(w);
	if (ret)
		goto fail;
	p->outside = p->hdr.samples_outside;
	if (p->outside >= PLAUSIBLE_SAMPLES) {
		profile_fail(err, errlen, "implausible sample counts");
		goto fail;
	}
	if (profile_parse_outside(buf, p, err, errlen) ||
	    profile_parse_threads(buf, p, err, errlen) ||
	    profile_parse_pause(buf, avail, p, err, errlen) ||
	    profile_parse_log(buf, avail, p, err, errlen) ||
	    profile_parse_jit(buf, avail, p, err, errlen) ||
	    profile_parse_timeline(buf, p, err, errlen) ||
	    profile_parse_wall(buf, p, err, errlen) ||
	    profile_parse_offspring(buf, avail, p, err, errlen) ||
	    profile_parse_argv(buf, avail, p, err, errlen))
		goto fail;
	return 0;
fail:
	profile_fini(p);
	return -1;
}

int
profile_parse(const void *data, size_t size, struct profile *p, char *err,
	      size_t errlen)
{
	return parse_image(data, size, size, NULL, p, err, errlen);
}

/* The buffer a member is read into, mapped apart from the heap: in the
 * heap the little each member keeps would land in the hole it leaves, so
 * that every member's buffer took fresh memory (20,000 members grew the
 * heap by gigabytes).  One mapping serves every member: after a member,
 * the blocks read into it are cleared again, and the holes, never
 * written, stay mapped to the kernel's zero page, so the next member of
 * the same layout is read without page faults.  The memory of cleared
 * blocks is kept up to IMAGE_KEEP, then given back;
 * profile_read_release() gives back all of it. */
#define IMAGE_KEEP (8u << 20)

static uint8_t *image_buf;
static size_t image_cap;
static uint64_t image_kept; /* bytes cleared in place since given back */

void
profile_read_release(void)
{
	if (image_buf)
		munmap(image_buf, image_cap);
	image_buf = NULL;
	image_cap = 0;
	image_kept = 0;
}

static uint8_t *
image_alloc(size_t size)
{
	void *p;

	if (size <= image_cap)
		return image_buf;
	profile_read_release();
	p = mmap(NULL, size ? size : 1, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	image_buf = p;
	image_cap = size ? size : 1;
	return image_buf;
}

/* Done with the buffer of a member whose data extents X were read into
 * it: they are cleared, or the whole buffer given back. */
static void
image_free(uint8_t *buf, const struct profile_extents *x)
{
	uint64_t n = 0, end;
	size_t i;

	if (!buf)
		return;
	for (i = 0; i < x->n; i++)
		n += x->v[i].end - x->v[i].off;
	if (n > IMAGE_KEEP - image_kept &&
	    madvise(image_buf, image_cap, MADV_DONTNEED) == 0) {
		image_kept = 0;
		return;
	}
	for (i = 0; i < x->n; i++) {
		end = x->v[i].end < image_cap ? x->v[i].end : image_cap;
		if (x->v[i].off < end)
			memset(image_buf + x->v[i].off, 0, end - x->v[i].off);
	}
	image_kept += n;
}

/* Bytes a writer may leave after its last region: the shim makes its
 * members whole pages. */
#define LAYOUT_SLACK 4096u

/* The end of the last region the header or the region list of the file
 * FD (header H, checked) places; the list's entries are checked later. */
static uint64_t
listed_end(int fd, const struct profrun_header *h, uint64_t end)
{
	struct profrun_region e;

	for (uint32_t i = 0; i < h->region_count && i < 256; i++) {
		if (pread(fd, &e, sizeof(e),
			  (off_t)(h->regions_off + (uint64_t)i * sizeof(e))) !=
		    (ssize_t)sizeof(e))
			break;
		if (e.size <= h->file_size && e.off <= h->file_size - e.size &&
		    e.off + e.size > end)
			end = e.off + e.size;
	}
	return end;
}

/* Check the header and the whole layout it describes against the real
 * size before reading everything, so a file claiming gigabytes costs
 * nothing: what is allocated is at most the real file, and a consistent
 * layout is at most PROFILE_MAX_FILE.  Only what the header places is
 * read (*AVAIL bytes): a stack area after it is read slot by slot when
 * the stacks are unwound. */
static int
read_checked(int fd, uint64_t size, uint8_t **out, size_t *avail,
	     struct profile_extents *x, char *err, size_t errlen)
{
	uint8_t head[PROFRUN_HEADER_SIZE];
	struct profrun_header h;
	size_t n = size < sizeof(head) ? (size_t)size : sizeof(head);
	uint8_t *buf;

	if (profile_pread_all(fd, head, n, 0))
		return profile_fail(err, errlen, "read error: %s",
				    errno ? strerror(errno) : "file shrank");
	if (check_ident(head, size, &h, err, errlen) ||
	    check_buckets(&h, err, errlen) || check_regions(&h, err, errlen))
		return -1;
	if (size > PROFILE_MAX_FILE &&
	    listed_end(fd, &h, profile_known_end(&h)) + LAYOUT_SLACK <= size)
		return profile_fail(err, errlen,
				    "too large for a profile (%llu bytes)",
				    (unsigned long long)size);
	size = profile_known_end(&h);
	if (size > PROFILE_MAX_FILE)
		return profile_fail(err, errlen,
				    "too large for a profile (%llu bytes)",
				    (unsigned long long)size);
	buf = image_alloc(size);
	if (!buf)
		return profile_fail(err, errlen, "out of memory");
	*avail = (size_t)size;
	if (profile_read_extents(fd, buf, size, x)) {
		image_free(buf, x);
		return profile_fail(err, errlen, "read error: %s",
				    errno ? strerror(errno) : "file shrank");
	}
	*out = buf;
	return 0;
}

int
profile_open(const char *path, struct stat *st, char *err, size_t errlen)
{
	/* O_NOFOLLOW: a symbolic link planted in a run directory is refused
	 * without opening its target; O_NONBLOCK: a FIFO must not hang us
	 * before fstat() can refuse it. */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW |
				    O_NOCTTY);

	if (fd < 0 && errno == ELOOP)
		return profile_fail(err, errlen,
				    "a symbolic link, not a profile (not "
				    "followed)");
	if (fd < 0)
		return profile_fail(err, errlen, "%s", strerror(errno));
	if (fstat(fd, st) < 0) {
		profile_fail(err, errlen, "%s", strerror(errno));
		close(fd);
		return -1;
	}
	if (!S_ISREG(st->st_mode)) {
		close(fd);
		return profile_fail(err, errlen, "not a regular file");
	}
	cli_input_note(st);
	return fd;
}

int
profile_read(const char *path, struct profile *p, char *err, size_t errlen)
{
	struct stat st;
	struct profile_extents x = {0};
	uint8_t *buf = NULL;
	size_t avail = 0;
	int fd, ret;

	memset(p, 0, sizeof(*p));
	fd = profile_open(path, &st, err, errlen);
	if (fd < 0)
		return -1;
	ret = read_checked(fd, (uint64_t)st.st_size, &buf, &avail, &x, err,
			   errlen);
	if (ret == 0)
		ret = parse_image(buf, avail, (uint64_t)st.st_size, &x, p, err,
				  errlen);
	if (ret == 0 && (profile_pause_load(fd, p, err, errlen) ||
			 profile_log_load(fd, p, err, errlen) ||
			 profile_jit_load(fd, p, err, errlen) ||
			 profile_timeline_load(fd, p, err, errlen) ||
			 profile_wall_load(fd, p, err, errlen) ||
			 profile_offspring_load(fd, p, err, errlen) ||
			 profile_stacks_load(fd, p, err, errlen))) {
		profile_fini(p);
		ret = -1;
	}
	close(fd);
	image_free(buf, &x);
	free(x.v);
	if (ret == 0) {
		p->dev = (uint64_t)st.st_dev;
		p->ino = (uint64_t)st.st_ino;
		p->path = strdup(path);
		if (!p->path) {
			profile_fini(p);
			return profile_fail(err, errlen, "out of memory");
		}
	}
	return ret;
}

void
profile_fini(struct profile *p)
{
	free(p->path);
	free(p->exe);
	free(p->note);
	free(p->samples);
	for (size_t i = 0; i < p->nmodules; i++)
		intern_release(p->modules[i].path);
	free(p->modules);
	free(p->mod_by_start);
	free(p->mod_max_end);
	free(p->pcs);
	intern_release(p->vdso);
	free(p->threads);
	free(p->ticks);
	free(p->blocked);
	free(p->stacks.mem);
	free(p->frames.mem);
	free(p->stacks_note);
	free(p->jit_ranges);
	free(p->children);
	free(p->child_paths);
	if (p->argv)
		free(p->argv[0]);
	free(p->argv);
	memset(p, 0, sizeof(*p));
}

bool
profile_complete(const struct profile *p)
{
	return p->hdr.state == PROFRUN_STATE_EXITED ||
	       p->hdr.state == PROFRUN_STATE_EXECED;
}

double
profile_cpu_seconds(const struct profile *p)
{
	const struct profrun_header *h = &p->hdr;
	uint64_t used = h->cpu_user_ns + h->cpu_sys_ns;

	if (!profile_complete(p) || used < h->cpu_start_ns ||
	    used < h->cpu_user_ns)
		return -1;
	return (double)(used - h->cpu_start_ns) / 1e9;
}

double
profile_armed_hz(const struct profile *p)
{
	if (p->hdr.interval_ns > 0)
		return 1e9 / p->hdr.interval_ns;
	if (p->hdr.interval_us > 0)
		return 1e6 / p->hdr.interval_us;
	return p->hdr.rate_requested;
}

/* Seconds since the epoch at which this machine booted, 0 if unknown. */
static long long
boot_time(void)
{
	char line[256];
	long long bt = 0;
	FILE *f = fopen("/proc/stat", "re");

	if (f == NULL)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "btime %lld", &bt) == 1)
			break;
	fclose(f);
	return bt;
}

/* Whether the process of P (its pid, started when P says) still runs
 * here: the pid is alive and /proc says it started within 2 s of P's
 * start (a pid reused since, or a profile from another machine, is not
 * it). */
static bool
still_running(const struct profile *p)
{
	char path[64], buf[1024], *r;
	unsigned long long ticks;
	long long bt = boot_time(), hz = sysconf(_SC_CLK_TCK);
	double start;
	FILE *f;
	size_t n;

	if (p->hdr.pid <= 0 || bt == 0 || hz <= 0 || p->hdr.start_ns <= 0)
		return false;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)p->hdr.pid);
	f = fopen(path, "re");
	if (f == NULL)
		return false;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	r = strrchr(buf, ')'); /* the name may hold anything */
	/* after ") ": state, then fields 4..21, then starttime (22) */
	if (r == NULL ||
	    sscanf(r + 2,
		   "%*c %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s "
		   "%*s %*s %*s %*s %*s %*s %llu",
		   &ticks) != 1)
		return false;
	start = (double)bt + (double)ticks / (double)hz;
	return start - (double)p->hdr.start_ns / 1e9 < 2.0 &&
	       (double)p->hdr.start_ns / 1e9 - start < 2.0;
}

int
profile_raw_exit(const struct profile *p)
{
	int st = (int)(p->hdr.reaped & 0xffff);

	if (p->hdr.state != PROFRUN_STATE_RUNNING ||
	    !(p->hdr.reaped & PROFRUN_REAPED) || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

int
profile_end_signal(const struct profile *p)
{
	int st = (int)(p->hdr.reaped & 0xffff);

	if (p->hdr.state != PROFRUN_STATE_RUNNING ||
	    !(p->hdr.reaped & PROFRUN_REAPED) || !WIFSIGNALED(st))
		return 0;
	return WTERMSIG(st);
}

const char *
profile_state_text(const struct profile *p)
{
	switch (p->hdr.state) {
	case PROFRUN_STATE_EXITED:
		return "complete";
	case PROFRUN_STATE_EXECED:
		return "exec'd";
	case PROFRUN_STATE_RUNNING:
		if (profile_raw_exit(p) >= 0)
			return "exited (not through libc)";
		if (profile_end_signal(p) > 0)
			return "cut short: killed by a signal";
		if (still_running(p))
			return "still running: counts so far";
		return "cut short: never finished (killed or crashed)";
	default:
		return "cut short: unknown end state";
	}
}

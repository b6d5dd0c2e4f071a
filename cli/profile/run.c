/* SPDX-License-Identifier: MIT */
/*
 * Run directories: the members of one (or of several profiles read as one
 * run, for report PROFILE..., merge and diff) loaded in run order; a run
 * directory emptied or removed, never anything else; a free member name.
 * Member names follow include/profrun/member-name.h.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "array.h"
#include "cli.h"
#include "file.h"
#include "profrun/member-name.h"
#include "run.h"

/* ---------------------------------------------------------------- reading */

struct member_ref {
	char *name;
	uint64_t pid, seq;
};

static int
cmp_member(const void *a, const void *b)
{
	const struct member_ref *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	return strcmp(x->name, y->name);
}

static void
free_refs(struct member_ref *refs, size_t n)
{
	while (n > 0)
		free(refs[--n].name);
	free(refs);
}

/* The member file names of directory PATH, sorted by pid and sequence. */
static int
list_members(const char *path, struct member_ref **out, size_t *nout)
{
	struct member_ref *refs = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;
	uint64_t pid, seq;
	DIR *dir = opendir(path);

	if (!dir) {
		cli_error("%s: %s", path, strerror(errno));
		return -1;
	}
	while ((de = readdir(dir)) != NULL) {
		if (!profrun_member_name_parse(de->d_name, &pid, &seq))
			continue;
		if (ARRAY_GROW(refs, cap, n, 16))
			goto oom;
		refs[n].name = strdup(de->d_name);
		if (!refs[n].name)
			goto oom;
		refs[n].pid = pid;
		refs[n++].seq = seq;
	}
	closedir(dir);
	if (n > 0) /* refs is NULL for a directory with no member */
		qsort(refs, n, sizeof(*refs), cmp_member);
	*out = refs;
	*nout = n;
	return 0;
oom:
	closedir(dir);
	free_refs(refs, n);
	cli_error("%s: out of memory", path);
	return -1;
}

static char *
join_path(const char *dir, const char *name)
{
	size_t len = strlen(dir);
	char *s;

	while (len > 1 && dir[len - 1] == '/')
		len--;
	if (asprintf(&s, "%.*s/%s", (int)len, dir, name) < 0)
		return NULL;
	return s;
}

/* Keep the name and reason of a member that could not be read; when there
 * is no memory for them, the count still says it (run->skipped). */
static void
note_unreadable(struct run *run, const char *path, const char *reason,
		int64_t pid)
{
	struct run_unreadable *u;

	run->skipped++;
	if (!run->unreadable)
		return;
	u = &run->unreadable[run->nunreadable++];
	u->path = strdup(path);
	u->reason = strdup(reason);
	u->pid = pid;
}

static void
load_member(struct run *run, const char *name, uint64_t pid, uint64_t seq)
{
	char err[256];
	char *path = join_path(run->path, name);
	struct profile *p = &run->members[run->n];

	if (path && profile_read(path, p, err, sizeof(err)) == 0) {
		p->seq = (unsigned)seq;
		run->n++;
	} else {
		cli_warn("%s: %s (skipped)", path ? path : name,
			 path ? err : "out of memory");
		note_unreadable(run, path ? path : name,
				path ? err : "out of memory", (int64_t)pid);
	}
	free(path);
}

/* Run order: by start time, then pid and sequence (pids wrap around). */
static int
cmp_run_order(const void *a, const void *b)
{
	const struct profile *x = a, *y = b;

	if (x->hdr.start_ns != y->hdr.start_ns)
		return x->hdr.start_ns < y->hdr.start_ns ? -1 : 1;
	if (x->hdr.pid != y->hdr.pid)
		return x->hdr.pid < y->hdr.pid ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int
load_dir(struct run *run)
{
	struct member_ref *refs;
	size_t n, i;

	if (list_members(run->path, &refs, &n))
		return -1;
	if (n == 0) {
		free(refs);
		cli_error("no profiles in %s", run->path);
		return -1;
	}
	run->members = calloc(n, sizeof(*run->members));
	/* taken before the members, so that running out of memory reading
	 * them still leaves room to say which */
	run->unreadable = calloc(n, sizeof(*run->unreadable));
	for (i = 0; run->members && i < n; i++)
		load_member(run, refs[i].name, refs[i].pid, refs[i].seq);
	free_refs(refs, n);
	if (!run->members) {
		cli_error("%s: out of memory", run->path);
		return -1;
	}
	if (run->n == 0) {
		cli_error("%s: no readable profile (%zu damaged member%s)",
			  run->path, run->skipped,
			  run->skipped == 1 ? "" : "s");
		return -1;
	}
	qsort(run->members, run->n, sizeof(*run->members), cmp_run_order);
	return 0;
}

/* A member file named on the command line is read where a symbolic link
 * of that name leads (members of a directory never are). */
static int
load_file(struct run *run)
{
	char err[256], *real = realpath(run->path, NULL);
	struct stat st;
	int ret;

	run->members = calloc(1, sizeof(*run->members));
	if (!run->members) {
		free(real);
		cli_error("%s: out of memory", run->path);
		return -1;
	}
	if (real && lstat(run->path, &st) == 0 && S_ISLNK(st.st_mode))
		ret = profile_read(real, &run->members[0], err, sizeof(err));
	else
		ret = profile_read(run->path, &run->members[0], err,
				   sizeof(err));
	free(real);
	if (ret) {
		cli_error("%s: %s", run->path, err);
		return -1;
	}
	run->n = 1;
	return 0;
}

/* Load PATH into RUN, and for a run directory match the offspring its
 * members recorded against them. */
static int
load_one(const char *path, struct run *run)
{
	struct stat st;
	int ret;

	memset(run, 0, sizeof(*run));
	if (stat(path, &st) < 0) {
		cli_error("%s: %s", path, strerror(errno));
		return -1;
	}
	run->path = strdup(path);
	if (!run->path) {
		cli_error("%s: out of memory", path);
		return -1;
	}
	run->is_dir = S_ISDIR(st.st_mode);
	if (run->is_dir)
		cli_input_note(&st);
	ret = run->is_dir ? load_dir(run) : load_file(run);
	profile_read_release();
	if (ret == 0 && run->is_dir && run_check_offspring(run)) {
		cli_error("%s: out of memory", path);
		ret = -1;
	}
	if (ret)
		run_fini(run);
	return ret;
}

int
run_load(const char *path, struct run *run)
{
	return load_one(path, run);
}

void
run_fini(struct run *run)
{
	size_t i;

	for (i = 0; i < run->n; i++)
		profile_fini(&run->members[i]);
	for (i = 0; i < run->nunreadable; i++) {
		free(run->unreadable[i].path);
		free(run->unreadable[i].reason);
	}
	free(run->unreadable);
	for (i = 0; i < run->nmissing; i++)
		free(run->missing[i].path);
	free(run->missing);
	for (i = 0; i < run->nnot_profiled; i++)
		free(run->not_profiled[i].path);
	free(run->not_profiled);
	free(run->members);
	free(run->path);
	memset(run, 0, sizeof(*run));
}

/* "a, b and c" for messages. */
static char *
join_paths(char *const *paths, size_t n)
{
	size_t i, len = 1;
	char *s;

	for (i = 0; i < n; i++)
		len += strlen(paths[i]) + 2;
	s = malloc(len);
	if (!s)
		return NULL;
	s[0] = '\0';
	for (i = 0; i < n; i++) {
		if (i > 0)
			strcat(s, ", ");
		strcat(s, paths[i]);
	}
	return s;
}

/* Append the N elements of SIZE bytes at *FROM to *TO (*NTO of them),
 * and empty FROM.  0, or -1 when out of memory. */
static int
append(void *to, size_t *nto, void *from, size_t *nfrom, size_t size)
{
	void **t = to, **f = from;
	void *m;

	if (*nfrom == 0)
		return 0;
	m = realloc(*t, (*nto + *nfrom) * size);
	if (!m)
		return -1;
	memcpy((char *)m + *nto * size, *f, *nfrom * size);
	*t = m;
	*nto += *nfrom;
	free(*f);
	*f = NULL;
	*nfrom = 0;
	return 0;
}

/* Move the members of FROM, and its lists of unreadable, missing and
 * unprofiled ones, to the end of TO's; FROM keeps only its path. */
static int
take_members(struct run *to, struct run *from)
{
	if (append(&to->missing, &to->nmissing, &from->missing, &from->nmissing,
		   sizeof(*to->missing)) ||
	    append(&to->not_profiled, &to->nnot_profiled, &from->not_profiled,
		   &from->nnot_profiled, sizeof(*to->not_profiled)))
		return -1;
	to->children_unrecorded += from->children_unrecorded;
	struct profile *m;
	struct run_unreadable *u;
	size_t nu = to->nunreadable + from->nunreadable;

	m = realloc(to->members, (to->n + from->n) * sizeof(*m));
	if (!m)
		return -1;
	to->members = m;
	u = realloc(to->unreadable, (nu ? nu : 1) * sizeof(*u));
	if (!u)
		return -1;
	to->unreadable = u;
	memcpy(m + to->n, from->members, from->n * sizeof(*m));
	if (from->nunreadable > 0)
		memcpy(u + to->nunreadable, from->unreadable,
		       from->nunreadable * sizeof(*u));
	to->n += from->n;
	to->nunreadable = nu;
	to->skipped += from->skipped;
	free(from->members);
	free(from->unreadable);
	from->members = NULL;
	from->unreadable = NULL;
	from->n = 0;
	from->nunreadable = 0;
	return 0;
}

int
run_load_many(char *const *paths, size_t n, struct run *run)
{
	struct run one;
	size_t i;

	if (n == 1)
		return run_load(paths[0], run);
	memset(run, 0, sizeof(*run));
	run->is_dir = true;
	run->path = join_paths(paths, n);
	if (!run->path) {
		cli_error("%s: out of memory", paths[0]);
		return -1;
	}
	for (i = 0; i < n; i++) {
		if (run_load(paths[i], &one))
			goto fail;
		if (take_members(run, &one)) {
			cli_error("%s: out of memory", paths[i]);
			run_fini(&one);
			goto fail;
		}
		run_fini(&one);
	}
	return 0;
fail:
	run_fini(run);
	return -1;
}

/* ---------------------------------------------------------------- writing */

int
run_note_reaped(const char *dir, uint32_t pid, int status)
{
	struct member_ref *refs;
	struct profrun_header h;
	struct stat st;
	size_t n, last = SIZE_MAX;
	uint32_t reaped = PROFRUN_REAPED | ((uint32_t)status & 0xffff);
	int ret = 0, fd;
	char *path;

	if (list_members(dir, &refs, &n))
		return -1;
	for (size_t i = 0; i < n; i++)
		if (refs[i].pid == pid) /* sorted: the last is the latest */
			last = i;
	if (last == SIZE_MAX) {
		free_refs(refs, n);
		return 0;
	}
	path = join_path(dir, refs[last].name);
	free_refs(refs, n);
	fd = path ? open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
		  : -1;
	free(path);
	if (fd < 0)
		return -1;
	/* only a regular file whose image never finished, and only once */
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
	    pread(fd, &h, sizeof(h), 0) == (ssize_t)sizeof(h) &&
	    memcmp(h.magic, PROFRUN_MAGIC, PROFRUN_MAGIC_LEN) == 0 &&
	    h.state == PROFRUN_STATE_RUNNING && h.reaped == 0 &&
	    pwrite(fd, &reaped, sizeof(reaped),
		   offsetof(struct profrun_header, reaped)) !=
		    (ssize_t)sizeof(reaped))
		ret = -1;
	close(fd);
	return ret;
}

/* Whether the file NAME of the run directory DIR is a member file: a
 * regular file (opened without following a link or waiting on a FIFO)
 * that begins with the magic of a profile, or is empty (the shim makes a
 * member, then sizes it: one killed between leaves it empty).  With
 * MAGIC false, any regular file (a companion's contents are the
 * runtime's). */
static bool
is_member_file(DIR *dir, const char *name, bool magic_needed)
{
	static const char magic[PROFRUN_MAGIC_LEN] = PROFRUN_MAGIC;
	char head[PROFRUN_MAGIC_LEN];
	struct stat st;
	bool ok = false;
	int fd;

	fd = openat(dirfd(dir), name,
		    O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW | O_NOCTTY);
	if (fd < 0)
		return false;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
		ok = !magic_needed || st.st_size == 0 ||
		     (pread(fd, head, sizeof(head), 0) ==
			      (ssize_t)sizeof(head) &&
		      memcmp(head, magic, sizeof(head)) == 0);
	close(fd);
	return ok;
}

/* Whether the entry E of the run directory DIR is a member file (see
 * is_member_file()), or a companion beside one (<member>.map,
 * <member>.jitdump: the runtime's names of JIT code, copied at exit and
 * exec): a regular file whose member is a member file of DIR.  With
 * REMOVING, a companion whose member is gone is accepted too: the walk
 * that removes members may have removed it first (a walk that does not
 * remove checked it before). */
static bool
is_member_entry(DIR *dir, const struct dirent *e, bool removing)
{
	char member[PROFRUN_MEMBER_NAME_MAX];
	const char *dot;
	size_t len;

	if (e->d_type != DT_REG && e->d_type != DT_UNKNOWN)
		return false;
	if (profrun_member_name_parse(e->d_name, NULL, NULL))
		return is_member_file(dir, e->d_name, true);
	if (!profrun_member_companion_parse(e->d_name))
		return false;
	dot = strrchr(e->d_name, '.');
	len = (size_t)(dot - e->d_name);
	if (len >= sizeof(member))
		return false;
	memcpy(member, e->d_name, len);
	member[len] = '\0';
	if (!profrun_member_name_parse(member, NULL, NULL) ||
	    !is_member_file(dir, e->d_name, false))
		return false;
	if (is_member_file(dir, member, true))
		return true;
	return removing &&
	       faccessat(dirfd(dir), member, F_OK, AT_SYMLINK_NOFOLLOW) < 0 &&
	       errno == ENOENT;
}

/* Refuse PATH (after an error ending in HINT) unless it is a directory of
 * member files only; with REMOVE, remove them.  0, 1 when PATH does not
 * exist, or -1 after an error. */
static int
walk_run_dir(const char *path, bool remove, const char *hint)
{
	DIR *dir = opendir(path);
	struct dirent *e;
	int ret = 0;

	if (!dir && errno == ENOENT)
		return 1;
	if (!dir) {
		if (errno == ENOTDIR)
			cli_error("%s: exists and is not a run directory; %s",
				  path, hint);
		else
			cli_error("%s: %s", path, strerror(errno));
		return -1;
	}
	while (ret == 0 && (e = readdir(dir)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (!is_member_entry(dir, e, remove)) {
			cli_error("%s: holds '%s', which is not a profile; %s",
				  path, e->d_name, hint);
			ret = -1;
		} else if (remove && unlinkat(dirfd(dir), e->d_name, 0) < 0) {
			cli_error("%s/%s: cannot remove: %s", path, e->d_name,
				  strerror(errno));
			ret = -1;
		}
	}
	closedir(dir);
	return ret;
}

int
run_dir_check(const char *path, const char *hint)
{
	return walk_run_dir(path, false, hint);
}

int
run_dir_empty(const char *path, bool remove_dir, const char *hint)
{
	int ret = walk_run_dir(path, false, hint);

	if (ret == 0)
		ret = walk_run_dir(path, true, hint);
	if (ret == 0 && remove_dir && rmdir(path) < 0) {
		cli_error("%s: %s", path, strerror(errno));
		ret = -1;
	}
	return ret;
}

char *
run_member_path(const char *dir, uint32_t pid)
{
	char name[PROFRUN_MEMBER_NAME_MAX];
	char *path;
	uint64_t seq;

	for (seq = 0;; seq++) {
		profrun_member_name(name, pid, seq);
		path = join_path(dir, name);
		if (!path || access(path, F_OK) != 0)
			return path;
		free(path);
	}
}

/* SPDX-License-Identifier: MIT */
/*
 * Annotated source.  Each chosen function's samples are taken from the
 * report's lines (KEY_LINE_CALLER: every line carries the symbol whose
 * code it is), grouped by source file, and shown in windows around the
 * sampled lines: the function's own file first, then the files of code
 * inlined into it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "annotate.h"
#include "file.h"
#include "strmap.h"
#include "utf8.h"

#define CONTEXT	  2    /* source lines shown around a sampled one */
#define MERGE_GAP 6    /* windows closer than this are joined */
#define HOT	  0.20 /* share of the function: highlighted in red */
#define WARM	  0.05 /* ... in yellow */

#define RED    "\033[1;31m"
#define YELLOW "\033[33m"
#define RESET  "\033[0m"

/* A source file read into memory (text NULL when it could not be). */
struct source {
	char *text;
	char **lines; /* lines[i] is line i + 1 */
	size_t nlines;
};

struct annotate {
	const struct report *r;
	const struct annotate_opts *o;
	FILE *out;
	struct strmap sources; /* path -> struct source */
};

/* ---------------------------------------------------------------- sources */

static void
source_free(void *p)
{
	struct source *s = p;

	free(s->text);
	free(s->lines);
	free(s);
}

static int
split_lines(struct source *s, size_t len)
{
	size_t i, n = 0;

	for (i = 0; i < len; i++)
		n += s->text[i] == '\n';
	s->lines = calloc(n + 1, sizeof(*s->lines));
	if (!s->lines)
		return -1;
	s->lines[s->nlines++] = s->text;
	for (i = 0; i < len; i++) {
		if (s->text[i] != '\n')
			continue;
		s->text[i] = '\0';
		if (i > 0 && s->text[i - 1] == '\r')
			s->text[i - 1] = '\0';
		if (i + 1 < len)
			s->lines[s->nlines++] = s->text + i + 1;
	}
	return 0;
}

static char *
read_all(FILE *f, size_t *len)
{
	size_t cap = 65536, n = 0, got;
	char *buf = malloc(cap + 1), *t;

	while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
		n += got;
		if (n > CLI_MAX_SOURCE) { /* /dev/zero was read to 2 GB */
			free(buf);
			errno = EFBIG;
			return NULL;
		}
		if (n < cap)
			continue;
		t = realloc(buf, 2 * cap + 1);
		if (!t) {
			free(buf);
			return NULL;
		}
		buf = t;
		cap *= 2;
	}
	if (!buf || ferror(f)) {
		free(buf);
		return NULL;
	}
	buf[n] = '\0';
	*len = n;
	return buf;
}

/* Open PATH, or a file it names under a --source-dir: DIR/PATH, then
 * with leading directories dropped one by one, down to DIR/BASENAME. */
static FILE *
open_source(const struct annotate_opts *o, const char *path)
{
	const char *suffix;
	char *p;
	FILE *f;
	size_t i;

	for (i = 0; i < o->nsource_dirs; i++) {
		for (suffix = path; suffix; suffix = strchr(suffix + 1, '/')) {
			if (asprintf(&p, "%s/%s", o->source_dirs[i],
				     suffix + (suffix[0] == '/')) < 0)
				return NULL;
			f = cli_fopen_regular(p);
			free(p);
			if (f)
				return f;
		}
	}
	return cli_fopen_regular(path);
}

/* TEXT (*LEN bytes) as it may reach a terminal: no control characters but
 * tabs (and line ends when KEEP_NEWLINES), valid UTF-8.  TEXT is freed;
 * NULL when out of memory. */
static char *
printable(char *text, size_t *len, bool keep_newlines)
{
	char *valid;

	cli_printable(text, *len, keep_newlines);
	valid = utf8_valid(text, *len, len);
	free(text);
	return valid;
}

/* A name from the profile or the debug information (a function, a file, a
 * path), written to OUT as printable() makes it. */
static void
put_name(FILE *out, const char *name)
{
	size_t len = strlen(name);
	char *p = strdup(name);

	p = p ? printable(p, &len, false) : NULL;
	fputs(p ? p : "?", out);
	free(p);
}

static void
load_source(const struct annotate_opts *o, const char *path, struct source *s)
{
	FILE *f;
	size_t len = 0;

	errno = 0;
	f = open_source(o, path);
	s->text = f ? read_all(f, &len) : NULL;
	if (s->text)
		s->text = printable(s->text, &len, true);
	if (s->text && split_lines(s, len) == 0) {
		fclose(f);
		return;
	}
	if (errno == EFBIG)
		cli_warn("%s: larger than %u MiB; showing line numbers only",
			 path, CLI_MAX_SOURCE >> 20);
	else
		cli_warn("%s: %s; showing line numbers only", path,
			 errno ? strerror(errno) : "cannot read");
	free(s->text);
	s->text = NULL;
	if (f)
		fclose(f);
}

/* PATH's source, read (and warned about) once. */
static const struct source *
get_source(struct annotate *a, const char *path)
{
	struct strmap_slot *slot = strmap_get(&a->sources, path);
	struct source *s;

	if (!slot)
		return NULL;
	if (slot->value)
		return slot->value;
	s = calloc(1, sizeof(*s));
	if (s)
		load_source(a->o, path, s);
	slot->value = s;
	return s;
}

/* ---------------------------------------------------------------- printing */

/* One line of a file: samples, percent, number, text. */
static void
print_line(struct annotate *a, const struct source *src, int line,
	   uint64_t samples, uint64_t fn_samples)
{
	double share = fn_samples ? (double)samples / (double)fn_samples : 0;
	const char *color = "";
	const char *text =
		src && src->text && line >= 1 && (size_t)line <= src->nlines
			? src->lines[line - 1]
			: "";

	if (a->o->color && samples > 0)
		color = share >= HOT ? RED : share >= WARM ? YELLOW : "";
	if (samples > 0)
		fprintf(a->out, "%s%10" PRIu64 " %7.2f", color, samples,
			report_percent(a->r, samples));
	else
		fprintf(a->out, "%10s %7s", ".", ".");
	fprintf(a->out, " %6d%s%s%s\n", line, text[0] ? "  " : "", text,
		color[0] ? RESET : "");
}

struct sampled {
	int line;
	uint64_t samples;
};

static int
cmp_sampled(const void *a, const void *b)
{
	const struct sampled *x = a, *y = b;

	return (x->line > y->line) - (x->line < y->line);
}

/* Print windows around the sampled lines V[0..N) (sorted by line). */
static void
print_windows(struct annotate *a, const struct source *src,
	      const struct sampled *v, size_t n, uint64_t fn_samples)
{
	size_t i = 0, j;
	int from, to, line;

	while (i < n) {
		from = v[i].line - CONTEXT > 1 ? v[i].line - CONTEXT : 1;
		for (j = i;
		     j + 1 < n && v[j + 1].line - v[j].line <= MERGE_GAP;)
			j++;
		to = v[j].line + CONTEXT;
		if (src && src->text && (size_t)to > src->nlines)
			to = (int)src->nlines > v[j].line ? (int)src->nlines
							  : v[j].line;
		if (i > 0)
			fprintf(a->out, "%10s %7s %6s\n", "", "", "...");
		for (line = from; line <= to; line++) {
			if (i <= j && v[i].line == line) {
				print_line(a, src, line, v[i].samples,
					   fn_samples);
				i++;
			} else if (!src || !src->text) {
				continue; /* without text, only sampled lines */
			} else {
				print_line(a, src, line, 0, fn_samples);
			}
		}
		i = j + 1;
	}
}

/* One entry per line (two functions may share one). */
static size_t
merge_sampled(struct sampled *v, size_t n)
{
	size_t i, k = 0;

	for (i = 0; i < n; i++) {
		if (k > 0 && v[k - 1].line == v[i].line)
			v[k - 1].samples += v[i].samples;
		else
			v[k++] = v[i];
	}
	return k;
}

/* The lines of F's code in FILE (NULL: without line information). */
static struct sampled *
file_lines(const struct annotate *a, const struct func *f, const char *file,
	   size_t *np)
{
	const struct func_list *l = &a->r->lines;
	struct sampled *v = calloc(l->n + 2, sizeof(*v));
	size_t i, n = 0;

	for (i = 0; v && i < l->n; i++) {
		if (strcmp(l->v[i].module, f->module) ||
		    strcmp(l->v[i].caller, f->name))
			continue;
		if (file ? !l->v[i].file || strcmp(l->v[i].file, file)
			 : l->v[i].file != NULL)
			continue;
		v[n].line = l->v[i].line;
		v[n++].samples = l->v[i].samples;
	}
	if (v)
		qsort(v, n, sizeof(*v), cmp_sampled);
	*np = merge_sampled(v, n);
	return v;
}

static void
print_file(struct annotate *a, const struct func *f, const char *file)
{
	size_t n;
	struct sampled *v = file_lines(a, f, file, &n);
	uint64_t s = 0;
	size_t i;

	if (!v || n == 0) {
		free(v);
		return;
	}
	if (!file) {
		for (i = 0; i < n; i++)
			s += v[i].samples;
		fprintf(a->out,
			"  (no line information: %" PRIu64 " samples)\n", s);
	} else {
		fputs("  ", a->out);
		put_name(a->out, file);
		fprintf(a->out, "\n%10s %7s %6s\n", "samples", "%", "line");
		print_windows(a, get_source(a, file), v, n, f->samples);
	}
	free(v);
}

/* The distinct files of F's lines, F's own file first. */
static void
print_function(struct annotate *a, const struct func *f)
{
	const struct func_list *l = &a->r->lines;
	struct strmap seen = {0};
	struct strmap_slot *slot;
	size_t i;

	fputs("\n== ", a->out);
	put_name(a->out, f->name);
	fprintf(a->out, ": %" PRIu64 " samples (%.2f%%)\n", f->samples,
		report_percent(a->r, f->samples));
	if (f->file) {
		print_file(a, f, f->file);
		strmap_get(&seen, f->file);
	}
	for (i = 0; i < l->n; i++) {
		if (!l->v[i].file || strcmp(l->v[i].caller, f->name) ||
		    strcmp(l->v[i].module, f->module))
			continue;
		slot = strmap_get(&seen, l->v[i].file);
		if (!slot || slot->value)
			continue;
		slot->value = slot->key;
		if (!f->file || strcmp(f->file, l->v[i].file))
			print_file(a, f, l->v[i].file);
	}
	print_file(a, f, NULL);
	strmap_fini(&seen, NULL);
}

/* ---------------------------------------------------------------- choice */

/* NAME names F: its shown or raw name, or the shown name without its
 * argument list ("ns::f" for "ns::f(int)"). */
static bool
names(const struct func *f, const char *name)
{
	size_t len = strlen(name);

	if (strcmp(f->name, name) == 0 || strcmp(f->symbol, name) == 0)
		return true;
	return strncmp(f->name, name, len) == 0 && f->name[len] == '(';
}

static int
print_named(struct annotate *a)
{
	const struct func_list *l = &a->r->funcs;
	size_t i, k, shown = 0, found;

	for (k = 0; k < a->o->nnames; k++) {
		found = 0;
		for (i = 0; i < l->n; i++) {
			if (!names(&l->v[i], a->o->names[k]))
				continue;
			print_function(a, &l->v[i]);
			found++;
		}
		if (!found)
			cli_warn(
				"annotate: no samples in a function named '%s'",
				a->o->names[k]);
		shown += found;
	}
	return shown ? 0 : -1;
}

static int
print_hottest(struct annotate *a)
{
	const struct func_list *l = &a->r->funcs;
	size_t i;
	int n = 0;

	for (i = 0; i < l->n && n < a->o->top; i++) {
		if (l->v[i].name[0] == '[')
			continue; /* an address range: no source */
		print_function(a, &l->v[i]);
		n++;
	}
	if (n == 0)
		cli_error("annotate: no function with samples");
	return n ? 0 : -1;
}

int
annotate_print(const struct report *r, const struct annotate_opts *o, FILE *out)
{
	struct annotate a = {.r = r, .o = o, .out = out};
	int ret;

	fputs("profrun: ", out);
	put_name(out, r->run->path);
	fprintf(out, ": %" PRIu64 " samples\n", r->total);
	ret = o->nnames ? print_named(&a) : print_hottest(&a);
	if (ret && o->nnames)
		cli_error("annotate: none of the functions named has samples");
	strmap_fini(&a.sources, source_free);
	fflush(out);
	if (ferror(out)) {
		cli_error("annotate: cannot write the output");
		ret = -1;
	}
	return ret ? EXIT_FAIL : EXIT_OK;
}

/* SPDX-License-Identifier: MIT */
/* `profrun diff`: compare two flat profiles and gate on regressions. */
#ifndef PROFRUN_CLI_DIFF_H
#define PROFRUN_CLI_DIFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Pseudo-functions, so the shares add up to 100% on both sides. */
#define DIFF_OUTSIDE "[outside the executable]"
#define DIFF_OMITTED "[functions left out of the report]"

/* One function of one side. */
struct diff_fn {
	char *name;
	char *module;	    /* short module name; NULL when not known */
	uint64_t samples;   /* its own (self) samples */
	uint64_t inclusive; /* with it anywhere on the stack (when the side
			     * has_inclusive) */
	bool flat;	    /* in the flat profile (not a caller only) */
	bool pseudo;	    /* DIFF_OUTSIDE or DIFF_OMITTED */
	size_t stack_fn;    /* its function in the side's report stacks, or
			     * SIZE_MAX */
	size_t incl_row;    /* its row in diff.incl + 1; 0 = none */
};

struct run;
struct report;

/* BASE or NEW: a profile or a JSON report, reduced to its functions. */
struct diff_side {
	const char *path;
	bool from_json;
	bool has_inclusive; /* every function's inclusive samples known */
	bool callers_known; /* and those of the callers without samples of
			     * their own (not in reports of older versions) */
	uint64_t total;	    /* all samples, the denominator of every share */
	double deff;	    /* total over the effective samples (samples
			     * in bursts, README Limits), >= 1 */
	struct diff_fn *fns;
	size_t n, cap;
	char **mains; /* short names of its main executables */
	size_t nmains;
	/* a profile's report, kept for the flame graph page (owned when
	 * own_report) */
	struct run *run;
	struct report *report;
	bool own_report;
};

enum diff_status {
	DIFF_UNCHANGED,	  /* no significant change beyond the threshold */
	DIFF_REGRESSION,  /* share grew significantly by > threshold */
	DIFF_NEW,	  /* absent from BASE, significant share in NEW */
	DIFF_IMPROVEMENT, /* share shrank significantly by > threshold */
	DIFF_GONE,	  /* absent from NEW, was significant in BASE */
};

struct diff_row {
	const char *name, *module;
	struct diff_fn *bf, *nf; /* the function on each side, or NULL */
	uint64_t base, new;
	double base_pct, new_pct, delta; /* percent, percentage points */
	double p_value;			 /* two-sided, unadjusted */
	bool significant;		 /* after Holm's adjustment */
	enum diff_status status;
};

enum diff_fail_on { FAIL_ON_REGRESSION, FAIL_ON_ANY, FAIL_ON_NONE };

struct diff_opts {
	const char *format; /* text, markdown, json, html */
	double threshold;   /* percentage points */
	double confidence;  /* family-wise, percent */
	enum diff_fail_on fail_on;
	int top;	   /* rows shown in text and markdown; 0 = all */
	bool force;	   /* symbolize profiles of rebuilt binaries */
	bool inclusive;	   /* compare inclusive samples (with the function
			 * anywhere on the stack), not self samples */
	const char **same; /* --same A=B: module A of BASE is B of NEW */
	size_t nsame;
};

/* A module of BASE compared as a module of NEW. */
struct diff_same {
	char *base, *new; /* short names */
	bool automatic;	  /* the one main executable of each side */
};

/* The functions compared on one measure, tested and classified. */
struct diff_rows {
	struct diff_row *v; /* flagged first, then by size of change */
	size_t n;
	size_t regressions, improvements;
};

struct diff {
	const struct diff_opts *opts;
	struct diff_side base, new;
	struct diff_row *rows; /* the gate's: self shares (inclusive ones
				* with opts->inclusive) */
	size_t nrows;
	size_t regressions, improvements;
	/* inclusive shares, when both sides have them: the same rows as
	 * the gate's with opts->inclusive, else their own */
	struct diff_rows incl;
	struct diff_same *same;
	size_t nsame;
};

/* Load BASE or NEW from PATH (a profile or a JSON report).  Returns 0, or
 * -1 after printing an error. */
int diff_side_load(struct diff_side *s, const char *path,
		   const struct diff_opts *opts);
void diff_side_fini(struct diff_side *s);
/* Load S from the JSON report TEXT of LEN bytes (PATH names it in
 * messages); the reader diff_side_load uses, from memory, for the fuzz
 * harness.  Returns 0, or -1 after printing an error. */
int diff_side_parse_json(struct diff_side *s, const char *path,
			 const char *text, size_t len);
/* Add a function to S: FLAT when in the flat profile (else only a
 * caller, with no samples of its own).  0, or -1 when out of memory. */
int diff_side_add(struct diff_side *s, const char *name, const char *module,
		  uint64_t samples, uint64_t inclusive, bool flat);

/* S from the report R of a profile at PATH: its functions (with their
 * inclusive samples when R has stacks) and main executables.  S borrows R
 * (and keeps it for the flame graph page): R must outlive S.  Returns 0,
 * or -1 after printing an error. */
int diff_side_from_report(struct diff_side *s, const char *path,
			  const struct report *r, const struct diff_opts *opts);

/* Map modules (--same, and the one main executable of each side), match
 * functions, test every change and classify.  0, or -1 after printing an
 * error (a --same naming no module, out of memory). */
int diff_compute(struct diff *d);
void diff_fini(struct diff *d);

/* BASE's modules renamed as NEW's: each --same A=B, and the one main
 * executable of BASE as NEW's when each side has one and --same names
 * neither; recorded in d->same.  0, or -1 after printing an error.
 * (diff/same.c) */
int diff_map_modules(struct diff *d);

/* Whether the outcome fails the gate (--fail-on). */
bool diff_fails(const struct diff *d);

/* Statistics (diff/stats.c). */
double two_proportion_p(double x1, double n1, double x2, double n2);

/* S's effective samples: its total over its design effect. */
uint64_t diff_side_effective(const struct diff_side *s);

/* "N samples", or "N samples, in bursts: tested as M" when S's samples
 * came in bursts, into BUF (LEN bytes); returns BUF. */
const char *diff_side_samples(const struct diff_side *s, char *buf, size_t len);
void holm_significant(const double *p, size_t m, double alpha, bool *sig);

/* Output (diff/output.c).  0, or -1 on a write error. */
int diff_write(const struct diff *d, FILE *out);

/* What the writers share (diff/output.c): the rows of ROWS shown in text
 * and markdown (--top, flagged ones always); a p-value as shown; the
 * method in words; the verdict line (markdown: at most 10 names); a line
 * per module compared under another name. */
size_t diff_shown_rows(const struct diff *d, const struct diff_rows *rows);
void diff_p_text(char *buf, size_t len, double p);
const char *diff_method_text(void);
void diff_verdict(const struct diff *d, FILE *out, bool md);
void diff_same_notes(const struct diff *d, FILE *out, bool md);

/* The markdown of D, under DIFF_MARKDOWN_LIMIT characters.  (diff/markdown.c) */
#define DIFF_MARKDOWN_LIMIT 65536
int diff_markdown(const struct diff *d, FILE *out);

/* The page with the flame graph of NEW coloured by the change of each
 * function's inclusive share (a flat view of bars without stacks); 0, or
 * -1 when out of memory.  (diff/page.c) */
int diff_html(const struct diff *d, FILE *out);

/* The row of the inclusive comparison of R's function (R a row of the
 * gate), or NULL. */
const struct diff_row *diff_incl_row(const struct diff *d,
				     const struct diff_row *r);

/* The inclusive row of F (a function of either side), or NULL; the
 * number of inclusive rows (0 when not compared). */
const struct diff_row *diff_fn_incl_row(const struct diff *d,
					const struct diff_fn *f);
size_t diff_incl_count(const struct diff *d);

/* Whether the comparison of inclusive shares is there (both sides have
 * stacks) and apart from the gate's rows. */
static inline bool
diff_has_incl(const struct diff *d)
{
	return d->incl.v != NULL;
}

const char *diff_status_name(enum diff_status s);

#endif /* PROFRUN_CLI_DIFF_H */

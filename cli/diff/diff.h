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
	char *module; /* short module name; NULL when not known */
	uint64_t samples;
};

/* BASE or NEW: a profile or a JSON report, reduced to its functions. */
struct diff_side {
	const char *path;
	bool from_json;
	bool inclusive; /* fns hold inclusive samples (diff_opts.inclusive) */
	uint64_t total; /* all samples, the denominator of every share */
	struct diff_fn *fns;
	size_t n, cap;
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
	uint64_t base, new;
	double base_pct, new_pct, delta; /* percent, percentage points */
	double p_value;			 /* two-sided, unadjusted */
	bool significant;		 /* after Holm's adjustment */
	enum diff_status status;
};

enum diff_fail_on { FAIL_ON_REGRESSION, FAIL_ON_ANY, FAIL_ON_NONE };

struct diff_opts {
	const char *format; /* text, markdown, json */
	double threshold;   /* percentage points */
	double confidence;  /* family-wise, percent */
	enum diff_fail_on fail_on;
	int top;	/* rows shown in text and markdown; 0 = all */
	bool force;	/* symbolize profiles of rebuilt binaries */
	bool inclusive; /* compare inclusive samples (with the function
			 * anywhere on the stack), not self samples */
};

struct diff {
	const struct diff_opts *opts;
	struct diff_side base, new;
	struct diff_row *rows; /* flagged first, then by size of change */
	size_t nrows;
	size_t regressions, improvements;
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
int diff_side_add(struct diff_side *s, const char *name, const char *module,
		  uint64_t samples);

/* Match functions, test every change and classify.  0 or -1 (OOM). */
int diff_compute(struct diff *d);
void diff_fini(struct diff *d);

/* Whether the outcome fails the gate (--fail-on). */
bool diff_fails(const struct diff *d);

/* Statistics (diff/stats.c). */
double two_proportion_p(uint64_t x1, uint64_t n1, uint64_t x2, uint64_t n2);
void holm_significant(const double *p, size_t m, double alpha, bool *sig);

/* Output (diff/output.c).  0, or -1 on a write error. */
int diff_write(const struct diff *d, FILE *out);

const char *diff_status_name(enum diff_status s);

#endif /* PROFRUN_CLI_DIFF_H */

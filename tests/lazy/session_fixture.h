/*
 * What tests/lazy's suites (test_lazy, test_deferred, test_parallel)
 * share: a session of a compile mode, job count, cache directory and
 * derivative arithmetic; loading text and looking functions up, failing
 * the test with the library's message; functions' values at a fixed set
 * of points, and the check that lazy compilation gives eager's bits; and
 * bench/compile's generated modules.
 */
#ifndef TANJIT_TESTS_LAZY_SESSION_FIXTURE_H
#define TANJIT_TESTS_LAZY_SESSION_FIXTURE_H

#include "tanjit/tanjit.h"

typedef double (*fn1)(double);

typedef struct fixture_options {
  tanjit_compile_mode mode;
  const char *cache_dir; /* NULL: none */
  unsigned jobs;         /* 0: the number of cores */
  tanjit_derivative_fp derivative_fp;
} fixture_options;

tanjit_session *fixture_session(fixture_options o);
/* Loads `text` as m.ll. */
void fixture_load(tanjit_session *s, const char *text);
fn1 fixture_lookup(tanjit_session *s, const char *name);

/* The points every suite evaluates its functions at. */
#define FIXTURE_N_POINTS 5
extern const double fixture_points[FIXTURE_N_POINTS];

/* names[k] (k < n) at each point, into out[k * FIXTURE_N_POINTS + i], in a
 * fresh session of `o` that loaded `text`; that session's stats into *st
 * unless st is NULL. */
void fixture_values(fixture_options o, const char *text, const char *const *names,
                    int n, double *out, tanjit_stats *st);
/* names[k] (k < n, at most 12) at each point have the same bits compiled
 * lazily as eagerly, under o's other options (o.mode is ignored). */
void fixture_assert_lazy_matches_eager(fixture_options o, const char *text,
                                       const char *const *names, int n);

/* N functions f<i> with a request each (df<i>), as bench/compile
 * generates, plus a driver `sum` adding every derivative.  Caller frees. */
char *fixture_generated_module(int n);
/* What that module's df<i> returns at x: f<i>'s derivative,
 * (2 k_i x cos(x^2) + exp(x)) / c_i with k_i = 1 + i/7, c_i = 3 + i/7. */
double fixture_generated_derivative(int i, double x);

/* N functions f<i> = c_i * sq(x) + tail(x) * k[i] with a request each (df<i>),
 * where sq and tail are shared by all (so their derivatives are shared,
 * fast-math code called from fast-math code), k a constant table, and
 * drivers `sum` (adding every derivative of x) and `at_constants` (every
 * derivative at constant points, foldable where inlined).  Code where
 * fast-math regrouping would give other bits wherever one compile inlines
 * across functions and another does not.  Caller frees. */
char *fixture_fast_math_module(int n);

#endif

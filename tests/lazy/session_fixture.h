/*
 * What tests/lazy's suites (test_lazy, test_parallel) share: a session of
 * a compile mode, job count, cache directory and derivative arithmetic;
 * loading text and looking functions up, failing the test with the
 * library's message; and bench/compile's generated modules.
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

/* N functions f<i> with a request each (df<i>), as bench/compile
 * generates, plus a driver `sum` adding every derivative.  Caller frees. */
char *fixture_generated_module(int n);

/* N functions f<i> = c_i * sq(x) + tail(x) * k[i] with a request each (df<i>),
 * where sq and tail are shared by all (so their derivatives are shared,
 * fast-math code called from fast-math code), k a constant table, and
 * drivers `sum` (adding every derivative of x) and `at_constants` (every
 * derivative at constant points, foldable where inlined).  Code where
 * fast-math regrouping would give other bits wherever one compile inlines
 * across functions and another does not.  Caller frees. */
char *fixture_fast_math_module(int n);

#endif

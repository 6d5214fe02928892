#include "session_fixture.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

tanjit_session *fixture_session(fixture_options fo) {
  tanjit_options o;
  tanjit_options_init(&o);
  o.compile_mode = fo.mode;
  o.jobs = fo.jobs;
  o.cache_dir = fo.cache_dir;
  o.derivative_fp = fo.derivative_fp;
  tanjit_error *err = NULL;
  tanjit_session *s = tanjit_session_new(&o, &err);
  ck_assert_msg(s, "%s", err ? tanjit_error_message(err) : "");
  return s;
}

void fixture_load(tanjit_session *s, const char *text) {
  tanjit_error *err = NULL;
  int rc = tanjit_load_memory(s, text, strlen(text), "m.ll", &err);
  ck_assert_msg(rc == 0, "%s", err ? tanjit_error_message(err) : "");
}

fn1 fixture_lookup(tanjit_session *s, const char *name) {
  tanjit_error *err = NULL;
  fn1 f = (fn1)tanjit_lookup_function(s, name, &err);
  ck_assert_msg(f, "%s: %s", name, err ? tanjit_error_message(err) : "");
  return f;
}

const double fixture_points[FIXTURE_N_POINTS] = {0.25, 0.5, 1.0, 1.75, 3.0};

void fixture_values(fixture_options o, const char *text, const char *const *names,
                    int n, double *out, tanjit_stats *st) {
  tanjit_session *s = fixture_session(o);
  fixture_load(s, text);
  for (int k = 0; k < n; k++) {
    fn1 f = fixture_lookup(s, names[k]);
    for (int i = 0; i < FIXTURE_N_POINTS; i++)
      out[k * FIXTURE_N_POINTS + i] = f(fixture_points[i]);
  }
  if (st)
    tanjit_session_stats(s, st);
  tanjit_session_free(s);
}

void fixture_assert_lazy_matches_eager(fixture_options o, const char *text,
                                       const char *const *names, int n) {
  enum { MAX_VALUES = 12 * FIXTURE_N_POINTS };
  double eager[MAX_VALUES], lazy[MAX_VALUES];
  ck_assert_int_le(n * FIXTURE_N_POINTS, MAX_VALUES);
  o.mode = TANJIT_COMPILE_EAGER;
  fixture_values(o, text, names, n, eager, NULL);
  o.mode = TANJIT_COMPILE_LAZY;
  fixture_values(o, text, names, n, lazy, NULL);
  for (int i = 0; i < n * FIXTURE_N_POINTS; i++)
    ck_assert_msg(memcmp(&eager[i], &lazy[i], sizeof(double)) == 0,
                  "%s(%g): eager %.17g, lazy %.17g", names[i / FIXTURE_N_POINTS],
                  fixture_points[i % FIXTURE_N_POINTS], eager[i], lazy[i]);
}

char *fixture_generated_module(int n) {
  size_t cap = 4096 + (size_t)n * 1024;
  char *text = malloc(cap);
  ck_assert_ptr_nonnull(text);
  size_t at = (size_t)snprintf(text, cap,
                               "declare double @llvm.sin.f64(double)\n"
                               "declare double @llvm.exp.f64(double)\n"
                               "declare double @__enzyme_fwddiff(ptr, ...)\n");
  for (int i = 0; i < n; i++)
    at += (size_t)snprintf(
        text + at, cap - at,
        "define double @f%d(double %%x) {\n"
        "  %%a = fmul double %%x, %%x\n"
        "  %%b = call double @llvm.sin.f64(double %%a)\n"
        "  %%c = fmul double %%b, %.17e\n"
        "  %%d = call double @llvm.exp.f64(double %%x)\n"
        "  %%e = fadd double %%c, %%d\n"
        "  %%g = fdiv double %%e, %.17e\n"
        "  ret double %%g\n"
        "}\n"
        "define double @df%d(double %%x) {\n"
        "  %%r = call double (ptr, ...) @__enzyme_fwddiff(ptr @f%d, double %%x, double 1.0)\n"
        "  ret double %%r\n"
        "}\n",
        i, 1.0 + i / 7.0, 3.0 + i / 7.0, i, i);
  at += (size_t)snprintf(text + at, cap - at,
                         "define double @sum(double %%x) {\n  %%s0 = fadd double 0.0, 0.0\n");
  for (int i = 0; i < n; i++)
    at += (size_t)snprintf(text + at, cap - at,
                           "  %%t%d = call double @df%d(double %%x)\n"
                           "  %%s%d = fadd double %%s%d, %%t%d\n",
                           i, i, i + 1, i, i);
  snprintf(text + at, cap - at, "  ret double %%s%d\n}\n", n);
  return text;
}

double fixture_generated_derivative(int i, double x) {
  double k = 1.0 + i / 7.0, c = 3.0 + i / 7.0;
  return (2 * k * x * cos(x * x) + exp(x)) / c;
}

char *fixture_fast_math_module(int n) {
  size_t cap = 8192 + (size_t)n * 1600;
  char *text = malloc(cap);
  ck_assert_ptr_nonnull(text);
  size_t at = (size_t)snprintf(
      text, cap,
      "declare double @llvm.sin.f64(double)\n"
      "declare double @llvm.exp.f64(double)\n"
      "declare double @__enzyme_fwddiff(ptr, ...)\n"
      "define double @sq(double %%x) {\n"
      "  %%a = fmul double %%x, 0x3FB999999999999A\n"
      "  %%b = fmul double %%a, %%x\n"
      "  %%c = fmul double %%b, 0x3FD3333333333333\n"
      "  ret double %%c\n"
      "}\n"
      "define double @tail(double %%x) {\n"
      "  %%s = call double @llvm.sin.f64(double %%x)\n"
      "  %%e = call double @llvm.exp.f64(double %%s)\n"
      "  %%m = fmul double %%e, 0x3FF1C71C71C71C72\n"
      "  %%t = fadd double %%m, %%x\n"
      "  ret double %%t\n"
      "}\n");
  at += (size_t)snprintf(text + at, cap - at, "@k = constant [%d x double] [", n);
  for (int i = 0; i < n; i++)
    at += (size_t)snprintf(text + at, cap - at, "%sdouble %.17e", i ? ", " : "",
                           0.1 + i / 3.0);
  at += (size_t)snprintf(text + at, cap - at, "]\n");
  for (int i = 0; i < n; i++)
    at += (size_t)snprintf(
        text + at, cap - at,
        "define double @f%d(double %%x) {\n"
        "  %%a = call double @sq(double %%x)\n"
        "  %%c = fmul double %%a, %.17e\n"
        "  %%t = call double @tail(double %%x)\n"
        "  %%p = getelementptr [%d x double], ptr @k, i64 0, i64 %d\n"
        "  %%k = load double, ptr %%p\n"
        "  %%u = fmul double %%t, %%k\n"
        "  %%e = fadd double %%c, %%u\n"
        "  %%g = fmul double %%e, %.17e\n"
        "  ret double %%g\n"
        "}\n"
        "define double @df%d(double %%x) {\n"
        "  %%r = call double (ptr, ...) @__enzyme_fwddiff(ptr @f%d, double %%x, double 1.0)\n"
        "  ret double %%r\n"
        "}\n",
        i, 1.0 + i / 7.0, n, i, 0.3 + i / 11.0, i, i);
  at += (size_t)snprintf(text + at, cap - at,
                         "define double @sum(double %%x) {\n  %%s0 = fadd double 0.0, 0.0\n");
  for (int i = 0; i < n; i++)
    at += (size_t)snprintf(text + at, cap - at,
                           "  %%t%d = call double @df%d(double %%x)\n"
                           "  %%s%d = fadd double %%s%d, %%t%d\n",
                           i, i, i + 1, i, i);
  at += (size_t)snprintf(text + at, cap - at, "  ret double %%s%d\n}\n", n);
  /* x only scales the sum: the derivatives are taken at constants */
  at += (size_t)snprintf(text + at, cap - at,
                         "define double @at_constants(double %%x) {\n"
                         "  %%s0 = fadd double 0.0, 0.0\n");
  for (int i = 0; i < n; i++)
    at += (size_t)snprintf(text + at, cap - at,
                           "  %%t%d = call double @df%d(double %.17e)\n"
                           "  %%s%d = fadd double %%s%d, %%t%d\n",
                           i, i, 0.7 + i / 13.0, i + 1, i, i);
  snprintf(text + at, cap - at, "  %%r = fmul double %%s%d, %%x\n  ret double %%r\n}\n", n);
  return text;
}

// A catch after an exception from an active callee (C++ with exceptions
// on): the reverse runs the adjoint of what ran, the callees' part up to
// the throw and the handler.  step() updates x in place and fills a
// scratch array (new[], freed by a destructor on the way out: a cleanup
// pad in step) before a nested callee (checked) throws after writing an
// out-parameter; a recursive callee throws from its depth; the caller
// catches each in a loop and goes on with a value of its own.  Entries
// that throw and entries that do not, checked against finite differences
// from nonzero shadows (x is overwritten, so its seeds are the adjoints
// of its final values).
#include "rev_check.h"

struct bad_step {
  int by; /* a float thrown would have no shadow (README: refused) */
};

struct scratch {
  double *p;
  explicit scratch(int n) : p(new double[n]) {}
  ~scratch() { delete[] p; }
};

__attribute__((noinline)) static void checked(double v, double *out) {
  *out = v * std::cos(v);
  if (v > 3.0)
    throw bad_step{3};
}

__attribute__((noinline)) static double step(double *x, int i, int n) {
  scratch s(n);
  x[i] = x[i] * 1.5 + std::sin(x[(i + 1) % n]);
  for (int k = 0; k < n; k++)
    s.p[k] = x[k] * x[i];
  double o = 0;
  checked(x[i], &o);
  x[(i + 2) % n] += o * s.p[(i + 1) % n];
  return o + s.p[i];
}

__attribute__((noinline)) static double deep(double v, int d) {
  if (d == 0) {
    if (v > 2.0)
      throw bad_step{d - 2};
    return v;
  }
  return std::exp(0.1 * v) * deep(v * 1.1, d - 1);
}

static double f(double *x, int n) {
  double r = 0;
  for (int i = 0; i < n; i++) {
    try {
      r += step(x, i, n);
    } catch (const bad_step &e) {
      r += 2 * x[i] + e.by * x[(i + 3) % n];
    }
  }
  try {
    r += deep(x[0], 3);
  } catch (const bad_step &e) {
    r -= e.by * x[1];
  }
  try {
    r += deep(x[2] * 0.1, 2);
  } catch (const bad_step &e) {
    r -= 100;
  }
  return r;
}

/* step throws at entries 1 and 4 (x[i] there ends above 3), not at the
 * others; the first deep throws, the second does not */
RC_ARRAY_TEST_AS("cpp_catch_callee_eh", RC_UNMARKED, f, 6, 1.9, 2.6, 0.4, -0.5,
                 2.2, 0.3)

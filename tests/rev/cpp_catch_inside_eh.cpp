// try/catch inside the differentiated function (C++ with exceptions on):
// entries out of bounds throw from the function's own body (two throw
// sites, each after work of its own in the throwing block) and the
// handler computes another value of them, which the gradient follows:
// the catch path's derivative is the handler's.  A callee with its own
// try/catch too, and the thrown object read in the handler.  Entries on
// both sides of the bound, checked against finite differences from
// nonzero shadows.
#include "rev_check.h"

struct too_big {
  int at;
};

__attribute__((noinline)) static double damped(double v, double k) {
  try {
    if (v * k > 4.0)
      throw too_big{1};
    return v * std::exp(-k * v);
  } catch (const too_big &e) {
    return e.at * std::log(1 + v * v) + k;
  }
}

static double f(double *x, int n) {
  double r = 0;
  for (int i = 0; i < n; i++) {
    try {
      if (x[i] > 2.0) {
        r += x[i] * std::sin(x[i]); /* in the throwing block */
        throw too_big{i};
      }
      if (x[i] < -1.0) {
        r -= x[i] * x[i] * x[(i + 1) % n];
        throw too_big{-i};
      }
      r += x[i] * x[i] * std::sin(x[(i + 1) % n]);
    } catch (const too_big &e) {
      r += 3 * x[i] + std::cos(x[i]) * (e.at + 1);
    }
    r += damped(x[i], x[(i + 2) % n]);
  }
  return r;
}

RC_ARRAY_TEST_AS("cpp_catch_inside_eh", RC_UNMARKED, f, 6, 0.5, 2.5, -1.2, 3.1,
                 1.9, 2.2)

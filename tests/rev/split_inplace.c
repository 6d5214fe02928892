#include <math.h>
#include "rev_check.h"
#include "split_abi.h"
/* Split mode: the augmented pass in one function, the reverse in another
 * (the tape outlives the frame that made it), an in-place update in a
 * loop with a data-dependent trip count, and a result seed other than 1. */
augmented __enzyme_augmentfwd(void *, ...);
void __enzyme_reverse(void *, ...);

enum { N = 4 };
static const double result_seed = 2.5;

static double f(double *x, int n) {
  int steps = 0;
  while (steps < 10 && fabs(x[0]) < 3) {
    for (int i = 0; i < n; i++)
      x[i] = x[i] + 0.25 * sin(x[(i + 1) % n]) * x[i];
    steps++;
  }
  double s = 0;
  for (int i = 0; i < n; i++)
    s += x[i] * x[i];
  return s;
}

static __attribute__((noinline)) augmented forward(double *x, double *dx) {
  return __enzyme_augmentfwd((void *)f, enzyme_dup, x, dx, enzyme_const, N);
}
static __attribute__((noinline)) void reverse(double *x, double *dx,
                                              void *tape) {
  __enzyme_reverse((void *)f, enzyme_dup, x, dx, enzyme_const, N, result_seed,
                   tape);
}

static long double run(const long double *p) {
  double x[N];
  for (int i = 0; i < N; i++)
    x[i] = (double)p[i];
  long double r = result_seed * f(x, N);
  for (int i = 0; i < N; i++)
    r += rc_seed_value(i) * (long double)x[i];
  return r;
}

int main(void) {
  double x0[N] = {0.7, -0.4, 1.1, 0.2}, x[N], dx[N], y[N];
  long double p[N], got[N];
  for (int i = 0; i < N; i++)
    x[i] = y[i] = x0[i], p[i] = x0[i];
  rc_seed(dx, N);
  augmented a = forward(x, dx);
  rc_expect("split_inplace primal", a.primal, f(y, N), 1e-12);
  for (int i = 0; i < N; i++)
    rc_expect("split_inplace x after", x[i], y[i], 1e-12);
  reverse(x, dx, a.tape);
  for (int i = 0; i < N; i++)
    got[i] = dx[i];
  rc_check("split_inplace", run, p, got, N);
  return rc_result();
}

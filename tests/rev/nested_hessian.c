/* Reverse over reverse through a loop: the inner gradient goes into a
 * buffer (enzyme_dup), one of its entries is the outer function, whose
 * gradient is a column of the Hessian, checked against finite differences
 * of the analytic gradient. */
#include <math.h>
#include "rev_check.h"

#define N 5

static double f(const double *x, int n) {
  double s = 0;
  for (int i = 0; i + 1 < n; i++)
    s += x[i] * x[i] * x[i + 1] + sin(x[i] * x[i + 1]);
  for (int i = 0; i < n; i++)
    s += exp(0.1 * x[i]) * x[i];
  return s;
}

/* entry k of f's gradient, computed by reverse mode into a buffer */
static double grad_entry(const double *x, int k) {
  double dx[N] = {0};
  __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, N);
  return dx[k];
}

static long double grad_exact(const long double *x, int k) {
  long double g = expl(0.1L * x[k]) * (1 + 0.1L * x[k]);
  if (k + 1 < N)
    g += 2 * x[k] * x[k + 1] + cosl(x[k] * x[k + 1]) * x[k + 1];
  if (k > 0)
    g += x[k - 1] * x[k - 1] + cosl(x[k - 1] * x[k]) * x[k - 1];
  return g;
}

static int column;
static long double run(const long double *p) { return grad_exact(p, column); }

int main(void) {
  double x0[N] = {0.3, -0.8, 1.1, 0.5, -1.4};
  long double p[N];
  for (int i = 0; i < N; i++)
    p[i] = x0[i];
  for (column = 0; column < N; column++) {
    double x[N], h[N];
    long double got[N];
    for (int i = 0; i < N; i++)
      x[i] = x0[i];
    rc_seed(h, N);
    __enzyme_autodiff((void *)grad_entry, enzyme_dup, x, h, enzyme_const,
                      column);
    for (int i = 0; i < N; i++)
      got[i] = h[i] - rc_seed_value(i); /* += into the seeded shadow */
    rc_check("hessian column", run, p, got, N);
    rc_expect("gradient entry", grad_entry(x0, column), grad_exact(p, column),
              1e-12L);
  }
  return rc_result();
}

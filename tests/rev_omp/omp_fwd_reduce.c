/* Forward mode (__enzyme_fwddiff) over the constructs of the reverse
 * programs beside it: a reduction (combined under the reduction's lock
 * with its tangent), a dynamic schedule over uneven work, and an atomic
 * add of doubles into shared bins.  The tangent of the result and of every
 * element of x after the call, along a nonzero direction, each against a
 * central finite difference along it. */
#define RC_OWN_PROTOTYPE
#include <math.h>
#include "rev_check.h"
double __enzyme_fwddiff(void *, ...);
enum { N = 17, BINS = 3 };
static double omp_fwd_reduce(double *x, int n) {
  double s = 0;
#pragma omp parallel
  {
#pragma omp for schedule(dynamic, 2) reduction(+ : s)
    for (int i = BINS; i < n; i++) {
      double v = x[i];
      for (int k = 0; k < i; k++)
        v = sin(v) * x[0] + 0.5 * v;
      s += v * v;
    }
#pragma omp for
    for (int i = BINS; i < n; i++) {
#pragma omp atomic
      x[i % BINS] += x[i] * s;
    }
  }
  return s * x[1];
}
static const double x0[N] = {0.4, -1.0, 1.5, 0.75, 2.0, -0.25, 0.3, 1.1, -0.6,
                             0.45, 1.2, -1.3, 0.8, 0.2, -0.9, 0.65, -0.35};
static int output; /* 0: the result; j > 0: x[j - 1] after the call */
static long double run(const long double *p) {
  double x[N];
  for (int i = 0; i < N; i++)
    x[i] = x0[i] + (double)p[0] * rc_seed_value(i);
  double r = omp_fwd_reduce(x, N);
  return output == 0 ? r : x[output - 1];
}
int main(void) {
  double x[N], dx[N];
  for (int i = 0; i < N; i++)
    x[i] = x0[i];
  rc_seed(dx, N);
  double dr = __enzyme_fwddiff((void *)omp_fwd_reduce, enzyme_dup, x, dx,
                               enzyme_const, N);
  long double t0 = 0, got;
  for (output = 0; output <= N; output++) {
    got = output == 0 ? dr : dx[output - 1];
    rc_check("omp_fwd_reduce", run, &t0, &got, 1);
  }
  return rc_result();
}

/* Forward mode over a parallel region (__enzyme_fwddiff): the outlined
 * function's derivative forked in its place.  A worksharing loop in place
 * reading a shared element and thread-local sums added in a critical
 * section; the tangent of the result and of every element of x after the
 * call, along a nonzero direction, each against a central finite
 * difference along it. */
#define RC_OWN_PROTOTYPE
#include <math.h>
#include "rev_check.h"
double __enzyme_fwddiff(void *, ...);
enum { N = 15 };
static double omp_fwd(double *x, int n) {
  double total = 0;
#pragma omp parallel
  {
    double s = 0;
#pragma omp for
    for (int i = 1; i < n; i++) {
      x[i] = x[i] * x[0] + sin(x[i]);
      s += x[i] * x[i];
    }
#pragma omp critical
    total += sqrt(s + 1);
  }
  return total * x[0];
}
static const double x0[N] = {0.4, -1.0, 1.5, 0.75, 2.0, -0.25, 0.3, 1.1,
                             -0.6, 0.45, 1.2, -1.3, 0.8, 0.2, -0.9};
static int output; /* 0: the result; j > 0: x[j - 1] after the call */
static long double run(const long double *p) {
  double x[N];
  for (int i = 0; i < N; i++)
    x[i] = x0[i] + (double)p[0] * rc_seed_value(i);
  double r = omp_fwd(x, N);
  return output == 0 ? r : x[output - 1];
}
int main(void) {
  double x[N], dx[N];
  for (int i = 0; i < N; i++)
    x[i] = x0[i];
  rc_seed(dx, N);
  double dr = __enzyme_fwddiff((void *)omp_fwd, enzyme_dup, x, dx,
                               enzyme_const, N);
  long double t0 = 0, got;
  for (output = 0; output <= N; output++) {
    got = output == 0 ? dr : dx[output - 1];
    rc_check("omp_fwd", run, &t0, &got, 1);
  }
  return rc_result();
}

/* firstprivate(c): every thread's copy starts from c, so c's adjoint (an
 * enzyme_out scalar, which clang passes into the region as its i64 bits)
 * is the sum of the threads'; the copy is overwritten per iteration, so
 * the derivative depends on which iterations each thread runs. */
#define RC_OWN_PROTOTYPE
#include <math.h>
#include "rev_check.h"
double __enzyme_autodiff(void *, ...);
enum { N = 23 };
static void omp_firstprivate(double *x, double c, int n) {
#pragma omp parallel for firstprivate(c)
  for (int i = 0; i < n; i++) {
    x[i] = x[i] * c + sin(c);
    c = c * 0.5 + x[i];
  }
}
static long double run(const long double *p) {
  double x[N];
  for (int i = 0; i < N; i++)
    x[i] = (double)p[i];
  omp_firstprivate(x, (double)p[N], N);
  long double r = 0;
  for (int i = 0; i < N; i++)
    r += rc_seed_value(i) * (long double)x[i];
  return r;
}
int main(void) {
  double x[N], dx[N];
  long double p[N + 1], got[N + 1];
  for (int i = 0; i < N; i++)
    x[i] = p[i] = 0.1 * (i % 9) - 0.35;
  p[N] = 0.8;
  rc_seed(dx, N);
  double dc = __enzyme_autodiff((void *)omp_firstprivate, enzyme_dup, x, dx,
                                enzyme_out, 0.8, enzyme_const, N);
  for (int i = 0; i < N; i++)
    got[i] = dx[i];
  got[N] = dc;
  rc_check("omp_firstprivate", run, p, got, N + 1);
  return rc_result();
}

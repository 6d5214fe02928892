/* enzyme_runtime_activity: a duplicated pointer passed as its own shadow
 * is inactive memory (Enzyme's run-time activity).  The gradient with
 * respect to b is a's values, and a, passed as (a, a), is left as it was:
 * no adjoint is added into it.  In forward mode a's "tangent" is zero. */
#include "rev_check.h"

extern int enzyme_runtime_activity;
double __enzyme_fwddiff(void *, ...);

static double weighted(const double *a, const double *b, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += a[i] * b[i] * b[i] + sin(a[i]);
  return s;
}

int main(void) {
  enum { N = 4 };
  double a[N] = {0.5, -1.25, 2.0, 0.75}, b[N] = {1.5, 0.25, -0.5, 2.0};
  double db[N] = {0};
  __enzyme_autodiff((void *)weighted, enzyme_runtime_activity, enzyme_dup, a,
                    a, enzyme_dup, b, db, enzyme_const, N);
  static const double a0[N] = {0.5, -1.25, 2.0, 0.75};
  for (int i = 0; i < N; i++) {
    rc_expect("d/db", db[i], 2 * a0[i] * b[i], 1e-12);
    rc_expect("a, its own shadow, unchanged", a[i], a0[i], 0);
  }
  double tb[N] = {1, 0, 0, 1};
  double t = __enzyme_fwddiff((void *)weighted, enzyme_runtime_activity,
                              enzyme_dup, a, a, enzyme_dup, b, tb,
                              enzyme_const, N);
  rc_expect("forward: only b's tangent counts", t,
            2 * a0[0] * b[0] + 2 * a0[3] * b[3], 1e-12);
  return rc_result();
}

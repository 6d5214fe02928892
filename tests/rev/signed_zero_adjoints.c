/* Adjoints that nothing reaches, or that cancel, come back as +0.0, as
 * Enzyme's +0 accumulators give them: strict derivatives start each
 * adjoint at -0.0 (the exact additive identity, rev/adjoint.c), and the
 * gradient must not hand that sign to the caller.  Also run under
 * --strict-derivatives (meson.build's rev_strict_programs). */
#define RC_OWN_PROTOTYPE
#include <math.h>
#include "rev_check.h"
typedef struct { double da, db, dc; } grads3;
grads3 __enzyme_autodiff(void *, ...);
double __enzyme_autodiff1(void *, ...) __asm__("__enzyme_autodiff");

/* b enters only through a branch not taken; c through c - c */
static double f(double a, double b, double c) {
  double t = a > 0 ? a * a : b * a;
  return t + (c - c) * a;
}
static long double run(const long double *p) {
  return f((double)p[0], (double)p[1], (double)p[2]);
}
/* the pointer's shadow receives -x[1]'s partial on x[0] and nothing on x[2] */
static double g(const double *x) { return x[0] - x[1]; }
static long double run_g(const long double *p) {
  double x[3] = {(double)p[0], (double)p[1], (double)p[2]};
  return g(x) + (long double)x[0] * 0.25L + x[1] * 0.5L; /* + <seed, x> */
}

int main(void) {
  long double p[3] = {0.8, -1.5, 2.25}, got[3];
  grads3 d = __enzyme_autodiff((void *)f, 0.8, -1.5, 2.25);
  got[0] = d.da, got[1] = d.db, got[2] = d.dc;
  rc_check("signed_zero_adjoints", run, p, got, 3);
  rc_expect("db is +0", signbit(d.db) ? 1.0 : 0.0, 0.0, 0);
  rc_expect("dc is +0", signbit(d.dc) ? 1.0 : 0.0, 0.0, 0);

  double x[3] = {0.3, -0.7, 1.1}, dx[3] = {0.25, 0.5, 0.0};
  long double px[3] = {0.3, -0.7, 1.1}, gotx[3];
  __enzyme_autodiff1((void *)g, enzyme_dup, x, dx);
  for (int i = 0; i < 3; i++)
    gotx[i] = dx[i];
  rc_check("signed_zero_adjoints pointer", run_g, px, gotx, 3);
  rc_expect("dx[2] stays +0", signbit(dx[2]) ? 1.0 : 0.0, 0.0, 0);
  return rc_result();
}

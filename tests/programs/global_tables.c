/* Constant global tables read inside the differentiated code (inactive
 * coefficients), and a mutable integer global counter it increments: side
 * effects on inactive globals must happen exactly once per call. */
#include "enzyme.h"
#include "tangent_check.h"

static const double chebyshev[6] = {0.5, -1.0, 0.25, 0.125, -0.0625, 0.03};
int evaluations;

double chebyshev_sum(double x) {
  evaluations++;
  double t0 = 1.0, t1 = x, s = chebyshev[0] + chebyshev[1] * x;
  for (int k = 2; k < 6; k++) {
    double t2 = 2.0 * x * t1 - t0;
    s += chebyshev[k] * t2;
    t0 = t1;
    t1 = t2;
  }
  return s;
}

static double along(double t, void *ctx) {
  return chebyshev_sum(*(double *)ctx + t);
}

int main(void) {
  double x = 0.35;
  long double fd = fd_derivative(along, &x);
  /* T_k'(x) via U_{k-1}: d sum = sum c_k k U_{k-1}(x) */
  long double u0 = 1, u1 = 2.0L * x, want = chebyshev[1] * u0 + chebyshev[2] * 2 * u1;
  for (int k = 3; k < 6; k++) {
    long double u2 = 2.0L * x * u1 - u0;
    want += chebyshev[k] * k * u2;
    u0 = u1;
    u1 = u2;
  }
  check_reference("analytic", want, fd);
  evaluations = 0;
  check_tangent("d/dx", __enzyme_fwddiff((void *)chebyshev_sum, x, 1.0), want);
  tc_tangent("side effect once", evaluations, 1, 0, 0);
  return tc_finish("global_tables");
}

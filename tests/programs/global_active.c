/* Active values stored in a mutable global buffer and read back inside
 * the differentiated function: the global needs a shadow of its own (the
 * primal global must still receive the primal values). */
#include "enzyme.h"
#include "tangent_check.h"

#define N 4
double scratch[N];
double last_norm;

double through_global(const double *x) {
  for (int i = 0; i < N; i++)
    scratch[i] = x[i] * x[i] + (double)i;
  double s = 0.0;
  for (int i = 0; i < N; i++)
    s += sqrt(scratch[(i + 1) % N]);
  last_norm = s;
  return s * last_norm;
}

int main(void) {
  double x[N] = {1.0, -2.0, 0.5, 3.0}, dx[N] = {0.5, 1.0, -1.0, 0.25};
  long double s = 0, ds = 0;
  for (int i = 0; i < N; i++) {
    long double v = (long double)x[i] * x[i] + i;
    s += sqrtl(v);
    ds += x[i] * dx[i] / sqrtl(v);
  }
  check_tangent("d s^2", __enzyme_fwddiff((void *)through_global, enzyme_dup,
                                          x, dx),
                2 * s * ds);
  /* The primal side effects happened too. */
  check_primal_out("global scratch", scratch[3], 9.0L + 3);
  check_primal_out("global norm", last_norm, s);
  return tc_finish("global_active");
}

/* Vector forward mode, width 2, with arrays: an enzyme_dup pointer takes one
 * shadow per lane; the scalar result comes back as two tangents. */
#include "enzyme.h"
#include "tangent_check.h"

typedef struct {
  double d[2];
} tangents2;
tangents2 __enzyme_fwddiff_w2(void *, ...) asm("__enzyme_fwddiff");

double log_sum_exp(const double *x, int n) {
  double m = x[0];
  for (int i = 1; i < n; i++)
    m = x[i] > m ? x[i] : m;
  double s = 0.0;
  for (int i = 0; i < n; i++)
    s += exp(x[i] - m);
  return m + log(s);
}

#define N 5
int main(void) {
  double x[N] = {0.5, -1.0, 2.0, 1.5, 0.0};
  double d0[N] = {1, 0, 0, 0, 0}, d1[N] = {0.5, 1.0, -1.0, 2.0, 0.25};
  tangents2 g = __enzyme_fwddiff_w2((void *)log_sum_exp, enzyme_width, 2,
                                    enzyme_dup, x, d0, d1, enzyme_const, N);
  /* d lse = softmax(x) . dx */
  long double z = 0, w0 = 0, w1 = 0;
  for (int i = 0; i < N; i++)
    z += expl(x[i]);
  for (int i = 0; i < N; i++) {
    w0 += expl(x[i]) / z * d0[i];
    w1 += expl(x[i]) / z * d1[i];
  }
  check_tangent("lane 0", g.d[0], w0);
  check_tangent("lane 1", g.d[1], w1);
  check_primal("primal", log_sum_exp(x, N), logl(z));
  return tc_finish("width2_array");
}

/* A compare-and-swap sorting network on active values (branches at -O0,
 * selects or min/max at -O2), then a rank-weighted sum: the tangent of
 * each output is the tangent of whichever input landed there. */
#include "enzyme.h"
#include "tangent_check.h"

static void compare_swap(double *v, int i, int j) {
  if (v[i] > v[j]) {
    double t = v[i];
    v[i] = v[j];
    v[j] = t;
  }
}

double ranked_sum(const double *x) {
  double v[5];
  for (int i = 0; i < 5; i++)
    v[i] = x[i];
  static const int pairs[9][2] = {{0, 1}, {3, 4}, {2, 4}, {2, 3}, {0, 3},
                                  {0, 2}, {1, 4}, {1, 3}, {1, 2}};
  for (int k = 0; k < 9; k++)
    compare_swap(v, pairs[k][0], pairs[k][1]);
  double s = 0.0;
  for (int i = 0; i < 5; i++)
    s += (i + 1) * v[i] * v[i];
  return s;
}

int main(void) {
  double x[5] = {0.3, -1.2, 2.5, 0.9, -0.1};
  double dx[5] = {1.0, 2.0, 3.0, 4.0, 5.0};
  /* sorted: -1.2 (x1), -0.1 (x4), 0.3 (x0), 0.9 (x3), 2.5 (x2) */
  const int order[5] = {1, 4, 0, 3, 2};
  long double want = 0;
  for (int r = 0; r < 5; r++)
    want += 2.0L * (r + 1) * x[order[r]] * dx[order[r]];
  check_tangent("directional",
                __enzyme_fwddiff((void *)ranked_sum, enzyme_dup, x, dx), want);
  check_primal("primal", ranked_sum(x),
               1 * 1.44L + 2 * 0.01L + 3 * 0.09L + 4 * 0.81L + 5 * 6.25L);
  return tc_finish("sort_network");
}

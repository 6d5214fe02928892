/* A while loop whose exit depends on active values (a bisection-free
 * stepping search) and a goto-free early return from a nested loop. */
#include "enzyme.h"
#include "tangent_check.h"

/* Sum terms x^k/k! until they drop below a threshold: exp(x) - tail. */
double exp_until_small(double x) {
  double term = 1.0, sum = 1.0;
  int k = 0;
  while (fabs(term) > 1e-18) {
    k++;
    term *= x / k;
    sum += term;
  }
  return sum;
}

/* First entry of a matrix whose square exceeds a bound, times a factor. */
double first_large(const double *m, int rows, int cols, double bound) {
  for (int r = 0; r < rows; r++)
    for (int c = 0; c < cols; c++)
      if (m[r * cols + c] * m[r * cols + c] > bound)
        return m[r * cols + c] * (r + 1) * (c + 2);
  return 0.0;
}

int main(void) {
  const double xs[] = {-1.5, 0.3, 2.0};
  for (int i = 0; i < 3; i++)
    check_tangent("exp series", __enzyme_fwddiff((void *)exp_until_small, xs[i],
                                                 1.0),
                  expl(xs[i]));
  double m[6] = {0.1, -0.2, 0.3, 0.5, -2.0, 4.0};
  double dm[6] = {1, 1, 1, 1, 0.5, 1};
  /* -2.0 at (1, 1) is the first with square above 1: 2*3*dm = 3. */
  check_tangent("early return",
                __enzyme_fwddiff((void *)first_large, enzyme_dup, m, dm,
                                 enzyme_const, 2, enzyme_const, 3,
                                 enzyme_const, 1.0),
                0.5L * 2 * 3);
  return tc_finish("while_early_exit");
}

/* A loop whose trip count is an integer argument (enzyme_const) and whose
 * accumulator is a loop-carried double: phi nodes carry tangents. */
#include "enzyme.h"
#include "tangent_check.h"

double damped_sum(double x, int n) {
  double acc = 0.0, term = 1.0;
  for (int i = 0; i < n; i++) {
    term *= x / (i + 1);
    acc += term * (i % 2 ? -1.0 : 1.0);
  }
  return acc; /* 1 - exp(-x), truncated */
}

struct point { double x; int n; };
static double along(double t, void *ctx) {
  struct point *p = ctx;
  return damped_sum(p->x + t, p->n);
}

int main(void) {
  const double xs[] = {0.2, 1.0, 2.5};
  const int ns[] = {1, 5, 30};
  for (int i = 0; i < 3; i++) {
    for (int j = 0; j < 3; j++) {
      struct point p = {xs[i], ns[j]};
      double t = __enzyme_fwddiff((void *)damped_sum, xs[i], 1.0, enzyme_const,
                                  ns[j]);
      check_tangent_fd("d damped_sum/dx", t, fd_derivative(along, &p));
    }
  }
  /* Thirty terms are 1 - exp(-x) to double precision, so d/dx = exp(-x). */
  check_tangent("d damped_sum(1.0, 30)",
                __enzyme_fwddiff((void *)damped_sum, 1.0, 1.0, enzyme_const, 30),
                expl(-1.0L));
  check_tangent("zero trips",
                __enzyme_fwddiff((void *)damped_sum, 1.0, 1.0, enzyme_const, 0),
                0.0L);
  check_primal("primal", damped_sum(1.0, 30), 1.0L - expl(-1.0L));
  return tc_finish("loop_accumulate");
}

/* A mutable global accumulator updated inside the differentiated function,
 * asked for repeatedly.  As in Enzyme (an unannotated global's shadow is
 * local to the derivative call and starts at zero), each request starts the
 * global's tangent from zero: the tangent of one request is not carried
 * into the next, whose derivative is then that of its own call alone. */
#include "enzyme.h"
#include "tangent_check.h"

double total = 0.0;
double history[3];

double accumulate(double x) {
  total += x * x;
  history[0] = history[1];
  history[1] = history[2];
  history[2] = total * x;
  return total + history[1];
}

__attribute__((noinline)) void bump(double x) { total += 3.0 * x; }
double through_callee(double x) {
  bump(x);
  return total * 2.0;
}

int main(void) {
  double x = 1.5;
  for (int round = 0; round < 3; round++) {
    /* total' = 2x within this request alone; history[1]' is the tangent of
     * an earlier request's history[2] only through primal values (its
     * tangent was that request's), so it starts at zero too */
    double d = __enzyme_fwddiff((void *)accumulate, x, 1.0);
    check_tangent("accumulate, repeated", d, 2.0L * x);
  }
  for (int round = 0; round < 2; round++) {
    double d = __enzyme_fwddiff((void *)through_callee, x, 1.0);
    check_tangent("accumulate in a callee, repeated", d, 6.0L);
  }
  return tc_finish("global_shadow_per_request");
}

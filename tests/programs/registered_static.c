/* Enzyme's in-IR registrations naming small static functions, the kind
 * clang -O1 and up inlines into their callers: run as C through the CLI
 * (tanjit compiles it), each registration must still apply at every -O
 * level.  Every rule gives a derivative the function's own body would not,
 * so an inlined body shows as a mismatch:
 *  - cube_: registered derivative 7 * dx (its body's would be 3x^2 dx), and
 *    counts its calls;
 *  - log_like: declared function-like "log" (tangent dx/x), its body a
 *    deliberately different polynomial;
 *  - noisy_gain: declared inactive (tangent 0), its body linear in x;
 *  - stop_gradient: declared inactive, already noinline, its body the
 *    identity, which interprocedural passes would otherwise fold into the
 *    caller (`returned` argument) even though the call is never inlined. */
#include "enzyme.h"
#include "tangent_check.h"

static void cube_(const double *x, double *y) { *y = *x * *x * *x; }

static int cube_rule_calls;
static void cube_rule(const double *x, const double *dx, const double *y,
                      double *dy) {
  (void)x, (void)y;
  cube_rule_calls++;
  *dy = 7.0 * *dx;
}

void *__enzyme_register_derivative_cube[] = {(void *)cube_, (void *)cube_rule};

static double log_like(double x) { return x * x - 1.0; }
void *__enzyme_function_like[2] = {(void *)log_like, (void *)"log"};

static double noisy_gain(double x) { return 3.0 * x + 1.0; }
__attribute__((noinline)) static double stop_gradient(double x) { return x; }
void *__enzyme_inactivefn[] = {(void *)noisy_gain, (void *)stop_gradient};

double with_cube(double x) {
  double y;
  cube_(&x, &y);
  return y + x;
}

double with_log(double x) { return 2.0 * log_like(x); }

double with_gain(double x) { return noisy_gain(x) * x; }

double with_stop(double x) { return x * stop_gradient(x); }

int main(void) {
  double x = 1.5;
  check_tangent("registered cube", __enzyme_fwddiff((void *)with_cube, x, 1.0),
                7.0 + 1.0);
  check_int("registered rule calls", cube_rule_calls, 1);
  check_tangent("function-like log", __enzyme_fwddiff((void *)with_log, x, 1.0),
                2.0 / x);
  /* inactive: d/dx (g(x) * x) with g's tangent 0 is g(x) */
  check_tangent("inactive gain", __enzyme_fwddiff((void *)with_gain, x, 1.0),
                3.0 * x + 1.0);
  /* d/dx (x * stop(x)) with stop's tangent 0 is stop(x) = x */
  check_tangent("inactive identity",
                __enzyme_fwddiff((void *)with_stop, x, 1.0), x);
  check_primal("cube primal", with_cube(x), x * x * x + x);
  return tc_finish("registered_static");
}

/* Active globals crossing calls: a callee with no active argument reads a
 * global the caller wrote with an active value, a callee points a global
 * pointer at active memory that the caller then reads through, and a
 * callee writes a global the caller reads.  Each call needs the callee's
 * derivative although nothing active is passed to it. */
#include "enzyme.h"
#include "tangent_check.h"

double g_value;
double *g_pointer;
double g_square;

__attribute__((noinline)) double read_value(void) { return g_value * g_value; }
double set_then_read(double x) { /* x^2 */
  g_value = x;
  return read_value();
}

__attribute__((noinline)) void point_at(double *p) { g_pointer = p; }
double read_through_global(double *x) { /* x[0]^2 */
  point_at(x);
  return g_pointer[0] * g_pointer[0];
}

__attribute__((noinline)) void store_square(double x) { g_square = x * x; }
double square_twice(double x) { /* 2 x^2 */
  store_square(x);
  return g_square * 2.0;
}

int main(void) {
  check_tangent("callee reads an active global",
                __enzyme_fwddiff((void *)set_then_read, 3.0, 0.5), 3.0L);
  check_primal_out("g_value", g_value, 3.0L);
  double x = 3.0, dx = 2.0;
  check_tangent("global pointer set by a callee",
                __enzyme_fwddiff((void *)read_through_global, enzyme_dup, &x,
                                 &dx),
                12.0L);
  check_tangent("global written by a callee",
                __enzyme_fwddiff((void *)square_twice, 3.0, 1.0), 12.0L);
  check_primal_out("g_square", g_square, 9.0L);
  return tc_finish("global_callee_reads");
}

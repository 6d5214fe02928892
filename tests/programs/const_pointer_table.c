/* A constant table of pointers to mutable globals that receive active
 * values: a pointer loaded from it needs the shadow of its target, in
 * every lane of a vector request. */
#include "enzyme.h"
#include "tangent_check.h"

typedef struct {
  double d[2];
} tangents2;
tangents2 __enzyme_fwddiff_w2(void *, ...) asm("__enzyme_fwddiff");

double g_a, g_b;
static double *const table[2] = {&g_a, &g_b};

__attribute__((noinline)) double read_entry(double x, int i) {
  g_a = x * x;
  g_b = 3 * x;
  return *table[i];
}

__attribute__((noinline)) double write_entry(double x, int i) {
  g_a = 0;
  g_b = 0;
  *table[i] = x * x;
  return g_a + 2 * g_b;
}

int main(void) {
  check_tangent("read g_a through the table",
                __enzyme_fwddiff((void *)read_entry, 3.0, 1.0, 0), 6.0L);
  check_tangent("read g_b through the table",
                __enzyme_fwddiff((void *)read_entry, 3.0, 1.0, 1), 3.0L);
  tangents2 t = __enzyme_fwddiff_w2((void *)read_entry, enzyme_width, 2, 3.0,
                                    1.0, -2.0, 0);
  check_tangent("width 2, lane 0", t.d[0], 6.0L);
  check_tangent("width 2, lane 1", t.d[1], -12.0L);
  check_tangent("write g_a through the table",
                __enzyme_fwddiff((void *)write_entry, 3.0, 1.0, 0), 6.0L);
  check_primal_out("g_a", g_a, 9.0L);
  check_tangent("write g_b through the table",
                __enzyme_fwddiff((void *)write_entry, 3.0, 1.0, 1), 12.0L);
  check_primal_out("g_b", g_b, 9.0L);
  return tc_finish("const_pointer_table");
}

/* An array of structs with pointer, integer and double fields, copied with
 * memcpy from a constant template with a run-time length (n * sizeof): the
 * copy repeats a {pointer, int, int, double} pattern.  The pointers copied
 * from the constant source point into constant tables and must stay
 * inactive; the integers must not pick up shadow arithmetic; the one field
 * pointed at active data afterwards carries the derivative. */
#include <string.h>

#include "enzyme.h"
#include "tangent_check.h"

struct gather {
  const double *from; /* values to gather */
  int count;
  int step;
  double scale;
};

static const double ones[3] = {1.0, 1.0, 1.0};
static const double ramp[4] = {0.0, 1.0, 2.0, 3.0};

static const struct gather templates[3] = {
    {ones, 3, 1, 2.0},
    {ramp, 2, 2, -0.5},
    {ramp, 4, 1, 0.25},
};

double gather_energy(const double *x, int n) {
  struct gather g[3];
  memcpy(g, templates, (size_t)n * sizeof g[0]); /* run-time length */
  g[n - 1].from = x;                             /* the active one */
  double e = 0.0;
  for (int k = 0; k < n; k++)
    for (int i = 0; i < g[k].count; i++) {
      double v = g[k].from[i * g[k].step];
      e += g[k].scale * v * v * v;
    }
  return e;
}

int main(void) {
  double x[4] = {0.5, -1.0, 2.0, 1.5};
  double dx[4] = {1.0, 0.25, -2.0, 0.5};
  for (int n = 1; n <= 3; n++) {
    /* only template n-1 reads x: its count and step survive the copy */
    int count = templates[n - 1].count, step = templates[n - 1].step;
    long double want = 0;
    for (int i = 0; i < count; i++)
      want += templates[n - 1].scale * 3.0L * x[i * step] * x[i * step] *
              dx[i * step];
    check_tangent("d energy", __enzyme_fwddiff((void *)gather_energy,
                                               enzyme_dup, x, dx,
                                               enzyme_const, n),
                  want);
  }
  check_primal("primal", gather_energy(x, 2),
               2.0 * 3 + -0.5 * (0.125 + 8.0));
  return tc_finish("memcpy_struct_runtime");
}

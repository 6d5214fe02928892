/* An array of structs with pointer, int and double fields, initialised by
 * memcpy from a constant template and then pointed at active data: the
 * memcpy mixes pointer, integer and float bytes, and the copied pointers
 * into constant tables must stay inactive. */
#include <string.h>

#include "enzyme.h"
#include "tangent_check.h"

struct term {
  const double *data; /* where the values come from */
  int count;
  int stride;
  double weight;
};

static const double table_a[4] = {1.0, 2.0, 3.0, 4.0};
static const double table_b[2] = {-1.0, 0.5};

static const struct term template_terms[4] = {
    {table_a, 4, 1, 0.5},
    {NULL, 3, 2, 2.0}, /* filled with x below */
    {table_b, 2, 1, -1.0},
    {NULL, 2, 1, 1.5}, /* filled with x + 1 below */
};

double weighted_terms(const double *x) {
  struct term terms[4];
  memcpy(terms, template_terms, sizeof terms);
  terms[1].data = x;
  terms[3].data = x + 1;
  double s = 0.0;
  for (int t = 0; t < 4; t++)
    for (int i = 0; i < terms[t].count; i++) {
      double v = terms[t].data[i * terms[t].stride];
      s += terms[t].weight * v * v;
    }
  return s;
}

int main(void) {
  double x[6] = {0.5, -1.0, 2.0, 1.5, -0.25, 3.0};
  double dx[6] = {1.0, 0.5, -1.0, 2.0, 4.0, 0.125};
  /* term 1: x[0], x[2], x[4] with weight 2; term 3: x[1], x[2] weight 1.5 */
  long double want = 2 * 2.0L * (x[0] * dx[0] + x[2] * dx[2] + x[4] * dx[4]) +
                     2 * 1.5L * (x[1] * dx[1] + x[2] * dx[2]);
  check_tangent("directional", __enzyme_fwddiff((void *)weighted_terms,
                                                enzyme_dup, x, dx),
                want);
  check_primal("primal", weighted_terms(x),
               0.5L * 30 + 2.0L * (0.25 + 4 + 0.0625) - 1.25L +
                   1.5L * (1 + 4));
  return tc_finish("struct_array_memcpy");
}

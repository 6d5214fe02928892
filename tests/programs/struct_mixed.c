/* A struct with mixed fields (double, int, pointer to doubles) passed by
 * pointer with a shadow struct: the int field is inactive, the double field
 * and the pointed-to array carry tangents through the shadow's pointer. */
#include "enzyme.h"
#include "tangent_check.h"

struct model {
  double scale;
  int count;
  double *coef;
  double offset;
};

double evaluate(const struct model *m, double x) {
  double s = m->offset;
  double p = 1.0;
  for (int i = 0; i < m->count; i++) {
    s += m->coef[i] * p;
    p *= x;
  }
  return m->scale * s;
}

static double c0[4] = {1.0, -0.5, 0.25, 2.0};
static double dir_c[4] = {0.5, 1.0, -1.0, 0.25};
static const double dir_scale = -0.75, dir_offset = 2.0, dir_x = 0.5;

static double along(double t, void *ctx) {
  (void)ctx;
  double c[4];
  for (int i = 0; i < 4; i++)
    c[i] = c0[i] + t * dir_c[i];
  struct model m = {1.5 + t * dir_scale, 4, c, 0.3 + t * dir_offset};
  return evaluate(&m, 0.8 + t * dir_x);
}

int main(void) {
  double dc[4];
  for (int i = 0; i < 4; i++)
    dc[i] = dir_c[i];
  struct model m = {1.5, 4, c0, 0.3};
  /* The shadow has the same shape: its int is ignored, its pointer points
   * at the tangents of the coefficients. */
  struct model dm = {dir_scale, 4, dc, dir_offset};
  double t = __enzyme_fwddiff((void *)evaluate, enzyme_dup, &m, &dm, 0.8, dir_x);
  check_tangent_fd("directional", t, fd_derivative(along, NULL));
  check_int("count untouched", m.count, 4);
  check_int("shadow count untouched", dm.count, 4);
  return tc_finish("struct_mixed");
}

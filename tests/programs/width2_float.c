/* Vector forward mode on float code: width 2, a float array through
 * enzyme_dup with two shadows and a float result returned as two float
 * tangents (packed in one register by the C ABI). */
#include "enzyme.h"
#include "tangent_check.h"

typedef struct {
  float d[2];
} float_tangents2;
float_tangents2 __enzyme_fwddiff_w2f(void *, ...) asm("__enzyme_fwddiff");

float softplus_sum(const float *x, int n) {
  float s = 0.0f;
  for (int i = 0; i < n; i++)
    s += logf(1.0f + expf(x[i]));
  return s;
}

#define N 4
int main(void) {
  float x[N] = {-1.0f, 0.5f, 2.0f, 0.0f};
  float d0[N] = {1, 0, 0, 0}, d1[N] = {0.5f, -1.0f, 1.0f, 2.0f};
  float_tangents2 t = __enzyme_fwddiff_w2f((void *)softplus_sum, enzyme_width,
                                           2, enzyme_dup, x, d0, d1,
                                           enzyme_const, N);
  long double w0 = 0, w1 = 0;
  for (int i = 0; i < N; i++) {
    long double sig = 1 / (1 + expl(-(long double)x[i]));
    w0 += sig * d0[i];
    w1 += sig * d1[i];
  }
  check_tangent_float("lane 0", t.d[0], w0);
  check_tangent_float("lane 1", t.d[1], w1);
  return tc_finish("width2_float");
}

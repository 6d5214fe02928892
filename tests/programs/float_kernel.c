/* A float kernel over arrays: a smoothed soft-threshold of a float vector
 * through enzyme_dup pointers, writing a float result array; float
 * finite differences and float tolerances. */
#include "enzyme.h"
#include "tangent_check.h"

void __enzyme_fwddiff_void(void *, ...) asm("__enzyme_fwddiff");

void soft_shrink(const float *x, float *y, int n, float lambda) {
  for (int i = 0; i < n; i++) {
    float v = x[i];
    y[i] = v - lambda * v / sqrtf(v * v + 1.0f);
  }
}

#define N 5
static const float x0[N] = {-2.0f, -0.5f, 0.0f, 0.75f, 3.0f};
static const float dir[N] = {1.0f, -1.0f, 0.5f, 2.0f, 0.25f};
static int component;

static float along(float t, void *ctx) {
  (void)ctx;
  float x[N], y[N];
  for (int i = 0; i < N; i++)
    x[i] = x0[i] + t * dir[i];
  soft_shrink(x, y, N, 0.3f);
  return y[component];
}

int main(void) {
  float x[N], dx[N], y[N], dy[N];
  for (int i = 0; i < N; i++) {
    x[i] = x0[i];
    dx[i] = dir[i];
  }
  __enzyme_fwddiff_void((void *)soft_shrink, enzyme_dup, x, dx, enzyme_dup, y,
                        dy, enzyme_const, N, enzyme_const, 0.3f);
  for (int i = 0; i < N; i++) {
    long double v = x0[i];
    long double want = dir[i] * (1 - 0.3L / powl(v * v + 1, 1.5L));
    component = i;
    check_reference_float("analytic", want, fd_derivative_float(along, NULL));
    check_tangent_float("dy", dy[i], want);
  }
  return tc_finish("float_kernel");
}

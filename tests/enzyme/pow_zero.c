/*
 * Enzyme ForwardMode/pow_zero.c (built with -ffast-math like the original):
 * at x = 0, y = 1, d/dx x^y = 1 and d/dy x^y = x^y log x must come out as 0,
 * not 0 * -inf = NaN.
 */
#define ENZYME_COMPAT_OWN_PROTOTYPE
#include "enzyme_compat.h"

extern float __enzyme_fwddiff(float (*)(float, float), float, float, float,
                              float);

float f(float x, float y) { return __builtin_powf(x, y); }

int main(void) {
  float x = 0.0f;
  float y = 1.0f;
  float dx = __enzyme_fwddiff(f, x, 1.0f, y, 0.0f);
  float dy = __enzyme_fwddiff(f, x, 0.0f, y, 1.0f);

  APPROX_EQ(f(x, y), 0.0f, 1e-7);
  APPROX_EQ(dx, 1.0f, 1e-7);
  APPROX_EQ(dy, 0.0f, 1e-7);
  return enzyme_compat_result();
}

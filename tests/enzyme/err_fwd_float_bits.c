/* The fast inverse square root's bit hack on an active float: integer
 * arithmetic on its bits, turned back into a float, has no derivative
 * (holding the integer part constant gives a gradient 3% off). */
#include <stdint.h>
#include <string.h>
double __enzyme_fwddiff(void *, ...);
__attribute__((noinline)) static float q_rsqrt(float x) {
  int32_t i;
  memcpy(&i, &x, sizeof i);
  i = 0x5f3759df - (i >> 1);
  float y;
  memcpy(&y, &i, sizeof y);
  return y * (1.5f - 0.5f * x * y * y);
}
static double f(double x) { return q_rsqrt((float)x) * x; }
int main(void) { return __enzyme_fwddiff((void *)f, 2.0, 1.0) > 0; }

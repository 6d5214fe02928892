/*
 * Enzyme ForwardMode/sumtil.c (-ffast-math): a loop with an early exit that
 * also zeroes the elements it consumed, so their shadows are zeroed too.
 * (The original declares the request as returning void yet reads its
 * result; here it returns double.)
 */
#define ENZYME_COMPAT_OWN_PROTOTYPE
#include "enzyme_compat.h"

extern double __enzyme_fwddiff(void *, double *, double *, int);

double sumtil(double *vec, int size) {
  double ret = 0.0;
  for (int i = 0; i < size; i++) {
    ret += vec[i] * vec[i];
    if (ret > 30) break;
    ret += vec[i] * vec[i];
    vec[i] = 0;
  }
  return ret;
}

int main(void) {
  double vec[] = {1, 2., 3., 4., 5.};
  double d_vec[] = {2., 0., 1., 9., 8.};
  double d_ret = __enzyme_fwddiff((void *)sumtil, vec, d_vec, 5);

  double expected = 92.0;
  APPROX_EQ(d_ret, expected, 1e-7);

  double args[] = {0, 0, 0, 9, 8};
  for (int i = 0; i < 5; i++)
    APPROX_EQ(d_vec[i], args[i], 1e-7);
  return enzyme_compat_result();
}

/*
 * Enzyme ForwardMode/sumtil2.c (-ffast-math): a running sum that leaves its
 * loop early once it passes 15.
 */
#define ENZYME_COMPAT_OWN_PROTOTYPE
#include "enzyme_compat.h"

extern double __enzyme_fwddiff(void *, double *, double *, int);

double sumtil(double *vec, int size) {
  double ret = 0.0;
  for (int i = 0; i < size; i++) {
    ret += vec[i];
    if (ret > 15) break;
    ret += vec[i];
  }
  return ret;
}

int main(void) {
  double vec[] = {1, 2., 3., 4., 5.};
  double d_vec[] = {2., 0., 1., 9., 8.};
  double d_start = __enzyme_fwddiff((void *)sumtil, vec, d_vec, 5);

  APPROX_EQ(d_start, 15.0, 1e-10);
  return enzyme_compat_result();
}

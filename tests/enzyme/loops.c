/*
 * Enzyme ForwardMode/loops.c: a float sum accumulated in a double over one
 * loop; pointers passed without markers are duplicated.
 */
#include "enzyme_compat.h"

void compute_loops(float* a, float* b, float* ret) {
  double sum0 = 0.0;
  for (int i = 0; i < 100; i++) {
    sum0 += *a + *b;
  }
  *ret = sum0;
}

int main(void) {
  float a = 2.0;
  float b = 3.0;

  float da = 1.0;
  float db = 1.0;

  float ret = 0;
  float dret = 1.0;

  __enzyme_fwddiff((void *)compute_loops, &a, &da, &b, &db, &ret, &dret);

  APPROX_EQ(dret, 200.0, 1e-10);
  APPROX_EQ(ret, 200.0 * 2.5f, 1e-10);
  return enzyme_compat_result();
}

/*
 * Enzyme ForwardMode/loopstriple.c: the same sum over three nested loops.
 */
#include "enzyme_compat.h"

void compute_loops(float* a, float* b, float* ret) {
  double sum0 = 0.0;
  for (int i = 0; i < 100; i++) {
    double sum1 = 0.0;
    for (int j = 0; j < 100; j++) {
      double sum2 = 0.0;
      for (int k = 0; k < 100; k++) {
        sum2 += *a+*b;
      }
      sum1 += sum2;
    }
    sum0 += sum1;
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

  APPROX_EQ(dret, 100*100*100*2.0f, 1e-10);
  APPROX_EQ(ret, 100*100*100*2.0f * 2.5f, 1e-10);
  return enzyme_compat_result();
}

#define RC_OWN_PROTOTYPE
#include "rev_check.h"
/* three doubles come back through a hidden result pointer (sret) */
typedef struct { double d[3]; } grads3;
grads3 __enzyme_autodiff(void *, ...);
static double f(double a, int k, double b, double c) {
  return a * b * c + k * a * a - c / b;
}
static long double run(const long double *p) {
  return f((double)p[0], 3, (double)p[1], (double)p[2]);
}
int main(void) {
  long double p[3] = {0.7, 1.3, -0.4}, got[3];
  grads3 g = __enzyme_autodiff((void *)f, 0.7, enzyme_const, 3, 1.3, -0.4);
  for (int i = 0; i < 3; i++)
    got[i] = g.d[i];
  rc_check("three_adjoints", run, p, got, 3);
  return rc_result();
}

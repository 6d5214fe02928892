#include <math.h>
#include "rev_check.h"
static double f(double x) { return exp(x) * cos(x) / (1 + x * x); }
static long double run(const long double *p) { return f((double)p[0]); }
int main(void) {
  long double p[1] = {0.6}, got[1];
  got[0] = __enzyme_autodiff((void *)f, 0.6);
  rc_check("scalar_one", run, p, got, 1);
  return rc_result();
}

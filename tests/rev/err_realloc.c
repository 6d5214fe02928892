/* realloc of a block the caller passed in: its shadow is the caller's. */
#include <stdlib.h>
double __enzyme_autodiff(void *, ...);
static double f(double *x, int n) {
  x[0] *= 2;
  double *t = realloc(x, n * sizeof *t);
  for (int i = 1; i < n; i++)
    t[i] = t[0] * t[i - 1];
  return t[n - 1];
}
int main(void) {
  double *x = calloc(3, sizeof *x), *d = calloc(3, sizeof *d);
  x[0] = 1;
  __enzyme_autodiff((void *)f, x, d, 3);
  return d[0] != 6;
}

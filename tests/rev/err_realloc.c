/* realloc of active memory has no reverse-mode rule yet. */
#include <stdlib.h>
double __enzyme_autodiff(void *, ...);
static double f(double *x, int n) {
  double *t = malloc(sizeof *t);
  t[0] = x[0];
  t = realloc(t, n * sizeof *t);
  for (int i = 1; i < n; i++)
    t[i] = x[i] * t[i - 1];
  double r = t[n - 1];
  free(t);
  return r;
}
int main(void) {
  double x[3] = {1, 2, 3}, d[3] = {0, 0, 0};
  __enzyme_autodiff((void *)f, x, d, 3);
  return d[0] != 6;
}

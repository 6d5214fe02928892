/* enzyme_width > 1 of a function that both makes a shadow in its
 * augmented pass (a malloc'd float temporary) and writes its caller's
 * memory: neither one augmented pass nor one gradient per lane is exact. */
#include <stdlib.h>
extern int enzyme_width, enzyme_const;
void __enzyme_autodiff(void *, ...);
static void f(const double *x, double *out, int n) {
  double *t = malloc(n * sizeof *t);
  for (int i = 0; i < n; i++)
    t[i] = x[i] * x[(i + 1) % n];
  for (int i = 0; i < n; i++)
    out[i] = t[i] * t[n - 1 - i];
  free(t);
}
int main(void) {
  double x[2] = {2, 3}, out[2], dx1[2] = {0}, dx2[2] = {0}, do1[2] = {1, 0},
         do2[2] = {0, 1};
  __enzyme_autodiff((void *)f, enzyme_width, 2, x, dx1, dx2, out, do1, do2,
                    enzyme_const, 2);
  return dx1[0] != 72;
}

/* enzyme_width > 1 in split mode of a function whose augmented pass makes
 * a shadow (a malloc'd float temporary): split mode's lanes must share
 * one augmented pass. */
#include <stdlib.h>
extern int enzyme_width, enzyme_dup, enzyme_const;
void *__enzyme_augmentfwd(void *, ...);
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
  void *tape =
      __enzyme_augmentfwd((void *)f, enzyme_width, 2, enzyme_dup, x, dx1, dx2,
                          enzyme_dup, out, do1, do2, enzyme_const, 2);
  return tape == 0;
}

/* enzyme_width > 1 over a call with a custom gradient: its reverse may
 * free the tape its augmented half returned, so the lanes cannot share
 * one augmented pass, and f writes its caller's memory. */
#include <stdlib.h>
extern int enzyme_width;
void __enzyme_autodiff(void *, ...);
__attribute__((noinline)) static double g(double a) { return a * a; }
static void *aug_g(double a) {
  double *t = malloc(sizeof *t);
  *t = a;
  return t;
}
static double rev_g(double a, double d, void *tape) {
  (void)a;
  double r = 2 * *(double *)tape * d;
  free(tape);
  return r;
}
void *__enzyme_register_gradient_g[3] = {(void *)g, (void *)aug_g,
                                         (void *)rev_g};
static void f(const double *x, double *y) { y[0] = g(x[0]) * 3; }
int main(void) {
  double x[1] = {2}, y[1], dx1[1] = {0}, dx2[1] = {0}, dy1[1] = {1},
         dy2[1] = {2};
  __enzyme_autodiff((void *)f, enzyme_width, 2, x, dx1, dx2, y, dy1, dy2);
  return !(dx1[0] == 12 && dx2[0] == 24);
}

/* Forward mode's side of tests/rev/err_unknown_extern.c: a call the engine
 * cannot see into that takes a double* is refused, naming the callee and
 * the line, though the puts next to it is known inactive. */
#include <stdio.h>
double __enzyme_fwddiff(void *, ...);
void smooth_in_place(double *v, int n); /* declared only: no body here */
static double f(double *x) {
  puts("f");
  smooth_in_place(x, 2);
  return x[0] * x[1];
}
int main(void) {
  double x[2] = {2, 3}, dx[2] = {1, 0};
  return __enzyme_fwddiff((void *)f, x, dx) != 0;
}

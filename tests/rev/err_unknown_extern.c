/* A call the engine cannot see into that takes a double*: refused, naming
 * the callee and the line, though the printf next to it is known inactive
 * (an unknown function may write the doubles: no silent zero adjoint). */
#include <stdio.h>
double __enzyme_autodiff(void *, ...);
void smooth_in_place(double *v, int n); /* declared only: no body here */
static double f(double *x) {
  printf("f(%g)\n", x[0]);
  smooth_in_place(x, 2);
  return x[0] * x[1];
}
int main(void) {
  double x[2] = {2, 3}, dx[2] = {0.5, 0.25};
  __enzyme_autodiff((void *)f, x, dx);
  return dx[0] != 0;
}

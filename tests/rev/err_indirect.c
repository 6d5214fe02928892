/* An indirect call no function of the module can be the target of (a
 * pointer to a library function of a type no function here has). */
#include <math.h>
double __enzyme_autodiff(void *, ...);
static double (*volatile pick)(double, double) = pow;
static double f(double x) {
  double (*g)(double, double) = pick;
  return g(x, 3.0) + x;
}
int main(void) { return __enzyme_autodiff((void *)f, 2.0) != 13.0; }

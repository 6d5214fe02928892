/* Recursion: a function that calls itself (repeated squaring for an integer
 * power), and a pair of mutually recursive functions.  The engine must cache
 * the derivative it is generating to terminate. */
#include "enzyme.h"
#include "tangent_check.h"

double power(double x, int n) {
  if (n == 0)
    return 1.0;
  if (n % 2)
    return x * power(x, n - 1);
  double h = power(x, n / 2);
  return h * h;
}

double odd_chain(double x, int n);
double even_chain(double x, int n) {
  return n <= 0 ? x : cos(odd_chain(x, n - 1));
}
double odd_chain(double x, int n) {
  return n <= 0 ? x : sin(even_chain(x, n - 1)) + 0.5 * x;
}

struct point { double x; int n; };
static double along_power(double t, void *ctx) {
  struct point *p = ctx;
  return power(p->x + t, p->n);
}
static double along_chain(double t, void *ctx) {
  struct point *p = ctx;
  return even_chain(p->x + t, p->n);
}

int main(void) {
  const double x = 1.1;
  const int ns[] = {0, 1, 7, 12};
  for (int i = 0; i < 4; i++) {
    int n = ns[i];
    long double want = n ? n * powl(x, n - 1) : 0.0L;
    struct point p = {x, n};
    check_reference("power analytic", want, fd_derivative(along_power, &p));
    check_tangent("power", __enzyme_fwddiff((void *)power, x, 1.0,
                                            enzyme_const, n),
                  want);
    check_tangent_fd("mutual", __enzyme_fwddiff((void *)even_chain, x, 1.0,
                                                 enzyme_const, n),
                     fd_derivative(along_chain, &p));
  }
  return tc_finish("recursion");
}

/* A variadic helper reading active doubles with va_arg: refused in
 * reverse mode, naming it, the line and what to do instead (as forward
 * mode's message does). */
#include <stdarg.h>
double __enzyme_autodiff(void *, ...);
__attribute__((noinline)) static double sum(int n, ...) {
  va_list ap;
  va_start(ap, n);
  double s = 0;
  for (int i = 0; i < n; i++)
    s += va_arg(ap, double);
  va_end(ap);
  return s;
}
static double f(double x) { return sum(2, x, x * x); }
int main(void) { return __enzyme_autodiff((void *)f, 1.0) != 3.0; }

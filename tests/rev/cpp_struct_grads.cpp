// C++: a templated request returning a struct of two adjoints
#include <cmath>
#define RC_OWN_PROTOTYPE
#include "rev_check.h"
struct grads {
  double dx, dy;
};
template <typename R, typename... A> R __enzyme_autodiff(void *, A...);
static double f(double x, double y) { return std::exp(x * y) + std::log(1 + y * y) * x; }
static long double run(const long double *p) { return f((double)p[0], (double)p[1]); }
int main() {
  long double p[2] = {0.4, -0.7}, got[2];
  grads g = __enzyme_autodiff<grads>((void *)f, 0.4, -0.7);
  got[0] = g.dx, got[1] = g.dy;
  rc_check("cpp_struct_grads", run, p, got, 2);
  return rc_result();
}

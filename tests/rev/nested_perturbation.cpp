// Reverse over reverse without perturbation confusion: the inner request
// holds x constant, the outer differentiates through it, so the inner
// gradient's dependence on x is differentiated too (Enzyme's
// perturbation.cpp, here over several points and a nonlinear f).
#include <cmath>
#define RC_OWN_PROTOTYPE
#include "rev_check.h"

double __enzyme_autodiff1(void *, int, double, double);
double __enzyme_autodiff2(void *, double);

template <typename T> static T f(T x, T y) { return x * y * y + std::sin(x * y); }

// x * d/dy f(x, y) at y = 3, x held constant by the inner request
static double df(double x) {
  return x * __enzyme_autodiff1((void *)f<double>, enzyme_const, x, 3.0);
}

// d/dx [x * (2 x y + x cos(x y))] at y = 3
static long double ddf_exact(long double x) {
  long double y = 3;
  return 4 * x * y + 2 * x * std::cos(x * y) - x * x * y * std::sin(x * y);
}
static long double run(const long double *p) {
  long double x = p[0], y = 3;
  return x * (2 * x * y + x * std::cos(x * y));
}

int main() {
  static const double xs[3] = {5.0, 0.4, -1.7};
  for (double x : xs) {
    long double p[1] = {x}, got[1];
    got[0] = __enzyme_autodiff2((void *)df, x);
    rc_check("perturbation", run, p, got, 1);
    rc_expect("analytic", got[0], ddf_exact(x), 1e-9L * (1 + std::fabs(ddf_exact(x))));
  }
  return rc_result();
}

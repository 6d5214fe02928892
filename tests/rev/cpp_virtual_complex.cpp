// C++: virtual calls (indirect through the vtable) and std::complex
// (products through __muldc3, std::abs -> cabs, std::exp -> cexp)
#define RC_OWN_PROTOTYPE
#include <complex>
#include "rev_check.h"
extern "C" double __enzyme_autodiff(void *, ...);
struct shape {
  virtual double area(double s) const = 0;
  virtual ~shape() {}
};
struct square : shape {
  double area(double s) const override { return s * s; }
};
struct circle : shape {
  double area(double r) const override { return 3.25 * r * r * std::sin(r); }
};
static square the_square;
static circle the_circle;
static const shape *volatile shapes[2] = {&the_square, &the_circle};
static double f(double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += shapes[i % 2]->area(x[i]);
  std::complex<double> z(x[0], x[1]), w(x[2], x[3]);
  s += std::abs(z * w) + std::real(std::exp(z) * w);
  return s;
}
RC_ARRAY_TEST_AS("cpp_virtual_complex", RC_UNMARKED, f, 4, 0.5, -1.0, 1.5, 0.75)

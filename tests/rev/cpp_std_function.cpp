// C++: a loss that calls lambdas stored in std::function, one capturing a
// double by reference, one by value (and the point's pointer), one
// through a const reference to the std::function.  At -O0 std::function's
// constructor zeroes std::_Any_data and _M_create copies each lambda into
// it, bytes type analysis knows from the call paths alone
// (tests/rev/meson.build says why).
#include <cmath>
#include <functional>
#define RC_OWN_PROTOTYPE
#include "rev_check.h"
extern "C" double __enzyme_autodiff(void *, ...);

static double call_with(const std::function<double(double)> &f, double v) {
  return f(v);
}

static double model(double *x, int n) {
  double scale = x[0] * 0.5;
  std::function<double(double)> by_ref = [&scale](double v) {
    return scale * std::sin(v);
  };
  double shift = x[1];
  std::function<double(double)> by_value = [shift, x](double v) {
    return (v - shift) * (v - shift) + x[2] * v;
  };
  double s = 0;
  for (int i = 0; i < n; i++)
    s += call_with(by_ref, x[i]) + by_value(x[i]) * 0.25;
  scale = x[3];  // the reference sees the new value
  s += by_ref(x[4]);
  return s;
}
RC_ARRAY_TEST_AS("cpp_std_function", RC_MARKED, model, 5,
                 0.4, -1.2, 0.9, 2.1, -0.3)

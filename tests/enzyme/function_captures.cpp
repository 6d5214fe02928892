/*
 * Lambdas in a std::vector<std::function>: one captures a constant double
 * by value, one a local active double by reference.  From -O1 clang
 * stores the captured 1.5 into std::function's buffer as its bits
 * (`store i64 4609434218613702656`), bytes that the by-reference functor
 * makes pointers; only the indirect call to the invoker reads the double
 * back.  Its tangent is zero (analysis/type_transfer.c,
 * ad_types_stores_no_address): copied, it was 1.5 and every derivative
 * was off by 1.5 x0^2.
 */
#include <functional>
#include <vector>

#include "enzyme_compat.h"

/* s = 1.5 x0^2 + (2 x0) x1 */
double f(const double *x) {
  std::vector<std::function<double(const double *)>> terms;
  double a = 1.5;
  terms.push_back([a](const double *p) { return a * p[0] * p[0]; });
  double local = 2.0 * x[0];
  terms.push_back([&local](const double *p) { return local * p[1]; });
  double s = 0;
  for (const auto &t : terms)
    s += t(x);
  return s;
}

int main() {
  double x[2] = {0.4, -0.7};
  double t0[2] = {1, 0}, t1[2] = {0, 1};
  APPROX_EQ(__enzyme_fwddiff((void *)f, enzyme_dup, x, t0), 3 * x[0] + 2 * x[1],
            1e-12);
  APPROX_EQ(__enzyme_fwddiff((void *)f, enzyme_dup, x, t1), 2 * x[0], 1e-12);
  return enzyme_compat_result();
}

// C++: std::copy, std::move, std::copy_backward and std::fill over double
// arrays and std::vector<double>.  At -O0 libstdc++ moves the doubles
// with an llvm.memmove in std::__copy_move[_backward]<...>::__copy_m,
// several calls below the code that reads them, through pointers
// spilled to allocas: type analysis has to learn the bytes from the
// callers.  Overlapping ranges (a shift inside one array) included.
#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>
#define RC_OWN_PROTOTYPE
#include "rev_check.h"
extern "C" double __enzyme_autodiff(void *, ...);

static double model(double *x, int n) {
  double a[6], b[6];
  std::copy(x, x + n, a);                  // array to array
  std::copy_backward(a, a + 4, a + 6);     // overlapping, backwards
  std::vector<double> v(n);
  std::copy(a, a + n, v.begin());          // array to vector
  std::vector<double> w(n + 2);
  std::fill(w.begin(), w.end(), 0.5);      // a double fill
  std::move(v.begin(), v.end(), w.begin() + 1);
  std::copy(w.begin() + 1, w.begin() + 5, b);
  std::move(b + 1, b + 4, b);              // overlapping, forwards
  double s = 0;
  for (int i = 0; i < n + 2; i++)
    s += std::sin(w[i]) * (i + 1);
  for (int i = 0; i < 4; i++)
    s += b[i] * a[i + 1] + x[i] * b[i];
  return s;
}
RC_ARRAY_TEST_AS("cpp_std_copy", RC_MARKED, model, 5,
                 0.4, -1.2, 0.9, 2.1, -0.3)

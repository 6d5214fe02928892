// C++: std::vector<double> built from a range, copy-constructed, sorted,
// grown by push_back and reduced with std::inner_product.  At -O0
// libstdc++ copies the doubles with an llvm.memmove in
// std::__copy_move::__copy_m, ten calls below the function that reads
// them: type analysis asks the callers far up (types.h
// AD_TYPES_FAR_CALLERS) what the bytes are.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>
#define RC_OWN_PROTOTYPE
#include "rev_check.h"
extern "C" double __enzyme_autodiff(void *, ...);

static double model(double *x, int n) {
  std::vector<double> h(x, x + n);
  std::vector<double> w = h;
  std::sort(w.begin(), w.end());
  std::vector<double> g;
  for (double v : w)
    g.push_back(std::exp(0.3 * v) + v * h[0]);
  return std::inner_product(g.begin(), g.end(), h.begin(), 0.0) +
         w.front() * w.back();
}
RC_ARRAY_TEST_AS("cpp_vector_copies", RC_MARKED, model, 5,
                 0.4, -1.2, 0.9, 2.1, -0.3)

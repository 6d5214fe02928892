// C++: std::vector<double>::insert of ranges, as users write it: at the
// end, in the middle with room to spare (the tail shifted in place) and
// past the capacity (a new buffer).  From -O1 libstdc++'s _M_range_insert
// moves the doubles with llvm.memmove through byte offsets that are
// distances between pointers (`gep i8, %new, (ptrtoint %pos - ptrtoint
// %begin)`), and fills a vector with a loop over a byte index stepping by
// 8: type analysis has to see those offsets as whole doubles, or the
// buffers repeat every byte and their doubles are lost.
#include <cmath>
#include <vector>
#define RC_OWN_PROTOTYPE
#include "rev_check.h"
extern "C" double __enzyme_autodiff(void *, ...);

static double model(double *x, int n) {
  std::vector<double> tmp(x, x + n);
  std::vector<double> extra(3, 0.25);
  extra[1] = x[0] * x[1];
  tmp.insert(tmp.end(), extra.begin(), extra.end());
  std::vector<double> roomy;
  roomy.reserve(4 * n);
  roomy.assign(x, x + n);
  roomy.insert(roomy.begin() + 1, x + 2, x + n);
  tmp.insert(tmp.begin() + 2, roomy.begin(), roomy.end());
  double s = 0;
  for (size_t i = 0; i < tmp.size(); i++)
    s += std::sin(tmp[i]) * (double)(i + 1);
  for (size_t i = 0; i < roomy.size(); i++)
    s += roomy[i] * tmp[i];
  return s;
}
RC_ARRAY_TEST_AS("cpp_vector_insert", RC_MARKED, model, 5,
                 0.4, -1.2, 0.9, 2.1, -0.3)

// std::map and std::set holding active values inside the differentiated
// function: nodes inserted (_Rb_tree_insert_and_rebalance), walked by
// iterators (_Rb_tree_increment), looked up and erased
// (_Rb_tree_rebalance_for_erase), all compiled into libstdc++.  The shadow
// tree is relinked as the primal is, so each value's adjoint reaches its
// shadow node.
#include <cmath>
#include <map>
#include <set>
#define RC_OWN_PROTOTYPE
#include "rev_check.h"
extern "C" double __enzyme_autodiff(void *, ...);

static double model(double *x, int n) {
  std::map<int, double> bins;
  for (int i = 0; i < n; i++)
    bins[(i * 5) % 4] += x[i] * x[i] + std::sin(x[i]);
  bins.erase(2);
  double s = 0;
  for (auto &kv : bins)
    s += (kv.first + 1) * kv.second;
  auto it = bins.find(3);
  if (it != bins.end())
    s += it->second * x[0];
  std::set<int> seen;
  for (int i = 0; i < n; i++)
    if (seen.insert(i % 3).second)
      s += std::exp(0.1 * x[i]);
  return s;
}
RC_ARRAY_TEST_AS("cpp_std_map", RC_MARKED, model, 7,
                 0.3, -1.2, 2.1, 0.7, -0.4, 1.5, 0.9)

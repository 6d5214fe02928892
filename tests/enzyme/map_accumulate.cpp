/*
 * A std::map<int, double> filled and walked inside the differentiated
 * function: operator[] inserts nodes (_Rb_tree_insert_and_rebalance), the
 * range-for walks them (_Rb_tree_increment), erase rebalances
 * (_Rb_tree_rebalance_for_erase).  The mapped doubles are active, so the
 * tree's nodes have shadows and the helpers that move between nodes must
 * move between the shadow nodes too.  A std::set<int> beside it holds no
 * active value: its nodes have no shadows and its calls stay primal.
 */
#include <map>
#include <set>

#include "enzyme_compat.h"

double map_model(double x, int n) {
  std::map<int, double> bins;
  std::set<int> seen;
  for (int i = 0; i < n; i++) {
    bins[(i * 7) % 5] += x * (i + 1);
    seen.insert(i % 4);
  }
  bins.erase(3);
  double s = 0.0;
  for (auto &kv : bins)
    s += kv.second * kv.second * (kv.first + 1);
  for (auto it = bins.rbegin(); it != bins.rend(); ++it)
    s += it->second;
  int distinct = 0;
  for (auto it = seen.begin(); it != seen.end(); ++it)
    distinct++;
  return s * distinct;
}

static double expected(double x, int n, double *dsdx) {
  double b[5] = {0}, db[5] = {0};
  for (int i = 0; i < n; i++) {
    b[(i * 7) % 5] += x * (i + 1);
    db[(i * 7) % 5] += i + 1;
  }
  double s = 0.0, ds = 0.0;
  for (int k = 0; k < 5; k++) {
    if (k == 3)
      continue;
    s += b[k] * b[k] * (k + 1) + b[k];
    ds += 2 * b[k] * db[k] * (k + 1) + db[k];
  }
  int distinct = n < 4 ? n : 4;
  *dsdx = ds * distinct;
  return s * distinct;
}

int main() {
  for (int n = 1; n <= 9; n += 4) {
    double x = 0.75, ds;
    double s = expected(x, n, &ds);
    APPROX_EQ(map_model(x, n), s, 1e-12);
    double d = __enzyme_fwddiff((void *)map_model, enzyme_dup, x, 1.0,
                                enzyme_const, n);
    APPROX_EQ(d, ds, 1e-10);
  }
  return enzyme_compat_result();
}

/*
 * std::string keys inside the differentiated function, forward mode: keys
 * built by operator+ and std::to_string, a std::map<std::string, double>
 * of active values, std::cout and printf of its entries.  libstdc++'s
 * std::string members (at -O0 declarations only: its extern templates)
 * and the printing are known inactive (src/ad/registry/inactive.c): the
 * primal calls run, and the tangent is the arithmetic's through the map's
 * nodes.  tests/rev/cpp_string_keys.cpp is the reverse-mode counterpart.
 */
#include <iostream>
#include <map>
#include <string>

#include "enzyme_compat.h"

bool verbose = false; /* external: not folded away at -O2 */

double keyed_model(double x, int n) {
  std::map<std::string, double> bins;
  for (int i = 0; i < n; i++)
    bins["k" + std::to_string(i % 3)] += x * (i + 1);
  bins[std::string("sq")] = x * x;
  double s = 0;
  for (auto &kv : bins) {
    s += kv.second * kv.second * (double)kv.first.size();
    std::cout << kv.first << ": " << kv.second << '\n';
    if (verbose)
      printf("%s %g\n", kv.first.c_str(), kv.second);
  }
  return s;
}

/* s = 2 sum_k (c_k x)^2 + 2 x^4 over the keys present, c_k the sum of
 * i + 1 over i = k (mod 3); ds/dx = 4 x sum_k c_k^2 + 8 x^3. */
static double expected(double x, int n, double *dsdx) {
  double c[3] = {0, 0, 0};
  for (int i = 0; i < n; i++)
    c[i % 3] += i + 1;
  double s = 2 * x * x * x * x, ds = 8 * x * x * x;
  for (int k = 0; k < 3 && k < n; k++) {
    s += 2 * c[k] * c[k] * x * x;
    ds += 4 * c[k] * c[k] * x;
  }
  *dsdx = ds;
  return s;
}

int main() {
  std::cout.setstate(std::ios_base::badbit); /* operator<< still called */
  for (int n = 1; n <= 7; n += 3) {
    double x = 0.75, ds;
    double s = expected(x, n, &ds);
    APPROX_EQ(keyed_model(x, n), s, 1e-12);
    double d = __enzyme_fwddiff((void *)keyed_model, enzyme_dup, x, 1.0,
                                enzyme_const, n);
    APPROX_EQ(d, ds, 1e-10);
  }
  return enzyme_compat_result();
}

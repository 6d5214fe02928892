// std::string keys and printing inside the differentiated function, in
// reverse and forward mode: keys built with std::to_string and operator+,
// a std::map<std::string, double> of active values, std::cout and fprintf
// of its entries.  The std::string members called are libstdc++'s (at -O0
// declarations only: its extern templates), known inactive
// (registry/inactive.c); they and the printing are primal work only, and
// each value's adjoint and tangent go through the map's nodes.
#include <cmath>
#include <cstdio>
#include <iostream>
#include <map>
#include <string>
#define RC_OWN_PROTOTYPE
#include "rev_check.h"
extern "C" double __enzyme_autodiff(void *, ...);
extern "C" double __enzyme_fwddiff(void *, ...);

enum { N = 6 };
static std::FILE *sink; /* /dev/null: the calls run, their output is dropped */

static double model(double *x, int n) {
  std::map<std::string, double> w;
  for (int i = 0; i < n; i++) {
    std::string key = "w" + std::to_string(i % 3);
    w[key] += x[i] * x[i] + std::sin(x[i]);
  }
  std::string label("total");
  label += ':';
  w[label] = x[0] * x[1];
  double s = 0;
  for (auto &kv : w) {
    s += (double)kv.first.size() * kv.second;
    std::cout << kv.first << " = " << kv.second << '\n';
    std::fprintf(sink, "%s %g\n", kv.first.c_str(), kv.second);
  }
  if (w.count("w1"))
    s += std::exp(0.5 * w["w1"]) * x[2];
  if (w.find(std::string("zz")) == w.end())
    s += x[n - 1] * x[n - 2];
  std::printf("%s%.0s", "", label.c_str());
  return s;
}

RC_ARRAY_RUN(run_model, model, N)

static long double run_plain(const long double *p) {
  double x[N];
  for (int i = 0; i < N; i++)
    x[i] = (double)p[i];
  return model(x, N);
}

int main() {
  sink = std::fopen("/dev/null", "w");
  if (!sink)
    return 1;
  std::cout.setstate(std::ios_base::badbit); /* operator<< still called */
  const double x0[N] = {0.3, -1.2, 2.1, 0.7, -0.4, 1.5};
  double x[N], dx[N];
  long double p[N], got[N];
  for (int i = 0; i < N; i++)
    x[i] = x0[i], p[i] = x0[i];
  rc_seed(dx, N);
  __enzyme_autodiff((void *)model, enzyme_dup, x, dx, enzyme_const, N);
  for (int i = 0; i < N; i++)
    got[i] = dx[i];
  rc_check("cpp_string_keys reverse", run_model, p, got, N);
  for (int i = 0; i < N; i++) {
    double t[N] = {0};
    t[i] = 1;
    got[i] = __enzyme_fwddiff((void *)model, enzyme_dup, x, t, enzyme_const, N);
  }
  rc_check("cpp_string_keys forward", run_plain, p, got, N);
  return rc_result();
}

// Classes with virtual methods as C++ users write them: a vector of
// std::unique_ptr<Term> built inside the differentiated function from the
// parameters, each term's virtual energy() summed (both modes).
#include <cmath>
#include <memory>
#include <vector>
#include "both_modes.h"
struct Term {
  virtual ~Term() = default;
  virtual double energy(const double *x) const = 0;
};
struct Spring : Term {
  int i, j;
  double k;
  Spring(int a, int b, double kk) : i(a), j(b), k(kk) {}
  double energy(const double *x) const override {
    double d = x[i] - x[j] - 1.0;
    return 0.5 * k * d * d;
  }
};
struct Well : Term {
  int i;
  double depth;
  Well(int a, double dd) : i(a), depth(dd) {}
  double energy(const double *x) const override {
    return -depth * std::exp(-x[i] * x[i]);
  }
};
static double total(double *x, int n) {
  std::vector<std::unique_ptr<Term>> terms;
  for (int i = 0; i + 1 < n; i++)
    terms.push_back(std::make_unique<Spring>(i + 1, i, 1.0 + 0.5 * x[n - 1]));
  for (int i = 0; i < n - 1; i += 2)
    terms.push_back(std::make_unique<Well>(i, 2.0));
  double e = 0;
  for (const auto &t : terms) e += t->energy(x);
  return e;
}
static const double x0[5] = {0.1, 1.3, 2.05, 2.9, 0.4};
static const double dir[5] = {0.5, -0.25, 1.0, 0.75, -1.0};
BM_ARRAY_BOTH(total, 5, x0, dir)
int main() {
  both_total();
  return rc_result();
}

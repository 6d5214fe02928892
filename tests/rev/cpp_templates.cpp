// C++: a template instantiation, a class with methods, a lambda; the
// request through a variadic template (mangled _Z17__enzyme_autodiff...).
#include <cmath>
#define RC_OWN_PROTOTYPE
#include "rev_check.h"
template <typename T, typename... A> T __enzyme_autodiff(void *, A...);

template <typename T> static T poly(const T *c, T x, int n) {
  T r = 0;
  for (int i = n - 1; i >= 0; i--)
    r = r * x + c[i];
  return r;
}
struct spring {
  double k, rest;
  double energy(double len) const { return 0.5 * k * (len - rest) * (len - rest); }
};
static double model(double *x, int n) {
  (void)n;
  spring s{x[0], 1.0};
  auto sq = [](double v) { return v * v; };
  return s.energy(x[1]) + poly(x + 2, x[1], 3) + sq(std::sin(x[0]));
}
RC_ARRAY_RUN(run_model, model, 5)
int main() {
  double x[5] = {2.0, 1.5, 0.5, -1.0, 0.25}, dx[5];
  long double p[5], got[5];
  for (int i = 0; i < 5; i++)
    p[i] = x[i];
  rc_seed(dx, 5);
  __enzyme_autodiff<void>((void *)model, x, dx, 5);
  for (int i = 0; i < 5; i++)
    got[i] = dx[i];
  rc_check("cpp_templates", run_model, p, got, 5);
  return rc_result();
}

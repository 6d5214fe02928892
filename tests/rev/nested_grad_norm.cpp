// Reverse over reverse in C++: the gradient of a gradient's squared norm
// (a gradient penalty), the inner function working in new[]/delete[]
// scratch and its gradient landing in a new[] buffer.
#include <cmath>
#define RC_OWN_PROTOTYPE
#include "rev_check.h"

extern "C" double __enzyme_autodiff(void *, ...);

static const int N = 4;

static double loss(double *w, int n) {
  double *a = new double[n];
  for (int i = 0; i < n; i++)
    a[i] = std::tanh(w[i] * (i + 1));
  double s = 0;
  for (int i = 0; i < n; i++)
    s += a[i] * a[(i + 1) % n];
  delete[] a;
  return s;
}

static double grad_norm(double *w, int n) {
  double *g = new double[n]();
  __enzyme_autodiff((void *)loss, w, g, enzyme_const, n);
  double s = 0;
  for (int i = 0; i < n; i++)
    s += g[i] * g[i];
  delete[] g;
  return s;
}

// |grad loss|^2 from the analytic gradient, in long double
static long double run(const long double *p) {
  long double a[N], s = 0;
  for (int i = 0; i < N; i++)
    a[i] = std::tanh(p[i] * (i + 1));
  for (int j = 0; j < N; j++) {
    long double g = (j + 1) * (1 - a[j] * a[j]) * (a[(j + 1) % N] + a[(j + N - 1) % N]);
    s += g * g;
  }
  return s;
}

int main() {
  double w[N] = {0.3, -0.2, 0.5, 0.1}, h[N];
  long double p[N], got[N];
  for (int i = 0; i < N; i++)
    p[i] = w[i];
  rc_seed(h, N);
  __enzyme_autodiff((void *)grad_norm, w, h, enzyme_const, N);
  for (int i = 0; i < N; i++)
    got[i] = h[i] - rc_seed_value(i);
  rc_check("gradient of the gradient's norm", run, p, got, N);
  rc_expect("primal", grad_norm(w, N), run(p), 1e-12L);
  return rc_result();
}

#include <cmath>
#include <vector>
#include "rev_check.h"
/* A custom gradient whose reverse reads its primal std::vector argument,
 * a local of the differentiated function: the vector object is copied at
 * the call (its frame is gone by the reverse), and the buffer it points
 * to, which the vector's destructor frees before the reverse, is freed at
 * the end of the reverse instead (rev/custom_inputs.c).  From -O1, where
 * the destructor's delete is in the function itself; at -O0 it is in a
 * callee, whose frees are not held back. */
static int rev_calls;
__attribute__((noinline)) double norm2(const std::vector<double> &v) {
  double s = 0;
  for (double e : v)
    s += e * e;
  return std::sqrt(s);
}
void *aug_norm2(const std::vector<double> &, std::vector<double> &) {
  return nullptr;
}
void rev_norm2(const std::vector<double> &v, std::vector<double> &dv, double d,
               void *) {
  rev_calls++;
  double s = 0;
  for (double e : v)
    s += e * e;
  double n = std::sqrt(s);
  for (size_t i = 0; i < v.size(); i++)
    dv[i] += d * v[i] / n;
}
extern "C" {
void *__enzyme_register_gradient_norm2[3] = {
    (void *)norm2, (void *)aug_norm2, (void *)rev_norm2};
}

enum { N = 4 };
static double model(const double *x, int n) {
  std::vector<double> v(x, x + n);
  for (auto &e : v)
    e = e * 2 + 1;
  double r = norm2(v);
  /* a block of the same size after the free, which would reuse it */
  std::vector<double> junk(n, 1e300);
  return r + junk[0] * 0;
}

static long double run(const long double *p) {
  double x[N];
  for (int i = 0; i < N; i++)
    x[i] = (double)p[i];
  long double r = model(x, N);
  for (int i = 0; i < N; i++)
    r += rc_seed_value(i) * (long double)x[i];
  return r;
}

int main() {
  double x[N] = {0.3, -0.5, 0.8, 0.1}, dx[N];
  long double p[N], got[N];
  rc_seed(dx, N);
  for (int i = 0; i < N; i++)
    p[i] = x[i];
  __enzyme_autodiff((void *)model, enzyme_dup, x, dx, enzyme_const, N);
  for (int i = 0; i < N; i++)
    got[i] = dx[i];
  rc_check("cpp_custom_vector_read", run, p, got, N);
  rc_expect("cpp_custom_vector_read rule calls", rev_calls, 1, 0);
  return rc_result();
}

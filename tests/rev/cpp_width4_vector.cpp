#include <cmath>
#include <vector>
#define RC_OWN_PROTOTYPE
#include "rev_check.h"
/* Vector reverse mode, width 4, over std::vector<double> temporaries (a
 * copy of the input, a vector grown by push_back in a loop whose length
 * depends on the data, one returned by a helper), the results written
 * into the caller's memory: the augmented pass allocates the vectors'
 * shadows and stores their shadow pointers into the shadows of the vector
 * objects; one augmented pass serves the four lanes. */
extern "C" {
extern int enzyme_width;
void __enzyme_autodiff(void *, ...);
}

enum { N = 5, W = 4 };

__attribute__((noinline)) static std::vector<double>
squares(const std::vector<double> &v) {
  std::vector<double> r(v.size());
  for (size_t i = 0; i < v.size(); i++)
    r[i] = v[i] * v[i] + std::sin(v[i]);
  return r;
}

static void f(const double *x, double *out, int n) {
  std::vector<double> v(x, x + n);
  std::vector<double> sq = squares(v);
  std::vector<double> terms;
  double t = sq[0] + 0.25;
  while (terms.size() < 30 && std::fabs(t) > 1e-3 * (1 + std::fabs(x[2]))) {
    terms.push_back(t);
    t *= 0.5 * std::cos(v[terms.size() % n]);
  }
  double s = 0;
  for (size_t i = 0; i < terms.size(); i++)
    s += terms[i] / (1 + i);
  for (int i = 0; i < n; i++)
    out[i] = sq[i] * s + v[n - 1 - i];
}

static double seed(int w, int i) { return rc_seed_value(i) - 0.15 * w; }

static int lane;
static long double run(const long double *p) {
  double x[N], out[N];
  for (int i = 0; i < N; i++)
    x[i] = (double)p[i], out[i] = (double)p[N + i];
  f(x, out, N);
  long double r = 0;
  for (int i = 0; i < N; i++)
    r += seed(lane, i) * (long double)x[i] +
         seed(lane, N + i) * (long double)out[i];
  return r;
}

int main() {
  double x[N] = {0.6, -0.5, 0.8, 0.3, -0.2}, out[N] = {0};
  double dx[W][N], dout[W][N];
  long double p[2 * N], got[2 * N];
  for (int i = 0; i < N; i++)
    p[i] = x[i], p[N + i] = out[i];
  for (int w = 0; w < W; w++)
    for (int i = 0; i < N; i++)
      dx[w][i] = seed(w, i), dout[w][i] = seed(w, N + i);
  __enzyme_autodiff((void *)f, enzyme_width, W, enzyme_dup, x, dx[0], dx[1],
                    dx[2], dx[3], enzyme_dup, out, dout[0], dout[1], dout[2],
                    dout[3], enzyme_const, N);
  for (lane = 0; lane < W; lane++) {
    for (int i = 0; i < N; i++)
      got[i] = dx[lane][i], got[N + i] = dout[lane][i];
    rc_check("cpp_width4_vector", run, p, got, 2 * N);
  }
  return rc_result();
}

#include <cmath>
#include <numeric>
#include <vector>
#define RC_OWN_PROTOTYPE
#include "rev_check.h"
/* Vector reverse mode, width 2, of a function that builds a
 * std::vector<double> from x (the range constructor: at -O0 its iterator,
 * a pointer into x, sits in a stack slot whose shadow holds the caller's
 * shadow) and sums it with std::accumulate and a loop; nothing of the
 * caller's is written, so each lane runs its own gradient.  The scalar
 * result's adjoint comes back per lane. */
extern "C" {
extern int enzyme_width;
typedef struct {
  double dk[2];
} lanes;
lanes __enzyme_autodiff(void *, ...);
}

enum { N = 6, W = 2 };

static double f(const double *x, double k, int n) {
  std::vector<double> v(x, x + n);
  double s = std::accumulate(v.begin(), v.end(), 0.0);
  double q = 0;
  for (double e : v)
    q += std::sin(k * e) * e;
  return s * q + k * v.back();
}

static double seed(int w, int i) { return rc_seed_value(i) * (1 + w); }

static int lane;
static long double run(const long double *p) {
  double x[N];
  for (int i = 0; i < N; i++)
    x[i] = (double)p[i];
  long double r = f(x, (double)p[N], N);
  for (int i = 0; i < N; i++)
    r += seed(lane, i) * (long double)x[i];
  return r;
}

int main() {
  double x[N] = {0.6, -0.5, 0.8, 0.3, -0.2, 0.45}, k = 1.3, dx[W][N];
  long double p[N + 1], got[N + 1];
  for (int i = 0; i < N; i++)
    p[i] = x[i];
  p[N] = k;
  for (int w = 0; w < W; w++)
    for (int i = 0; i < N; i++)
      dx[w][i] = seed(w, i);
  lanes r = __enzyme_autodiff((void *)f, enzyme_width, W, enzyme_dup, x,
                              dx[0], dx[1], enzyme_out, k, enzyme_const, N);
  for (lane = 0; lane < W; lane++) {
    for (int i = 0; i < N; i++)
      got[i] = dx[lane][i];
    got[N] = r.dk[lane];
    rc_check("cpp_width2_vector_sum", run, p, got, N + 1);
  }
  return rc_result();
}

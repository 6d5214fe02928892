#include <algorithm>
#include <cmath>
#include <vector>
#define RC_OWN_PROTOTYPE
#include "rev_check.h"
/* Vector reverse mode, width 2, of a function filling a std::vector with
 * std::transform and a lambda.  At -O0 the lambda's call sits on a
 * noexcept path whose landing pad calls __clang_call_terminate (a body:
 * __cxa_begin_catch, then std::terminate); a call that never returns
 * cannot make the lanes differ (rev/lanes.c), so each lane runs its own
 * gradient as without the transform. */
extern "C" {
extern int enzyme_width, enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
}

enum { N = 5, W = 2 };

static double f(const double *x, int n) {
  std::vector<double> z(n);
  std::transform(x, x + n, z.begin(), [](double a) { return a * std::sin(a); });
  double s = 0;
  for (double v : z)
    s += v * v;
  return s;
}

static double seed(int w, int i) { return rc_seed_value(i) * (1 + w); }

static int lane;
static long double run(const long double *p) {
  double x[N];
  for (int i = 0; i < N; i++)
    x[i] = (double)p[i];
  long double r = f(x, N);
  for (int i = 0; i < N; i++)
    r += seed(lane, i) * (long double)x[i];
  return r;
}

int main() {
  double x[N] = {0.5, -1.0, 2.0, 0.3, -0.7}, dx[W][N];
  long double p[N], got[N];
  for (int i = 0; i < N; i++)
    p[i] = x[i];
  for (int w = 0; w < W; w++)
    for (int i = 0; i < N; i++)
      dx[w][i] = seed(w, i);
  __enzyme_autodiff((void *)f, enzyme_width, W, enzyme_dup, x, dx[0], dx[1],
                    enzyme_const, N);
  for (lane = 0; lane < W; lane++) {
    for (int i = 0; i < N; i++)
      got[i] = dx[lane][i];
    rc_check("cpp_width2_transform", run, p, got, N);
  }
  return rc_result();
}

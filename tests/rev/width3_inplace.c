#include <math.h>
#define RC_OWN_PROTOTYPE
#include "rev_check.h"
/* Vector reverse mode, width 3: a buffer of the caller updated in place
 * (two Gauss-Seidel-like sweeps reading values they overwrite), an
 * enzyme_out scalar whose adjoint comes back per lane, and a float result
 * (Enzyme seeds it with 1 in every lane). */
extern int enzyme_width;
typedef struct {
  double dk[3];
} lanes;
lanes __enzyme_autodiff(void *, ...);

enum { N = 6, W = 3 };

static double f(double *x, double k, int n) {
  for (int sweep = 0; sweep < 2; sweep++)
    for (int i = 1; i < n - 1; i++)
      x[i] = x[i] + k * x[i - 1] * x[i + 1] - 0.25 * x[i] * x[i];
  double e = 0;
  for (int i = 0; i < n; i++)
    e += x[i] * x[i] * (1 + 0.1 * i);
  return e * k;
}

static double seed(int w, int i) { return rc_seed_value(i) - 0.3 * w; }

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

int main(void) {
  double x[N] = {0.4, -0.3, 0.8, 0.25, -0.6, 0.5}, k = 0.7, d[W][N];
  long double p[N + 1], got[N + 1];
  for (int i = 0; i < N; i++)
    p[i] = x[i];
  p[N] = k;
  for (int w = 0; w < W; w++)
    for (int i = 0; i < N; i++)
      d[w][i] = seed(w, i);
  lanes r = __enzyme_autodiff((void *)f, enzyme_width, W, enzyme_dup, x, d[0],
                              d[1], d[2], enzyme_out, k, enzyme_const, N);
  for (lane = 0; lane < W; lane++) {
    for (int i = 0; i < N; i++)
      got[i] = d[lane][i];
    got[N] = r.dk[lane];
    rc_check("width3_inplace", run, p, got, N + 1);
  }
  return rc_result();
}

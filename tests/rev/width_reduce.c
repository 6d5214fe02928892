#include <math.h>
#include <stdlib.h>
#define RC_OWN_PROTOTYPE
#include "rev_check.h"
/* Vector reverse mode (enzyme_width 3): three shadows of x, each seeded
 * differently, a heap scratch buffer and loops; the adjoint of the
 * enzyme_out scalar comes back once per lane ([3 x double]), each lane's
 * result seeded with 1 as Enzyme seeds it. */
extern int enzyme_width;
typedef struct {
  double dk[3];
} lanes;
lanes __enzyme_autodiff(void *, ...);

enum { N = 5, W = 3 };

static double f(const double *x, double k, int n) {
  double *t = malloc(n * sizeof *t);
  for (int i = 0; i < n; i++)
    t[i] = sin(k * x[i]) + x[(i + 1) % n] * x[i];
  double s = 0;
  int i = 0;
  while (i < n && s < 10) {
    s += t[i] * t[i] * k;
    i++;
  }
  free(t);
  return s;
}

static int lane;
static long double run(const long double *p) {
  double x[N];
  for (int i = 0; i < N; i++)
    x[i] = (double)p[i];
  long double r = f(x, (double)p[N], N);
  for (int i = 0; i < N; i++)
    r += (rc_seed_value(i) + lane) * (long double)x[i];
  return r;
}

int main(void) {
  double x[N] = {0.4, -0.3, 0.8, 0.25, -0.6}, k = 0.7, d[W][N];
  long double p[N + 1], got[N + 1];
  for (int i = 0; i < N; i++)
    p[i] = x[i];
  p[N] = k;
  for (int w = 0; w < W; w++)
    for (int i = 0; i < N; i++)
      d[w][i] = rc_seed_value(i) + w;
  lanes r = __enzyme_autodiff((void *)f, enzyme_width, W, enzyme_dup, x, d[0],
                              d[1], d[2], enzyme_out, k, enzyme_const, N);
  for (lane = 0; lane < W; lane++) {
    for (int i = 0; i < N; i++)
      got[i] = d[lane][i];
    got[N] = r.dk[lane];
    rc_check("width_reduce", run, p, got, N + 1);
  }
  return rc_result();
}

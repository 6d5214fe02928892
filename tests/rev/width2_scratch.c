#include <math.h>
#include <stdlib.h>
#define RC_OWN_PROTOTYPE
#include "rev_check.h"
/* Vector reverse mode, width 2: a malloc'd index scratch buffer (no
 * shadow: it holds no floats) in a function writing its outputs into the
 * caller's memory, so one augmented pass serves both lanes. */
extern int enzyme_width;
void __enzyme_autodiff(void *, ...);

enum { N = 6, W = 2 };

static void f(const double *x, double *out, int n) {
  int *order = malloc(n * sizeof *order);
  for (int i = 0; i < n; i++)
    order[i] = (3 * i + 1) % n;
  for (int i = 0; i < n; i++)
    out[i] = x[order[i]] * x[i] + cos(x[order[order[i]]]);
  free(order);
}

static double seed(int w, int i) {
  return rc_seed_value(i) * (1 + w) - 0.1 * w;
}

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

int main(void) {
  double x[N], out[N], dx[W][N], dout[W][N];
  long double p[2 * N], got[2 * N];
  for (int i = 0; i < N; i++) {
    x[i] = p[i] = 0.2 * i - 0.45;
    out[i] = p[N + i] = 0.05 * i;
  }
  for (int w = 0; w < W; w++)
    for (int i = 0; i < N; i++)
      dx[w][i] = seed(w, i), dout[w][i] = seed(w, N + i);
  __enzyme_autodiff((void *)f, enzyme_width, W, enzyme_dup, x, dx[0], dx[1],
                    enzyme_dup, out, dout[0], dout[1], enzyme_const, N);
  for (lane = 0; lane < W; lane++) {
    for (int i = 0; i < N; i++)
      got[i] = dx[lane][i], got[N + i] = dout[lane][i];
    rc_check("width2_scratch", run, p, got, 2 * N);
  }
  return rc_result();
}

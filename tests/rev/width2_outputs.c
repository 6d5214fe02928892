#include <math.h>
#define RC_OWN_PROTOTYPE
#include "rev_check.h"
/* Vector reverse mode, width 2: a function writing its outputs into the
 * caller's memory (one augmented pass, the reverse once per lane).  Each
 * lane has its own shadows of x and out, seeded differently, and out's
 * seeds are consumed by the stores (Enzyme's semantics). */
extern int enzyme_width;
void __enzyme_autodiff(void *, ...);

enum { N = 5, M = N + 1, W = 2 };

static void f(const double *x, double *out, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    out[i] = sin(x[i]) * x[(i + 1) % n] + x[i] * x[i];
    s += x[i] * out[i];
  }
  out[n] = s / (1 + x[0] * x[0]);
}

static double seed(int w, int i) { return rc_seed_value(i) + 0.375 * w - 0.5; }

static int lane;
static long double run(const long double *p) {
  double x[N], out[M];
  for (int i = 0; i < N; i++)
    x[i] = (double)p[i];
  for (int i = 0; i < M; i++)
    out[i] = (double)p[N + i];
  f(x, out, N);
  long double r = 0;
  for (int i = 0; i < N; i++)
    r += seed(lane, i) * (long double)x[i];
  for (int i = 0; i < M; i++)
    r += seed(lane, N + i) * (long double)out[i];
  return r;
}

int main(void) {
  double x[N] = {0.4, -0.3, 0.8, 0.25, -0.6}, out[M], dx[W][N], dout[W][M];
  long double p[N + M], got[N + M];
  for (int i = 0; i < N; i++)
    p[i] = x[i];
  for (int i = 0; i < M; i++)
    out[i] = p[N + i] = 0.1 * i - 0.2;
  for (int w = 0; w < W; w++) {
    for (int i = 0; i < N; i++)
      dx[w][i] = seed(w, i);
    for (int i = 0; i < M; i++)
      dout[w][i] = seed(w, N + i);
  }
  __enzyme_autodiff((void *)f, enzyme_width, W, enzyme_dup, x, dx[0], dx[1],
                    enzyme_dup, out, dout[0], dout[1], enzyme_const, N);
  for (lane = 0; lane < W; lane++) {
    for (int i = 0; i < N; i++)
      got[i] = dx[lane][i];
    for (int i = 0; i < M; i++)
      got[N + i] = dout[lane][i];
    rc_check("width2_outputs", run, p, got, N + M);
  }
  return rc_result();
}

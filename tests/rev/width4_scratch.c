#include <math.h>
#include <stdlib.h>
#define RC_OWN_PROTOTYPE
#include "rev_check.h"
/* Vector reverse mode, width 4, both ways of running the lanes in one
 * module: f has a malloc'd float temporary (its shadow is allocated in
 * the augmented pass and freed in the reverse, so the lanes cannot share
 * one) and writes no memory of its caller: one whole gradient per lane,
 * two enzyme_out scalars each returned as [4 x double].  g writes its
 * caller's memory: one augmented pass, the reverse once per lane. */
extern int enzyme_width;
typedef struct {
  double da[4];
  double db[4];
} lanes;
lanes __enzyme_autodiff(void *, ...);

enum { N = 5, W = 4 };

static double f(const double *x, double a, double b, int n) {
  double *t = malloc(n * sizeof *t);
  for (int i = 0; i < n; i++)
    t[i] = exp(a * x[i]) - b * x[(i + 2) % n];
  double s = 0;
  for (int i = 0; i < n; i++)
    s += t[i] * t[(i + 1) % n];
  free(t);
  return s * b;
}

static void g(const double *x, double *out, int n) {
  for (int i = 0; i < n; i++)
    out[i] = x[i] * x[(i + 1) % n] + exp(0.5 * x[i]);
}

static double seed(int w, int i) { return rc_seed_value(i) + 0.25 * w; }

static int lane;
static long double run(const long double *p) {
  double x[N];
  for (int i = 0; i < N; i++)
    x[i] = (double)p[i];
  long double r = f(x, (double)p[N], (double)p[N + 1], N);
  for (int i = 0; i < N; i++)
    r += seed(lane, i) * (long double)x[i];
  return r;
}

static long double run_g(const long double *p) {
  double x[N], out[N];
  for (int i = 0; i < N; i++)
    x[i] = (double)p[i], out[i] = (double)p[N + i];
  g(x, out, N);
  long double r = 0;
  for (int i = 0; i < N; i++)
    r += seed(lane, i) * (long double)x[i] +
         seed(lane, N + i) * (long double)out[i];
  return r;
}

int main(void) {
  double x[N] = {0.3, -0.2, 0.5, 0.1, -0.4}, a = 0.6, b = 1.2, d[W][N];
  long double p[N + 2], got[N + 2];
  for (int i = 0; i < N; i++)
    p[i] = x[i];
  p[N] = a;
  p[N + 1] = b;
  for (int w = 0; w < W; w++)
    for (int i = 0; i < N; i++)
      d[w][i] = seed(w, i);
  lanes r = __enzyme_autodiff((void *)f, enzyme_width, W, enzyme_dup, x, d[0],
                              d[1], d[2], d[3], enzyme_out, a, enzyme_out, b,
                              enzyme_const, N);
  for (lane = 0; lane < W; lane++) {
    for (int i = 0; i < N; i++)
      got[i] = d[lane][i];
    got[N] = r.da[lane];
    got[N + 1] = r.db[lane];
    rc_check("width4_scratch", run, p, got, N + 2);
  }
  /* g: x and out with four shadows each */
  double y[N], dy[W][N], dx[W][N];
  long double q[2 * N], got2[2 * N];
  for (int i = 0; i < N; i++)
    q[i] = x[i], y[i] = q[N + i] = 0.1 * i;
  for (int w = 0; w < W; w++)
    for (int i = 0; i < N; i++)
      dx[w][i] = seed(w, i), dy[w][i] = seed(w, N + i);
  __enzyme_autodiff((void *)g, enzyme_width, W, enzyme_dup, x, dx[0], dx[1],
                    dx[2], dx[3], enzyme_dup, y, dy[0], dy[1], dy[2], dy[3],
                    enzyme_const, N);
  for (lane = 0; lane < W; lane++) {
    for (int i = 0; i < N; i++)
      got2[i] = dx[lane][i], got2[N + i] = dy[lane][i];
    rc_check("width4_scratch g", run_g, q, got2, 2 * N);
  }
  return rc_result();
}

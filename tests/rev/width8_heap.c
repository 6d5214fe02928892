#include <math.h>
#include <stdlib.h>
#include <string.h>
#define RC_OWN_PROTOTYPE
#include "rev_check.h"
/* Vector reverse mode, width 8, where the augmented pass allocates
 * shadows and the function writes its caller's memory: a float buffer a
 * callee allocates, filled by memcpy of the active input, a heap buffer
 * grown with realloc by a loop whose trip count depends on the data, an
 * output and an in-place update.  One augmented pass serves the eight
 * lanes, each lane's reverse starting from the shadow blocks as aug left
 * them; every lane is checked against finite differences from nonzero
 * starting shadows. */
extern int enzyme_width;
void __enzyme_autodiff(void *, ...);

enum { N = 5, W = 8 };

__attribute__((noinline)) static double *make_buf(int n) {
  return malloc(n * sizeof(double));
}

static void f(const double *x, double *out, double *y, int n) {
  double *t = make_buf(n);
  memcpy(t, x, n * sizeof *t);
  for (int i = 0; i < n; i++)
    t[i] = t[i] * t[(i + 1) % n] + sin(t[i]);
  /* terms of a series until they fall under a bound fixed by the data:
   * how many is known only at run time */
  int cap = 2, k = 0;
  double *terms = malloc(cap * sizeof *terms);
  double term = t[0] * t[0] + 0.5;
  while (k < 40 && fabs(term) > 1e-3 * (1 + fabs(x[1]))) {
    if (k == cap) {
      cap *= 2;
      terms = realloc(terms, cap * sizeof *terms);
    }
    terms[k++] = term;
    term *= 0.6 * cos(t[k % n]);
  }
  double s = 0;
  for (int i = 0; i < k; i++)
    s += terms[i] * (1 + 0.1 * i);
  free(terms);
  for (int i = 0; i < n; i++) {
    out[i] = t[i] * s + t[n - 1 - i];
    y[i] = y[i] * t[i] + exp(0.3 * y[i]);
  }
  free(t);
}

static double seed(int w, int i) {
  return rc_seed_value(i) * (1 + 0.5 * w) - 0.05 * w;
}

static int lane;
static long double run(const long double *p) {
  double x[N], out[N], y[N];
  for (int i = 0; i < N; i++)
    x[i] = (double)p[i], out[i] = (double)p[N + i], y[i] = (double)p[2 * N + i];
  f(x, out, y, N);
  long double r = 0;
  for (int i = 0; i < N; i++)
    r += seed(lane, i) * (long double)x[i] +
         seed(lane, N + i) * (long double)out[i] +
         seed(lane, 2 * N + i) * (long double)y[i];
  return r;
}

int main(void) {
  double x[N] = {0.7, -0.4, 0.9, 0.2, -0.6}, out[N], y[N];
  double dx[W][N], dout[W][N], dy[W][N];
  long double p[3 * N], got[3 * N];
  for (int i = 0; i < N; i++) {
    out[i] = 0.1 * i;
    y[i] = 0.3 - 0.2 * i;
    p[i] = x[i], p[N + i] = out[i], p[2 * N + i] = y[i];
  }
  for (int w = 0; w < W; w++)
    for (int i = 0; i < N; i++)
      dx[w][i] = seed(w, i), dout[w][i] = seed(w, N + i),
      dy[w][i] = seed(w, 2 * N + i);
  __enzyme_autodiff((void *)f, enzyme_width, W, enzyme_dup, x, dx[0], dx[1],
                    dx[2], dx[3], dx[4], dx[5], dx[6], dx[7], enzyme_dup, out,
                    dout[0], dout[1], dout[2], dout[3], dout[4], dout[5],
                    dout[6], dout[7], enzyme_dup, y, dy[0], dy[1], dy[2],
                    dy[3], dy[4], dy[5], dy[6], dy[7], enzyme_const, N);
  for (lane = 0; lane < W; lane++) {
    for (int i = 0; i < N; i++)
      got[i] = dx[lane][i], got[N + i] = dout[lane][i],
      got[2 * N + i] = dy[lane][i];
    rc_check("width8_heap", run, p, got, 3 * N);
  }
  return rc_result();
}

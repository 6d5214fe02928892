#include <math.h>
#define RC_OWN_PROTOTYPE
#include "rev_check.h"
/* Split mode with enzyme_width 3: __enzyme_augmentfwd runs the one
 * augmented pass (in one function), __enzyme_reverse the reverse once per
 * lane from its tape (in another), each lane with its own shadows of x
 * (updated in place) and out (written), seeded differently. */
extern int enzyme_width;
void *__enzyme_augmentfwd(void *, ...);
void __enzyme_reverse(void *, ...);

enum { N = 4, W = 3 };

static void f(double *x, double *out, int n) {
  for (int i = 0; i < n; i++)
    x[i] = x[i] + 0.25 * sin(x[(i + 1) % n]) * x[i];
  double s = 0;
  for (int i = 0; i < n; i++) {
    s += x[i] * x[i];
    out[i] = s * x[(i + 2) % n];
  }
}

static __attribute__((noinline)) void *forward(double *x, double (*dx)[N],
                                               double *out, double (*dout)[N]) {
  return __enzyme_augmentfwd((void *)f, enzyme_width, W, enzyme_dup, x, dx[0],
                             dx[1], dx[2], enzyme_dup, out, dout[0], dout[1],
                             dout[2], enzyme_const, N);
}
static __attribute__((noinline)) void reverse(double *x, double (*dx)[N],
                                              double *out, double (*dout)[N],
                                              void *tape) {
  __enzyme_reverse((void *)f, enzyme_width, W, enzyme_dup, x, dx[0], dx[1],
                   dx[2], enzyme_dup, out, dout[0], dout[1], dout[2],
                   enzyme_const, N, tape);
}

static double seed(int w, int i) {
  return rc_seed_value(i) * (w + 1) - 0.2 * w;
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
  double x[N] = {0.7, -0.4, 1.1, 0.2}, out[N], dx[W][N], dout[W][N];
  long double p[2 * N], got[2 * N];
  for (int i = 0; i < N; i++)
    p[i] = x[i], out[i] = p[N + i] = 0.3 * i;
  for (int w = 0; w < W; w++)
    for (int i = 0; i < N; i++)
      dx[w][i] = seed(w, i), dout[w][i] = seed(w, N + i);
  void *tape = forward(x, dx, out, dout);
  reverse(x, dx, out, dout, tape);
  for (lane = 0; lane < W; lane++) {
    for (int i = 0; i < N; i++)
      got[i] = dx[lane][i], got[N + i] = dout[lane][i];
    rc_check("split_width", run, p, got, 2 * N);
  }
  return rc_result();
}

#include <math.h>
#define RC_OWN_PROTOTYPE
#include "rev_check.h"
/* Vector reverse mode, width 4: calls to defined functions (kept out of
 * line) that read the caller's matrix and vector and write its output, a
 * loop over rows; four lanes, each with its own shadows of A, x and y. */
extern int enzyme_width;
void __enzyme_autodiff(void *, ...);

enum { R = 3, C = 4, W = 4 };

__attribute__((noinline)) static double dot(const double *a, const double *b,
                                            int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += a[i] * b[i];
  return s;
}

__attribute__((noinline)) static void squash(double *y, int n) {
  for (int i = 0; i < n; i++)
    y[i] = tanh(y[i]) + 0.5 * y[i];
}

static void f(const double *A, const double *x, double *y) {
  for (int r = 0; r < R; r++)
    y[r] = dot(A + r * C, x, C) * x[r];
  squash(y, R);
}

static double seed(int w, int i) {
  return rc_seed_value(i) + 0.2 * w * (i % 3 - 1);
}

static int lane;
static long double run(const long double *p) {
  double A[R * C], x[C], y[R];
  for (int i = 0; i < R * C; i++)
    A[i] = (double)p[i];
  for (int i = 0; i < C; i++)
    x[i] = (double)p[R * C + i];
  for (int i = 0; i < R; i++)
    y[i] = (double)p[R * C + C + i];
  f(A, x, y);
  long double r = 0;
  for (int i = 0; i < R * C; i++)
    r += seed(lane, i) * (long double)A[i];
  for (int i = 0; i < C; i++)
    r += seed(lane, R * C + i) * (long double)x[i];
  for (int i = 0; i < R; i++)
    r += seed(lane, R * C + C + i) * (long double)y[i];
  return r;
}

enum { P = R * C + C + R };

int main(void) {
  double A[R * C], x[C], y[R], dA[W][R * C], dx[W][C], dy[W][R];
  long double p[P], got[P];
  for (int i = 0; i < R * C; i++)
    A[i] = p[i] = 0.3 * sin(1.3 * i + 0.2);
  for (int i = 0; i < C; i++)
    x[i] = p[R * C + i] = 0.5 - 0.25 * i;
  for (int i = 0; i < R; i++)
    y[i] = p[R * C + C + i] = 0.1 * i;
  for (int w = 0; w < W; w++) {
    for (int i = 0; i < R * C; i++)
      dA[w][i] = seed(w, i);
    for (int i = 0; i < C; i++)
      dx[w][i] = seed(w, R * C + i);
    for (int i = 0; i < R; i++)
      dy[w][i] = seed(w, R * C + C + i);
  }
  __enzyme_autodiff((void *)f, enzyme_width, W, enzyme_dup, A, dA[0], dA[1],
                    dA[2], dA[3], enzyme_dup, x, dx[0], dx[1], dx[2], dx[3],
                    enzyme_dup, y, dy[0], dy[1], dy[2], dy[3]);
  for (lane = 0; lane < W; lane++) {
    for (int i = 0; i < R * C; i++)
      got[i] = dA[lane][i];
    for (int i = 0; i < C; i++)
      got[R * C + i] = dx[lane][i];
    for (int i = 0; i < R; i++)
      got[R * C + C + i] = dy[lane][i];
    rc_check("width4_calls", run, p, got, P);
  }
  return rc_result();
}

#include <math.h>
#define RC_OWN_PROTOTYPE
#include "rev_check.h"
/* Vector reverse mode, width 2, of a function that keeps its active
 * buffers' addresses in a local array of pointers (at -O0 a stack slot
 * whose shadow holds the caller's shadows of x and y: one augmented pass
 * cannot serve both lanes) and reads them back through it, in it and in a
 * callee handed the array; another local array points at its own scratch
 * rows, which a callee fills through it (its writes land in memory the
 * call made, so rerunning it per lane is invisible).  The results go to
 * the caller's out, where the first lane's writes are undone before the
 * second lane runs. */
extern int enzyme_width, enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);

enum { N = 4, W = 2 };

__attribute__((noinline)) static double dot(const double *const *rows,
                                            int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += rows[0][i] * rows[1][(i + 1) % n];
  return s;
}

__attribute__((noinline)) static void fill(double *const *to,
                                           const double *const *from, int n) {
  for (int i = 0; i < n; i++) {
    to[0][i] = from[0][i] * from[1][i];
    to[1][i] = cos(from[1][(i + 1) % n]) + to[0][i];
  }
}

static void f(const double *x, const double *y, double *out, int n) {
  const double *rows[2] = {x, y};
  double t0[N], t1[N];
  double *scratch[2] = {t0, t1};
  fill(scratch, rows, n);
  double d = dot(rows, n);
  for (int i = 0; i < n; i++) {
    const double *r = rows[i % 2];
    out[i] = sin(r[i]) * d + rows[1 - i % 2][n - 1 - i] * scratch[i % 2][i];
  }
}

static double seed(int w, int i) { return rc_seed_value(i) - 0.2 * w; }

static int lane;
static long double run(const long double *p) {
  double x[N], y[N], out[N];
  for (int i = 0; i < N; i++)
    x[i] = (double)p[i], y[i] = (double)p[N + i], out[i] = (double)p[2 * N + i];
  f(x, y, out, N);
  long double r = 0;
  for (int i = 0; i < N; i++)
    r += seed(lane, i) * (long double)x[i] +
         seed(lane, N + i) * (long double)y[i] +
         seed(lane, 2 * N + i) * (long double)out[i];
  return r;
}

int main(void) {
  double x[N] = {0.6, -0.5, 0.8, 0.3}, y[N] = {0.2, 0.9, -0.4, 0.7};
  double out[N] = {0}, dx[W][N], dy[W][N], dout[W][N];
  long double p[3 * N], got[3 * N];
  for (int i = 0; i < N; i++)
    p[i] = x[i], p[N + i] = y[i], p[2 * N + i] = out[i];
  for (int w = 0; w < W; w++)
    for (int i = 0; i < N; i++)
      dx[w][i] = seed(w, i), dy[w][i] = seed(w, N + i),
      dout[w][i] = seed(w, 2 * N + i);
  __enzyme_autodiff((void *)f, enzyme_width, W, enzyme_dup, x, dx[0], dx[1],
                    enzyme_dup, y, dy[0], dy[1], enzyme_dup, out, dout[0],
                    dout[1], enzyme_const, N);
  for (lane = 0; lane < W; lane++) {
    for (int i = 0; i < N; i++)
      got[i] = dx[lane][i], got[N + i] = dy[lane][i],
      got[2 * N + i] = dout[lane][i];
    rc_check("width2_pointer_array", run, p, got, 3 * N);
  }
  return rc_result();
}

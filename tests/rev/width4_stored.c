#include <math.h>
#include <stdlib.h>
#include <string.h>
#define RC_OWN_PROTOTYPE
#include "rev_check.h"
/* Vector reverse mode, width 4, of a function whose augmented pass keeps
 * its caller's shadows in memory (a pair of pointers into x on the stack,
 * a heap array of pointers into x and y) and that writes its caller's
 * memory through its arguments: y zeroed with memset and accumulated
 * into, x updated in place; a's adjoint comes back per lane.  Lanes 0..2
 * each save what those writes overwrite and put it back after their
 * reverse, so every lane's primal starts from the caller's memory. */
extern int enzyme_width, enzyme_dup, enzyme_out, enzyme_const;
typedef struct {
  double d[4];
} lanes;
lanes __enzyme_autodiff(void *, ...);

enum { N = 4, W = 4 };

typedef struct span {
  double *lo, *hi;
} span;

__attribute__((noinline)) static double spread(const span *s, double a) {
  double r = 0;
  for (const double *q = s->lo; q < s->hi; q++)
    r += a * *q * *q;
  return r;
}

static double f(double *x, double a, double *y, int n) {
  span s = {x, x + n};
  double **ptrs = malloc(2 * n * sizeof *ptrs);
  for (int i = 0; i < n; i++)
    ptrs[2 * i] = x + (i + 1) % n, ptrs[2 * i + 1] = y + i;
  memset(y, 0, n * sizeof *y);
  double e = spread(&s, a);
  for (int i = 0; i < n; i++)
    e += 0.1 * *ptrs[2 * i + 1] * *ptrs[2 * i]; /* zeros of y, read */
  for (int k = 0; k < 2; k++)
    for (int i = 0; i < n; i++)
      y[(i + k) % n] += *ptrs[2 * i] * exp(0.1 * a * x[i]);
  for (int i = 0; i < n; i++)
    x[i] = x[i] * e - y[i];
  free(ptrs);
  return e * a + y[0] * y[n - 1];
}

static double seed(int w, int i) {
  return rc_seed_value(i) * (1 + 0.5 * w) - 0.05 * w;
}

static int lane;
static long double run(const long double *p) {
  double x[N], y[N];
  for (int i = 0; i < N; i++)
    x[i] = (double)p[i], y[i] = (double)p[N + 1 + i];
  long double r = f(x, (double)p[N], y, N);
  for (int i = 0; i < N; i++)
    r += seed(lane, i) * (long double)x[i] +
         seed(lane, N + 1 + i) * (long double)y[i];
  return r;
}

int main(void) {
  double x[N] = {0.5, -0.2, 0.8, 0.3}, a = 0.7, y[N];
  double dx[W][N], dy[W][N];
  long double p[2 * N + 1], got[2 * N + 1];
  for (int i = 0; i < N; i++) {
    p[i] = x[i];
    y[i] = p[N + 1 + i] = 0.2 * i - 0.1;
  }
  p[N] = a;
  for (int w = 0; w < W; w++)
    for (int i = 0; i < N; i++)
      dx[w][i] = seed(w, i), dy[w][i] = seed(w, N + 1 + i);
  lanes da = __enzyme_autodiff((void *)f, enzyme_width, W, enzyme_dup, x,
                               dx[0], dx[1], dx[2], dx[3], enzyme_out, a,
                               enzyme_dup, y, dy[0], dy[1], dy[2], dy[3],
                               enzyme_const, N);
  double want_x[N], want_y[N];
  for (int i = 0; i < N; i++)
    want_x[i] = (double)p[i], want_y[i] = (double)p[N + 1 + i];
  f(want_x, a, want_y, N);
  for (int i = 0; i < N; i++) {
    rc_expect("width4_stored x", x[i], want_x[i], 1e-12);
    rc_expect("width4_stored y", y[i], want_y[i], 1e-12);
  }
  for (lane = 0; lane < W; lane++) {
    for (int i = 0; i < N; i++)
      got[i] = dx[lane][i], got[N + 1 + i] = dy[lane][i];
    got[N] = da.d[lane];
    rc_check("width4_stored", run, p, got, 2 * N + 1);
  }
  return rc_result();
}

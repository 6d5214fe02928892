#include <math.h>
#include <stdlib.h>
#define RC_OWN_PROTOTYPE
#include "rev_check.h"
/* Vector reverse mode, width 2, over calls with a custom gradient whose
 * reverse frees the tape its augmented half made (so the lanes cannot
 * share one augmented pass), in a function updating its caller's memory
 * in place: each lane runs a whole gradient, the custom halves included,
 * and lane 0's writes through y are undone before lane 1 runs. */
extern int enzyme_width, enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);

enum { N = 4, W = 2 };

__attribute__((noinline)) static double g(double a) { return a * sin(a); }
static void *aug_g(double a) {
  double *t = malloc(sizeof *t);
  *t = a;
  return t;
}
static double rev_g(double a, double d, void *tape) {
  (void)a;
  double v = *(double *)tape;
  free(tape);
  return (sin(v) + v * cos(v)) * d;
}
void *__enzyme_register_gradient_g[3] = {(void *)g, (void *)aug_g,
                                         (void *)rev_g};

static void f(const double *x, double *y, int n) {
  for (int i = 0; i < n; i++)
    y[i] = g(x[i]) * 3 + y[i] * x[(i + 1) % n];
}

static double seed(int w, int i) { return rc_seed_value(i) * (2 - w) + 0.2 * w; }

static int lane;
static long double run(const long double *p) {
  double x[N], y[N];
  for (int i = 0; i < N; i++)
    x[i] = (double)p[i], y[i] = (double)p[N + i];
  f(x, y, N);
  long double r = 0;
  for (int i = 0; i < N; i++)
    r += seed(lane, i) * (long double)x[i] +
         seed(lane, N + i) * (long double)y[i];
  return r;
}

int main(void) {
  double x[N] = {0.4, -0.9, 1.2, 0.3}, y[N], dx[W][N], dy[W][N];
  long double p[2 * N], got[2 * N];
  for (int i = 0; i < N; i++) {
    p[i] = x[i];
    y[i] = p[N + i] = 0.5 - 0.3 * i;
  }
  for (int w = 0; w < W; w++)
    for (int i = 0; i < N; i++)
      dx[w][i] = seed(w, i), dy[w][i] = seed(w, N + i);
  __enzyme_autodiff((void *)f, enzyme_width, W, enzyme_dup, x, dx[0], dx[1],
                    enzyme_dup, y, dy[0], dy[1], enzyme_const, N);
  for (lane = 0; lane < W; lane++) {
    for (int i = 0; i < N; i++)
      got[i] = dx[lane][i], got[N + i] = dy[lane][i];
    rc_check("width2_custom", run, p, got, 2 * N);
  }
  return rc_result();
}

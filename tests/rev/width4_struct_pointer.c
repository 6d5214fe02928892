#include <math.h>
#define RC_OWN_PROTOTYPE
#include "rev_check.h"
/* Vector reverse mode, width 4, of a function that keeps a pointer to its
 * active input in a struct on its stack (at -O0 a slot whose shadow holds
 * the caller's shadow of x: one augmented pass cannot serve the lanes),
 * handed by address to callees that read x through it and advance the
 * struct's cursor; the function's result is a scalar (one adjoint per
 * lane) and it also writes out, undone between lanes. */
extern int enzyme_width, enzyme_dup, enzyme_const, enzyme_out;
typedef struct {
  double dk[4];
} lanes;
lanes __enzyme_autodiff(void *, ...);

enum { N = 5, W = 4 };

typedef struct view {
  const double *at;
  int left;
  double scale;
} view;

__attribute__((noinline)) static double take(view *v) {
  double t = v->scale * *v->at;
  v->at++;
  v->left--;
  return t;
}

__attribute__((noinline)) static double drain(view *v, double k) {
  double s = 0;
  while (v->left > 0) {
    double t = take(v);
    s += t * t * k + cos(t);
  }
  return s;
}

static double f(const double *x, double k, double *out, int n) {
  view v = {x, n, 0.5 + x[0] * x[0]};
  double s = drain(&v, k);
  for (int i = 0; i < n; i++)
    out[i] = s * x[i] + k;
  return s * s;
}

static double seed(int w, int i) { return rc_seed_value(i) + 0.1 * w; }

static int lane;
static long double run(const long double *p) {
  double x[N], out[N];
  for (int i = 0; i < N; i++)
    x[i] = (double)p[i], out[i] = (double)p[N + 1 + i];
  long double r = f(x, (double)p[N], out, N);
  for (int i = 0; i < N; i++)
    r += seed(lane, i) * (long double)x[i] +
         seed(lane, N + i) * (long double)out[i];
  return r;
}

int main(void) {
  double x[N] = {0.6, -0.5, 0.8, 0.3, -0.2}, k = 0.7, out[N] = {0};
  double dx[W][N], dout[W][N];
  long double p[2 * N + 1], got[2 * N + 1];
  for (int i = 0; i < N; i++)
    p[i] = x[i], p[N + 1 + i] = out[i];
  p[N] = k;
  for (int w = 0; w < W; w++)
    for (int i = 0; i < N; i++)
      dx[w][i] = seed(w, i), dout[w][i] = seed(w, N + i);
  lanes r = __enzyme_autodiff((void *)f, enzyme_width, W, enzyme_dup, x,
                              dx[0], dx[1], dx[2], dx[3], enzyme_out, k,
                              enzyme_dup, out, dout[0], dout[1], dout[2],
                              dout[3], enzyme_const, N);
  for (lane = 0; lane < W; lane++) {
    for (int i = 0; i < N; i++)
      got[i] = dx[lane][i], got[N + 1 + i] = dout[lane][i];
    got[N] = r.dk[lane];
    rc_check("width4_struct_pointer", run, p, got, 2 * N + 1);
  }
  return rc_result();
}

#include <math.h>
#include <stdlib.h>
#include "rev_check.h"
/* Split mode with the tape in the caller's buffers (enzyme_allocated N,
 * enzyme_tape p; N from __enzyme_augmentsize), two tapes alive at once
 * and consumed in the other order, a callee sharing the tape, a stencil
 * over a stack array, and an enzyme_out scalar whose adjoint the reverse
 * returns. */
double __enzyme_augmentfwd(void *, ...);
double __enzyme_reverse(void *, ...);
long __enzyme_augmentsize(void *, ...);
extern int enzyme_allocated, enzyme_tape;

enum { N = 6 };

static __attribute__((noinline)) double smooth(const double *t, int i, int n,
                                               double k) {
  return t[i] + k * (t[(i + 1) % n] - 2 * t[i] + t[(i + n - 1) % n]);
}

static double f(double *x, double k, int n) {
  double t[N];
  for (int i = 0; i < n; i++)
    t[i] = x[i];
  for (int step = 0; step < 3; step++) {
    double u[N];
    for (int i = 0; i < n; i++)
      u[i] = smooth(t, i, n, k);
    for (int i = 0; i < n; i++)
      t[i] = u[i] * cos(0.1 * u[i]);
  }
  double e = 0;
  for (int i = 0; i < n; i++) {
    e += t[i] * t[i];
    x[i] = t[i];
  }
  return e;
}

static long double run(const long double *p) {
  double x[N];
  for (int i = 0; i < N; i++)
    x[i] = (double)p[i];
  long double r = f(x, (double)p[N], N);
  for (int i = 0; i < N; i++)
    r += rc_seed_value(i) * (long double)x[i];
  return r;
}

int main(void) {
  long size = __enzyme_augmentsize((void *)f, enzyme_dup, 0, 0, enzyme_out,
                                   0.0, enzyme_const, N);
  char *tape_a = malloc(size), *tape_b = malloc(size);
  double xa[N], dxa[N], xb[N], dxb[N], ka = 0.2, kb = 0.15;
  long double pa[N + 1], pb[N + 1], ga[N + 1], gb[N + 1];
  for (int i = 0; i < N; i++) {
    xa[i] = 0.5 + 0.3 * i - 0.1 * i * i;
    xb[i] = -0.4 + 0.25 * i;
    pa[i] = xa[i];
    pb[i] = xb[i];
  }
  pa[N] = ka;
  pb[N] = kb;
  rc_seed(dxa, N);
  rc_seed(dxb, N);
  double ya[N], yb[N];
  for (int i = 0; i < N; i++)
    ya[i] = xa[i], yb[i] = xb[i];
  double want_a = f(ya, ka, N), want_b = f(yb, kb, N);
  double ea = __enzyme_augmentfwd((void *)f, enzyme_dup, xa, dxa, enzyme_out,
                                  ka, enzyme_const, N, enzyme_allocated, size,
                                  enzyme_tape, tape_a);
  double eb = __enzyme_augmentfwd((void *)f, enzyme_dup, xb, dxb, enzyme_out,
                                  kb, enzyme_const, N, enzyme_allocated, size,
                                  enzyme_tape, tape_b);
  double dkb = __enzyme_reverse((void *)f, enzyme_dup, xb, dxb, enzyme_out, kb,
                                enzyme_const, N, 1.0, enzyme_allocated, size,
                                enzyme_tape, tape_b);
  double dka = __enzyme_reverse((void *)f, enzyme_dup, xa, dxa, enzyme_out, ka,
                                enzyme_const, N, 1.0, enzyme_allocated, size,
                                enzyme_tape, tape_a);
  rc_expect("split_allocated primal a", ea, want_a, 1e-12);
  rc_expect("split_allocated primal b", eb, want_b, 1e-12);
  for (int i = 0; i < N; i++) {
    ga[i] = dxa[i];
    gb[i] = dxb[i];
  }
  ga[N] = dka;
  gb[N] = dkb;
  rc_check("split_allocated a", run, pa, ga, N + 1);
  rc_check("split_allocated b", run, pb, gb, N + 1);
  free(tape_a);
  free(tape_b);
  return rc_result();
}

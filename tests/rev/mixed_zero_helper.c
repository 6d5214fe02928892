/* One helper zeroes (memset 0) a struct of pointers to active data, an
 * array of active doubles and an array of double/long unions: the
 * context-insensitive analysis merges the helper's bytes into a conflict,
 * which a zero memset may leave unclassified (zero in both passes,
 * rev/memory.c).  The pointers are reassigned and written through after,
 * the doubles reassigned.  Every entry of the gradient against central
 * finite differences (long double) from nonzero shadows; main returns the
 * number of mismatches. */
#include <math.h>
#include <stdio.h>
#include <string.h>
extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
enum { N = 4 };
typedef struct { const double *p; double *q; long n; } ptrs;
typedef union { double d; long l; } dl;
/* one helper zeroes a struct of pointers and an array of doubles: at -O0
 * the context-insensitive analysis merges them (pointer vs float bytes) */
__attribute__((noinline)) static void zero_bytes(void *dst, size_t n) { memset(dst, 0, n); }
__attribute__((noinline)) static void acc(ptrs *p, double k) { p->q[0] += p->p[1] * k; p->q[1] += p->p[0] * p->p[0]; }
static double f(double *x, double *out) {
  ptrs p = {x, out, 2};
  double t[3] = {x[0] * x[2], x[1], x[3] * x[3]};
  acc(&p, t[0]);
  double a = t[0] * t[1] + t[2] * x[0];
  zero_bytes(t, sizeof t);
  zero_bytes(&p, sizeof p);
  p.p = x + 1; p.q = out + 2;
  acc(&p, x[3]);
  t[1] = x[2] * 3;
  dl u[2]; zero_bytes(u, sizeof u);
  u[0].d = x[0]; u[1].l = 3;
  return a + t[1] * t[0] + u[0].d * u[1].l + out[0] * out[3];
}
enum { NV = 2 * N };
static void g(double *x, double *dx, double *out, double *dout) {
  __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_dup, out, dout);
}
static long double total(const double *v, const double *seed) {
  double w[NV]; memcpy(w, v, sizeof w);
  long double r = f(w, w + N);
  for (int i = 0; i < NV; i++) r += (long double)seed[i] * w[i];
  return r;
}
int main(void) {
  double v[NV], seed[NV], d[NV], w[NV]; int bad = 0;
  for (int i = 0; i < NV; i++) { v[i] = sin(1.0 + 0.7 * i); seed[i] = 0.25 * cos(0.3 + 1.1 * i); }
  memcpy(w, v, sizeof w); memcpy(d, seed, sizeof d);
  g(w, d, w + N, d + N);
  for (int i = 0; i < NV; i++) {
    double up[NV], down[NV]; memcpy(up, v, sizeof up); memcpy(down, v, sizeof down);
    up[i] += 1e-6; down[i] -= 1e-6;
    long double want = (total(up, seed) - total(down, seed)) / ((long double)(up[i] - down[i]));
    if (fabsl(d[i] - want) > 1e-6L * (1 + fabsl(want))) { printf("d[%d] = %.12g, finite differences %.12Lg\n", i, d[i], want); bad++; }
  }
  printf("%d mismatches\n", bad); return bad;
}

/* Bytes whose type changes under the same address (src/ad/analysis and
 * rev/memory.c's segments): a union read as a double then written as a
 * long, structs mixing int and double copied by memcpy, a struct of
 * pointers to active data zeroed by a helper and reassigned, doubles
 * serialized through a char buffer and read back.  Every entry of the
 * gradient against central finite differences (long double) from nonzero
 * shadows; main returns the number of mismatches. */
#include <math.h>
#include <stdio.h>
#include <string.h>
extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
enum { N = 4 };
typedef union { double d; long l; } dl;
typedef struct { int k; double v; } iv;
typedef struct { double v; int k; double w; } viw;
typedef struct { const double *p; double *q; double s; } ptrs;
/* one helper copies both struct kinds (bytes differ between the sites) */
__attribute__((noinline)) static void copy_bytes(void *dst, const void *src, size_t n) { memcpy(dst, src, n); }
__attribute__((noinline)) static void zero_bytes(void *dst, size_t n) { memset(dst, 0, n); }
static double f(double *x, double *out) {
  /* a union: a double through it, then a long through the same bytes */
  dl u; u.d = x[0] * x[1];
  double a = u.d * 2.0;
  u.l = 7; a += (double)u.l * x[2];
  /* shared helper: int+double, then double+int+double */
  iv s1 = {3, x[1] * x[3]}, t1; memcpy(&t1, &s1, sizeof s1);
  viw s2 = {x[2] * x[2], 5, sin(x[0])}, t2; memcpy(&t2, &s2, sizeof s2);
  a += t1.v * t1.k + t2.v * t2.w + t2.k;
  /* struct of pointers to active data zeroed, then reassigned */
  ptrs p = {x, out, x[3]};
  a += p.p[1] * p.s;
  zero_bytes(&p, sizeof p);
  p.p = x + 2; p.q = out + 1; p.s = x[0];
  p.q[0] = p.p[0] * p.s + a;
  /* doubles serialized through a char buffer */
  unsigned char buf[2 * sizeof(double)];
  double w2[2] = {x[1] * x[2], cos(x[3])};
  memcpy(buf, w2, sizeof buf);
  double back[2]; memcpy(back, buf, sizeof back);
  out[0] = back[0] * back[1] + a;
  return a * out[1];
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

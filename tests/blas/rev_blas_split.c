/*
 * Split mode of a gemv (src/ad/rev/overwritten.c): __enzyme_augmentfwd,
 * then the caller overwrites A and x, then __enzyme_reverse from the
 * tape.  The adjoint (dA += alpha dy x', dx += alpha A' dy) must read
 * the values the call read: split pairs always copy.  Every entry of the
 * gradient against central finite differences (long double) from nonzero
 * shadows; main returns the number of mismatches.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
enum { COL = 102, NT = 111, M = 3, N = 2, LDA = 4 };
__attribute__((noinline)) void cblas_dgemv(int layout, int trans, int m, int n,
    double alpha, const double *A, int lda, const double *x, int incx,
    double beta, double *y, int incy) {
  if (layout != COL) return;
  int t = trans != NT;
  int leny = t ? n : m, lenx = t ? m : n;
  for (int i = 0; i < leny; i++) {
    double s = 0;
    for (int j = 0; j < lenx; j++)
      s += (t ? A[j + i * lda] : A[i + j * lda]) * x[j * incx];
    y[i * incy] = alpha * s + (beta == 0 ? 0 : beta * y[i * incy]);
  }
}
__attribute__((noinline)) void cblas_dger(int layout, int m, int n, double alpha,
    const double *x, int incx, const double *y, int incy, double *A, int lda) {
  if (layout != COL) return;
  for (int j = 0; j < n; j++)
    for (int i = 0; i < m; i++)
      A[i + j * lda] += alpha * x[i * incx] * y[j * incy];
}
__attribute__((noinline)) void cblas_dscal(int n, double a, double *x, int incx) {
  for (int i = 0; i < n; i++) x[i * incx] = a == 0 ? 0 : a * x[i * incx];
}
__attribute__((noinline)) double cblas_ddot(int n, const double *x, int incx, const double *y, int incy) {
  double s = 0; for (int i = 0; i < n; i++) s += x[i * incx] * y[i * incy]; return s;
}
__attribute__((noinline)) void cblas_daxpy(int n, double a, const double *x, int incx, double *y, int incy) {
  for (int i = 0; i < n; i++) y[i * incy] += a * x[i * incx];
}
#define WSUM(v) ((0.3*(v)[0]+1)*(v)[0] + (0.4*(v)[1]+1)*(v)[1] + (0.5*(v)[2]+1)*(v)[2])

typedef struct { void *tape; double primal; } augmented;
augmented __enzyme_augmentfwd(void *, ...);
void __enzyme_reverse(void *, ...);
/* y := 1.5 A x + 0.5 y, a scalar of y */
static double k(double *A, double *x, double *y) {
  cblas_dgemv(COL, NT, M, N, 1.5, A, LDA, x, 1, 0.5, y, 1);
  return WSUM(y);
}
enum { NA = LDA * N, NX = 3, NY = M, NV = NA + NX + NY };
static __attribute__((noinline)) augmented forward(double *w, double *d) {
  return __enzyme_augmentfwd((void *)k, enzyme_dup, w, d, enzyme_dup, w + NA, d + NA, enzyme_dup, w + NA + NX, d + NA + NX);
}
static __attribute__((noinline)) void reverse(double *w, double *d, void *tape) {
  __enzyme_reverse((void *)k, enzyme_dup, w, d, enzyme_dup, w + NA, d + NA, enzyme_dup, w + NA + NX, d + NA + NX, 1.0, tape);
}
static long double total(const double *v, const double *seed) {
  double w[NV]; memcpy(w, v, sizeof w);
  long double r = k(w, w + NA, w + NA + NX);
  for (int i = 0; i < NV; i++) r += (long double)seed[i] * w[i];
  return r;
}
int main(void) {
  double v[NV], seed[NV], d[NV], w[NV]; int bad = 0;
  for (int i = 0; i < NV; i++) { v[i] = sin(1.0 + 0.7 * i); seed[i] = 0.25 * cos(0.3 + 1.1 * i); }
  memcpy(w, v, sizeof w); memcpy(d, seed, sizeof d);
  augmented a = forward(w, d);
  /* the caller overwrites A and x between the passes */
  for (int i = 0; i < NA + NX; i++) w[i] = 100.0 + i;
  reverse(w, d, a.tape);
  for (int i = 0; i < NV; i++) {
    double up[NV], down[NV]; memcpy(up, v, sizeof up); memcpy(down, v, sizeof down);
    up[i] += 1e-6; down[i] -= 1e-6;
    long double want = (total(up, seed) - total(down, seed)) / ((long double)(up[i] - down[i]));
    if (fabsl(d[i] - want) > 1e-6L * (1 + fabsl(want))) { printf("d[%d] = %.12g, finite differences %.12Lg\n", i, d[i], want); bad++; }
  }
  printf("%d mismatches\n", bad); return bad;
}

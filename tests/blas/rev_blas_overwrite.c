/*
 * Attacks on reverse-mode BLAS reading an input array in place
 * (src/ad/rev/overwritten.c): gemv's adjoint reads x (dA += alpha dy x')
 * after the augmented pass returned, so x must still hold what the call
 * read.  Each kernel checks every entry of the gradient against central
 * finite differences (long double) from nonzero shadows:
 *   local     x squared into a local array: the alloca is gone when aug
 *             returns (at -O0 nothing marks its end; the stack is
 *             scribbled over before each gradient) -- copied;
 *   held      the same array reached through a struct and a callee;
 *   heap      a malloc'd workspace freed after the call, and a second
 *             allocation (likely the same block) written;
 *   memcpy    x overwritten by a memcpy after the call;
 *   callee    x overwritten by a defined callee after the call;
 *   stored    x's address kept in a volatile slot, reloaded and written;
 *   pingpong  a loop whose next trip's gemv overwrites the x it read.
 * main returns the number of mismatches.
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
/* x squared into a local array: the adjoint of A reads it after aug returned */
static double k_local(double *A, double *x, double *y) {
  double t[N];
  for (int i = 0; i < N; i++) t[i] = x[i] * x[i] + 1.0;
  cblas_dgemv(COL, NT, M, N, 1.5, A, LDA, t, 1, 0.5, y, 1);
  return WSUM(y);
}
/* the same through a pointer held in a struct */
struct holder { double *p; int n; };
__attribute__((noinline)) static double *pick(struct holder *h) { return h->p; }
static double k_held(double *A, double *x, double *y) {
  double t[N];
  struct holder h = {t, N};
  for (int i = 0; i < N; i++) t[i] = x[i] * x[i] + 1.0;
  cblas_dgemv(COL, NT, M, N, 1.5, A, LDA, pick(&h), 1, 0.5, y, 1);
  return WSUM(y);
}
/* heap workspace, freed: */
static double k_heap(double *A, double *x, double *y) {
  double *t = malloc(sizeof(double) * N);
  for (int i = 0; i < N; i++) t[i] = x[i] * x[i] + 1.0;
  cblas_dgemv(COL, NT, M, N, 1.5, A, LDA, t, 1, 0.5, y, 1);
  free(t);
  double *u = malloc(sizeof(double) * N);   /* likely t's block again */
  u[0] = 100, u[1] = -100;
  double r = WSUM(y) + u[0] * 0;
  free(u);
  return r;
}
/* memcpy over x after the call */
static double k_memcpy(double *A, double *x, double *y) {
  cblas_dgemv(COL, NT, M, N, 1.5, A, LDA, x, 1, 0.5, y, 1);
  double r = WSUM(y);
  double z[N] = {7, -9};
  memcpy(x, z, sizeof z);
  return r;
}
/* a callee writes x */
__attribute__((noinline)) static void clobber(double *p) { p[0] = 3; p[1] = -4; }
static double k_callee(double *A, double *x, double *y) {
  cblas_dgemv(COL, NT, M, N, 1.5, A, LDA, x, 1, 0.5, y, 1);
  double r = WSUM(y);
  clobber(x);
  return r;
}
/* a pointer to x stored in memory and reloaded, then written */
static double k_stored(double *A, double *x, double *y) {
  double *volatile slot = x;
  cblas_dgemv(COL, NT, M, N, 1.5, A, LDA, x, 1, 0.5, y, 1);
  double r = WSUM(y);
  double *p = slot;
  p[0] = 5; p[1] = 6;
  return r;
}
/* ping-pong: y := A x, then x := A y on the next trip (square 2x2 block) */
static double k_pingpong(double *A, double *x, double *y) {
  double *p = x, *q = y, r = 0;
  for (int t = 0; t < 3; t++) {
    cblas_dgemv(COL, NT, 2, 2, 0.7, A, LDA, p, 1, 0.0, q, 1);
    r += q[0] * q[0] + q[1];
    double *s = p; p = q; q = s;
  }
  return r;
}
typedef double (*kernel)(double *, double *, double *);
enum { NA = LDA * N, NX = 3, NY = M, NV = NA + NX + NY };
#define GRAD(f) static void g_##f(double *A, double *dA, double *x, double *dx, double *y, double *dy) { \
    __enzyme_autodiff((void *)f, enzyme_dup, A, dA, enzyme_dup, x, dx, enzyme_dup, y, dy); }
GRAD(k_local) GRAD(k_held) GRAD(k_heap) GRAD(k_memcpy) GRAD(k_callee) GRAD(k_stored) GRAD(k_pingpong)
typedef void (*gradient)(double *, double *, double *, double *, double *, double *);
static int bad;
static long double total(kernel f, const double *v, const double *seed) {
  double w[NV]; memcpy(w, v, sizeof w);
  long double r = f(w, w + NA, w + NA + NX);
  for (int i = 0; i < NV; i++) r += (long double)seed[i] * w[i];
  return r;
}
/* scribble over the stack the aug frame used */
__attribute__((noinline)) static void scribble(void) { volatile double junk[256]; for (int i = 0; i < 256; i++) junk[i] = 1e3 + i; }
static void check(const char *name, kernel f, gradient g) {
  double v[NV], seed[NV], d[NV], w[NV];
  for (int i = 0; i < NV; i++) { v[i] = sin(1.0 + 0.7 * i); seed[i] = 0.25 * cos(0.3 + 1.1 * i); }
  memcpy(w, v, sizeof w); memcpy(d, seed, sizeof d);
  scribble();
  g(w, d, w + NA, d + NA, w + NA + NX, d + NA + NX);
  for (int i = 0; i < NV; i++) {
    double up[NV], down[NV]; memcpy(up, v, sizeof up); memcpy(down, v, sizeof down);
    up[i] += 1e-6; down[i] -= 1e-6;
    long double want = (total(f, up, seed) - total(f, down, seed)) / ((long double)(up[i] - down[i]));
    if (fabsl(d[i] - want) > 1e-6L * (1 + fabsl(want))) {
      printf("%s: d[%d] = %.12g, finite differences %.12Lg\n", name, i, d[i], want); bad++; }
  }
}
int main(void) {
  check("local", k_local, g_k_local); check("held", k_held, g_k_held); check("heap", k_heap, g_k_heap);
  check("memcpy", k_memcpy, g_k_memcpy); check("callee", k_callee, g_k_callee);
  check("stored", k_stored, g_k_stored); check("pingpong", k_pingpong, g_k_pingpong);
  printf("%d mismatches\n", bad); return bad;
}

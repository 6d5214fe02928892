/*
 * Which arrays reverse-mode BLAS copies (src/ad/rev/overwritten.c): a
 * gemv's A and x are read by its adjoint (dA += alpha dy x', dx +=
 * alpha A' dy); the augmented pass copies them only when memory they point
 * to may be written between the call and the reverse.  The routines are
 * defined here (small, column-major) and record the vector the adjoint's
 * dger receives, so each case asserts where the adjoint read x (the
 * program's array, or a copy), and every entry of the gradient against
 * central finite differences (long double) from nonzero shadows:
 *   kept       nothing written after the call, the arrays `restrict`:
 *              x read in place;
 *   plain      the same without `restrict`: copied (x may be the output
 *              y, which the call overwrites);
 *   restrict   a global written after the call, x `restrict`: in place;
 *   flag       the same store, only x without `restrict` (it may point
 *              to the global): copied;
 *   over       x and A overwritten after the call: copied (the gradient
 *              is wrong if the adjoint read the program's x);
 *   in_loop    a loop calling gemv writes x on its next trip: copied;
 *   axpy_self  axpy with an active alpha (its adjoint reads x): numbers
 *              only (no dger).
 * main returns the number of mismatches.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);

enum { COL = 102, NT = 111, M = 3, N = 2, LDA = 4 };

static const double *ger_y_seen; /* the y operand of the last dger */

__attribute__((noinline)) void cblas_dgemv(int layout, int trans, int m, int n,
                                           double alpha, const double *A,
                                           int lda, const double *x, int incx,
                                           double beta, double *y, int incy) {
  if (layout != COL) /* used: clang passes an unused argument as poison */
    return;
  int t = trans != NT && trans != 'N' && trans != 'n';
  int leny = t ? n : m, lenx = t ? m : n;
  for (int i = 0; i < leny; i++) {
    double s = 0;
    for (int j = 0; j < lenx; j++)
      s += (t ? A[j + i * lda] : A[i + j * lda]) * x[j * incx];
    y[i * incy] = alpha * s + (beta == 0 ? 0 : beta * y[i * incy]);
  }
}

__attribute__((noinline)) void cblas_dger(int layout, int m, int n, double alpha,
                                          const double *x, int incx,
                                          const double *y, int incy, double *A,
                                          int lda) {
  if (layout != COL)
    return;
  ger_y_seen = y;
  for (int j = 0; j < n; j++)
    for (int i = 0; i < m; i++)
      A[i + j * lda] += alpha * x[i * incx] * y[j * incy];
}

__attribute__((noinline)) void cblas_dscal(int n, double a, double *x, int incx) {
  for (int i = 0; i < n; i++)
    x[i * incx] = a == 0 ? 0 : a * x[i * incx];
}

__attribute__((noinline)) double cblas_ddot(int n, const double *x, int incx,
                                            const double *y, int incy) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += x[i * incx] * y[i * incy];
  return s;
}

__attribute__((noinline)) void cblas_daxpy(int n, double a, const double *x,
                                           int incx, double *y, int incy) {
  for (int i = 0; i < n; i++)
    y[i * incy] += a * x[i * incx];
}

/* a smooth scalar of y, written out: a call at -O0 may write anything */
#define WSUM(v)                                                                \
  ((0.3 * (v)[0] + 1) * (v)[0] + (0.4 * (v)[1] + 1) * (v)[1] +                 \
   (0.5 * (v)[2] + 1) * (v)[2])

int flag;

/* y := 1.5 A x + 0.5 y */
static double k_kept(double *restrict A, double *restrict x,
                     double *restrict y) {
  cblas_dgemv(COL, NT, M, N, 1.5, A, LDA, x, 1, 0.5, y, 1);
  return WSUM(y);
}
static double k_plain(double *A, double *x, double *y) {
  cblas_dgemv(COL, NT, M, N, 1.5, A, LDA, x, 1, 0.5, y, 1);
  return WSUM(y);
}
static double k_restrict(double *restrict A, double *restrict x,
                         double *restrict y) {
  cblas_dgemv(COL, NT, M, N, 1.5, A, LDA, x, 1, 0.5, y, 1);
  flag = 1;
  return WSUM(y);
}
static double k_flag(double *restrict A, double *x, double *restrict y) {
  cblas_dgemv(COL, NT, M, N, 1.5, A, LDA, x, 1, 0.5, y, 1);
  flag = 1;
  return WSUM(y);
}
static double k_over(double *A, double *x, double *y) {
  cblas_dgemv(COL, NT, M, N, 1.5, A, LDA, x, 1, 0.5, y, 1);
  double r = WSUM(y);
  x[0] = 2.0, x[1] = -3.0, A[0] = 4.0;
  return r;
}
static double k_in_loop(double *A, double *x, double *y) {
  double r = 0;
  for (int t = 0; t < 3; t++) {
    cblas_dgemv(COL, NT, M, N, 1.5, A, LDA, x, 1, 0.5, y, 1);
    r += WSUM(y);
    x[0] = y[0] * 0.5; /* the next trip's gemv reads this x */
  }
  return r;
}
/* y += x[2] x: the adjoint's dalpha reads x */
static double k_axpy_self(double *A, double *x, double *y) {
  (void)A;
  cblas_daxpy(N, x[2], x, 1, y, 1);
  return WSUM(y);
}

typedef double (*kernel)(double *, double *, double *);
enum { NA = LDA * N, NX = 3, NY = M, NV = NA + NX + NY };

#define GRAD(f)                                                                \
  static void g_##f(double *A, double *dA, double *x, double *dx, double *y,   \
                    double *dy) {                                              \
    __enzyme_autodiff((void *)f, enzyme_dup, A, dA, enzyme_dup, x, dx,         \
                      enzyme_dup, y, dy);                                      \
  }
GRAD(k_kept) GRAD(k_plain) GRAD(k_restrict) GRAD(k_flag) GRAD(k_over) GRAD(k_in_loop)
GRAD(k_axpy_self)
typedef void (*gradient)(double *, double *, double *, double *, double *,
                         double *);

static int bad;

/* f plus seed . (the memory f leaves): what the gradient from shadows
 * `seed` computes the derivative of */
static long double total(kernel f, const double *v, const double *seed) {
  double w[NV];
  memcpy(w, v, sizeof w);
  long double r = f(w, w + NA, w + NA + NX);
  for (int i = 0; i < NV; i++)
    r += (long double)seed[i] * w[i];
  return r;
}

/* expect_copy: whether dger must see a copy of x, not x itself */
static void check(const char *name, kernel f, gradient g, int expect_copy) {
  double v[NV], seed[NV], d[NV];
  for (int i = 0; i < NV; i++) {
    v[i] = sin(1.0 + 0.7 * i);
    seed[i] = 0.25 * cos(0.3 + 1.1 * i); /* nonzero shadows: += tested */
  }
  double w[NV];
  memcpy(w, v, sizeof w);
  memcpy(d, seed, sizeof d);
  ger_y_seen = NULL;
  g(w, d, w + NA, d + NA, w + NA + NX, d + NA + NX);
  const double *x = w + NA;
  if (!ger_y_seen) {
    printf("%s: the adjoint called no dger\n", name);
    bad++;
  } else if ((ger_y_seen != x) != expect_copy) {
    printf("%s: dger read %s, expected %s\n", name,
           ger_y_seen == x ? "x itself" : "a copy",
           expect_copy ? "a copy" : "x itself");
    bad++;
  }
  const long double h = 1e-6L;
  for (int i = 0; i < NV; i++) {
    double up[NV], down[NV];
    memcpy(up, v, sizeof up);
    memcpy(down, v, sizeof down);
    up[i] += (double)h;
    down[i] -= (double)h;
    long double want = (total(f, up, seed) - total(f, down, seed)) /
                       ((long double)(up[i] - down[i]));
    if (fabsl(d[i] - want) > 1e-6L * (1 + fabsl(want))) {
      printf("%s: d[%d] = %.12g, finite differences %.12Lg\n", name, i, d[i],
             want);
      bad++;
    }
  }
}

/* axpy's adjoint calls no dger: only the numbers */
static void check_numbers(const char *name, kernel f, gradient g) {
  double v[NV], seed[NV], d[NV], w[NV];
  for (int i = 0; i < NV; i++) {
    v[i] = sin(1.0 + 0.7 * i);
    seed[i] = 0.25 * cos(0.3 + 1.1 * i);
  }
  memcpy(w, v, sizeof w);
  memcpy(d, seed, sizeof d);
  g(w, d, w + NA, d + NA, w + NA + NX, d + NA + NX);
  for (int i = 0; i < NV; i++) {
    double up[NV], down[NV];
    memcpy(up, v, sizeof up);
    memcpy(down, v, sizeof down);
    up[i] += 1e-6, down[i] -= 1e-6;
    long double want = (total(f, up, seed) - total(f, down, seed)) /
                       ((long double)(up[i] - down[i]));
    if (fabsl(d[i] - want) > 1e-6L * (1 + fabsl(want))) {
      printf("%s: d[%d] = %.12g, finite differences %.12Lg\n", name, i, d[i],
             want);
      bad++;
    }
  }
}

int main(void) {
  check("kept", k_kept, g_k_kept, 0);
  check("plain", k_plain, g_k_plain, 1);
  check("restrict", k_restrict, g_k_restrict, 0);
  check("flag", k_flag, g_k_flag, 1);
  check("over", k_over, g_k_over, 1);
  check("in_loop", k_in_loop, g_k_in_loop, 1);
  check_numbers("axpy_self", k_axpy_self, g_k_axpy_self);
  printf("%d mismatches\n", bad);
  return bad;
}

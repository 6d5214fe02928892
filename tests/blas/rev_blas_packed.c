/*
 * How reverse-mode BLAS copies an overwritten input where the program has
 * the routines Enzyme caches with (src/ad/rev/blas.c, pack): a matrix by
 * lacpy into rows x cols with leading dimension the row count, a vector
 * by copy with increment 1, each into a buffer of its own; the adjoint's
 * calls then read the copy with those strides (Enzyme's BLAS test,
 * ReverseMode/blas.cpp, compares these calls one by one).  The routines
 * are defined here (column-major, real arithmetic) and record what they
 * are passed, so each case asserts the cache's calls and strides, and
 * every entry of the gradient against central finite differences (long
 * double) from nonzero shadows:
 *   gemv   y := 1.5 A x + 0.5 y, A 3 x 2 with lda 4, x with increment 2,
 *          both overwritten after the call: lacpy(3, 2, lda 4 -> ld 3),
 *          copy(2, inc 2 -> 1); dger reads the copy of x with increment
 *          1, the adjoint's gemv the copy of A with leading dimension 3;
 *   gemm   C := 1.5 op(A) B + 0.5 C, op(A) = A' (A 2 x 3, lda 4), B 2 x 2
 *          (ldb 3), both overwritten: lacpy(2, 3, ld 2) and lacpy(2, 2,
 *          ld 2), the adjoint's gemms reading them with those.
 * main returns the number of mismatches.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);

enum { COL = 102, NT = 111, TR = 112 };

/* what the last calls were passed */
static int lacpy_calls, lacpy_ld[2], lacpy_rows[2], copy_calls, copy_incy;
static int ger_incy, gemv_lda_rev, gemm_lds[4], gemm_calls;
static const double *lacpy_dst[2], *copy_dst, *ger_y, *gemv_a_rev;

static int transposed(int t) { return t != NT && t != 'N' && t != 'n'; }

__attribute__((noinline)) void cblas_dgemv(int layout, int trans, int m, int n,
                                           double alpha, const double *A,
                                           int lda, const double *x, int incx,
                                           double beta, double *y, int incy) {
  if (layout != COL)
    return;
  int t = transposed(trans);
  if (t) /* the adjoint's dx += alpha A' dy */
    gemv_lda_rev = lda, gemv_a_rev = A;
  int leny = t ? n : m, lenx = t ? m : n;
  for (int i = 0; i < leny; i++) {
    double s = 0;
    for (int j = 0; j < lenx; j++)
      s += (t ? A[j + i * lda] : A[i + j * lda]) * x[j * incx];
    y[i * incy] = alpha * s + (beta == 0 ? 0 : beta * y[i * incy]);
  }
}

__attribute__((noinline)) void cblas_dgemm(int layout, int ta, int tb, int m,
                                           int n, int k, double alpha,
                                           const double *A, int lda,
                                           const double *B, int ldb,
                                           double beta, double *C, int ldc) {
  if (layout != COL)
    return;
  if (gemm_calls < 2)
    gemm_lds[2 * gemm_calls] = lda, gemm_lds[2 * gemm_calls + 1] = ldb;
  gemm_calls++;
  int at = transposed(ta), bt = transposed(tb);
  for (int j = 0; j < n; j++)
    for (int i = 0; i < m; i++) {
      double s = 0;
      for (int l = 0; l < k; l++)
        s += (at ? A[l + i * lda] : A[i + l * lda]) *
             (bt ? B[j + l * ldb] : B[l + j * ldb]);
      C[i + j * ldc] = alpha * s + (beta == 0 ? 0 : beta * C[i + j * ldc]);
    }
}

__attribute__((noinline)) void cblas_dger(int layout, int m, int n, double alpha,
                                          const double *x, int incx,
                                          const double *y, int incy, double *A,
                                          int lda) {
  if (layout != COL)
    return;
  ger_y = y, ger_incy = incy;
  for (int j = 0; j < n; j++)
    for (int i = 0; i < m; i++)
      A[i + j * lda] += alpha * x[i * incx] * y[j * incy];
}

__attribute__((noinline)) void cblas_dscal(int n, double a, double *x, int incx) {
  for (int i = 0; i < n; i++)
    x[i * incx] = a == 0 ? 0 : a * x[i * incx];
}

__attribute__((noinline)) void cblas_dcopy(int n, const double *x, int incx,
                                           double *y, int incy) {
  copy_calls++, copy_dst = y, copy_incy = incy;
  for (int i = 0; i < n; i++)
    y[i * incy] = x[i * incx];
}

/* Enzyme's BLAS's C form of LAPACK's dlacpy (uplo neither 'U' nor 'L':
 * all of it) */
__attribute__((noinline)) void cblas_dlacpy(char layout, char uplo, int m,
                                            int n, const double *A, int lda,
                                            double *B, int ldb) {
  (void)uplo;
  if (layout != COL)
    return;
  if (lacpy_calls < 2) {
    lacpy_dst[lacpy_calls] = B;
    lacpy_ld[lacpy_calls] = ldb;
    lacpy_rows[lacpy_calls] = m;
  }
  lacpy_calls++;
  for (int j = 0; j < n; j++)
    for (int i = 0; i < m; i++)
      B[i + j * ldb] = A[i + j * lda];
}

/* a smooth scalar of v's first k entries */
static double wsum(const double *v, int k) {
  double s = 0;
  for (int i = 0; i < k; i++)
    s += (0.3 + 0.1 * i) * v[i] * v[i] + v[i];
  return s;
}

enum { NA = 4 * 2, NX = 4, NY = 3, NV = NA + NX + NY };

/* A and x overwritten after the call: the reverse needs the copies */
static double k_gemv(double *A, double *x, double *y) {
  cblas_dgemv(COL, NT, 3, 2, 1.5, A, 4, x, 2, 0.5, y, 1);
  double r = wsum(y, 3);
  x[0] = 2.0, x[2] = -3.0, A[0] = 4.0, A[5] = -1.0;
  return r;
}
/* A 2 x 3 (lda 4: 12 entries) used as A', B 2 x 2 (ldb 3), C 3 x 2 */
enum { GA = 12, GB = 6, GC = 6, GV = GA + GB + GC };
static double k_gemm(double *A, double *B, double *C) {
  cblas_dgemm(COL, TR, NT, 3, 2, 2, 1.5, A, 4, B, 3, 0.5, C, 3);
  double r = wsum(C, 6);
  A[0] = 4.0, A[5] = -1.0, B[0] = 3.0, B[4] = 0.5;
  return r;
}

typedef double (*kernel)(double *, double *, double *);
static void g_gemv(double *A, double *dA, double *x, double *dx, double *y,
                   double *dy) {
  __enzyme_autodiff((void *)k_gemv, enzyme_dup, A, dA, enzyme_dup, x, dx,
                    enzyme_dup, y, dy);
}
static void g_gemm(double *A, double *dA, double *B, double *dB, double *C,
                   double *dC) {
  __enzyme_autodiff((void *)k_gemm, enzyme_dup, A, dA, enzyme_dup, B, dB,
                    enzyme_dup, C, dC);
}
typedef void (*gradient)(double *, double *, double *, double *, double *,
                         double *);

static int bad;

#define EXPECT(name, cond)                                                     \
  do {                                                                         \
    if (!(cond)) {                                                             \
      printf("%s: expected %s\n", name, #cond);                                \
      bad++;                                                                   \
    }                                                                          \
  } while (0)

/* f plus seed . (the memory f leaves), over nv values split at n1, n2 */
static long double total(kernel f, const double *v, const double *seed, int nv,
                         int n1, int n2) {
  double w[32];
  memcpy(w, v, sizeof(double) * (size_t)nv);
  long double r = f(w, w + n1, w + n1 + n2);
  for (int i = 0; i < nv; i++)
    r += (long double)seed[i] * w[i];
  return r;
}

/* the gradient at v (into w, d) against central differences */
static void numbers(const char *name, kernel f, gradient g, int nv, int n1,
                    int n2, double *w, double *d) {
  double v[32], seed[32];
  for (int i = 0; i < nv; i++) {
    v[i] = sin(1.0 + 0.7 * i);
    seed[i] = 0.25 * cos(0.3 + 1.1 * i); /* nonzero shadows: += tested */
  }
  memcpy(w, v, sizeof(double) * (size_t)nv);
  memcpy(d, seed, sizeof(double) * (size_t)nv);
  lacpy_calls = copy_calls = gemm_calls = 0;
  g(w, d, w + n1, d + n1, w + n1 + n2, d + n1 + n2);
  const long double h = 1e-6L;
  for (int i = 0; i < nv; i++) {
    double up[32], down[32];
    memcpy(up, v, sizeof up);
    memcpy(down, v, sizeof down);
    up[i] += (double)h;
    down[i] -= (double)h;
    long double want = (total(f, up, seed, nv, n1, n2) -
                        total(f, down, seed, nv, n1, n2)) /
                       ((long double)(up[i] - down[i]));
    if (fabsl(d[i] - want) > 1e-6L * (1 + fabsl(want))) {
      printf("%s: d[%d] = %.12g, finite differences %.12Lg\n", name, i, d[i],
             want);
      bad++;
    }
  }
}

int main(void) {
  double w[32], d[32];
  numbers("gemv", k_gemv, g_gemv, NV, NA, NX, w, d);
  EXPECT("gemv", lacpy_calls == 1 && lacpy_ld[0] == 3 && lacpy_rows[0] == 3);
  EXPECT("gemv", copy_calls == 1 && copy_incy == 1);
  EXPECT("gemv", ger_y == copy_dst && ger_incy == 1);
  EXPECT("gemv", gemv_a_rev == lacpy_dst[0] && gemv_lda_rev == 3);
  numbers("gemm", k_gemm, g_gemm, GV, GA, GB, w, d);
  EXPECT("gemm", lacpy_calls == 2 && copy_calls == 0);
  EXPECT("gemm", lacpy_rows[0] == 2 && lacpy_ld[0] == 2); /* A: 2 x 3 */
  EXPECT("gemm", lacpy_rows[1] == 2 && lacpy_ld[1] == 2); /* B: 2 x 2 */
  /* the primal (lda 4, ldb 3), then dA's gemm (B's copy second: ld 2) */
  EXPECT("gemm", gemm_calls >= 3 && gemm_lds[0] == 4 && gemm_lds[1] == 3);
  EXPECT("gemm", gemm_lds[2] == 2 || gemm_lds[3] == 2);
  printf("%d mismatches\n", bad);
  return bad;
}

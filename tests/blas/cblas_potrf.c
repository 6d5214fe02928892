/*
 * potrf through a C interface, cblas_dpotrf(layout, uplo, n, A, lda, info)
 * (the form Enzyme's BLAS test calls; LAPACKE's): the forward derivative
 * of the factor against central finite differences, in both layouts, for
 * 'L', 'l', 'U', 'u' and the CBLAS enums, with a null and a real status
 * pointer.  The routines the tangent calls (lacpy, trsm, scal, copy,
 * lascl, trmm) are defined here, small and naive, as in Enzyme's test
 * BLAS; the tangent must leave dA's other triangle as it was.
 * main returns the number of mismatches.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

extern int enzyme_dup, enzyme_const;
void __enzyme_fwddiff(void *, ...);

static long rs(int layout, int ld) { return layout == 101 ? ld : 1; }
static long cs(int layout, int ld) { return layout == 101 ? 1 : ld; }
#define AT(M, layout, ld, i, j) (M)[(i) * rs(layout, ld) + (j) * cs(layout, ld)]
static int is_lower(int c) { return c == 'L' || c == 'l' || c == 122; }
static int is_upper(int c) { return c == 'U' || c == 'u' || c == 121; }
static int is_notrans(int c) { return c == 'N' || c == 'n' || c == 111; }
/* CblasLeft (141) does not fit a signed char */
static int is_left(int c) { return c == 'L' || c == 'l' || (unsigned char)c == 141; }

enum { MAXN = 8 };

__attribute__((noinline)) void cblas_dpotrf(char layout, char uplo, int n,
                                            double *A, int lda, int *info) {
  int lo = is_lower(uplo);
  for (int j = 0; j < n; j++) {
    double d = AT(A, layout, lda, j, j);
    for (int k = 0; k < j; k++) {
      double l = lo ? AT(A, layout, lda, j, k) : AT(A, layout, lda, k, j);
      d -= l * l;
    }
    if (d <= 0) {
      if (info)
        *info = j + 1;
      return;
    }
    d = sqrt(d);
    AT(A, layout, lda, j, j) = d;
    for (int i = j + 1; i < n; i++) {
      double s = lo ? AT(A, layout, lda, i, j) : AT(A, layout, lda, j, i);
      for (int k = 0; k < j; k++)
        s -= lo ? AT(A, layout, lda, i, k) * AT(A, layout, lda, j, k)
                : AT(A, layout, lda, k, i) * AT(A, layout, lda, k, j);
      if (lo)
        AT(A, layout, lda, i, j) = s / d;
      else
        AT(A, layout, lda, j, i) = s / d;
    }
  }
  if (info)
    *info = 0;
}

/* op(A) of a triangular A as a dense k x k matrix (row major) */
static void dense_op(char layout, char uplo, char trans, int k,
                     const double *A, int lda, double T[MAXN][MAXN]) {
  for (int i = 0; i < k; i++)
    for (int j = 0; j < k; j++) {
      int in = is_lower(uplo) ? i >= j : i <= j;
      double a = in ? AT(A, layout, lda, i, j) : 0;
      if (is_notrans(trans))
        T[i][j] = a;
      else
        T[j][i] = a;
    }
}

/* B := alpha op(A)^-1 B (left) or alpha B op(A)^-1 (right), by solving
 * against the dense triangle (lower or upper after op) */
__attribute__((noinline)) void cblas_dtrsm(char layout, char side, char uplo,
                                           char trans, char diag, int m,
                                           int n, double alpha,
                                           const double *A, int lda,
                                           double *B, int ldb) {
  (void)diag;
  int left = is_left(side), k = left ? m : n;
  double T[MAXN][MAXN];
  dense_op(layout, uplo, trans, k, A, lda, T);
  int tlow = is_lower(uplo) == is_notrans(trans);
  int count = left ? n : m;
  for (int v = 0; v < count; v++) {
    double x[MAXN];
    for (int i = 0; i < k; i++)
      x[i] = alpha * (left ? AT(B, layout, ldb, i, v) : AT(B, layout, ldb, v, i));
    /* left: T x = b; right: x T = b, i.e. T' x = b */
    int low = left ? tlow : !tlow;
    for (int s = 0; s < k; s++) {
      int i = low ? s : k - 1 - s;
      for (int j = 0; j < k; j++) {
        int before = low ? j < i : j > i;
        if (before)
          x[i] -= (left ? T[i][j] : T[j][i]) * x[j];
      }
      x[i] /= T[i][i];
    }
    for (int i = 0; i < k; i++) {
      if (left)
        AT(B, layout, ldb, i, v) = x[i];
      else
        AT(B, layout, ldb, v, i) = x[i];
    }
  }
}

__attribute__((noinline)) void cblas_dtrmm(char layout, char side, char uplo,
                                           char trans, char diag, int m,
                                           int n, double alpha,
                                           const double *A, int lda,
                                           double *B, int ldb) {
  (void)diag;
  int left = is_left(side), k = left ? m : n;
  double T[MAXN][MAXN], R[MAXN][MAXN];
  dense_op(layout, uplo, trans, k, A, lda, T);
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j++) {
      double s = 0;
      for (int l = 0; l < k; l++)
        s += left ? T[i][l] * AT(B, layout, ldb, l, j)
                  : AT(B, layout, ldb, i, l) * T[l][j];
      R[i][j] = alpha * s;
    }
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j++)
      AT(B, layout, ldb, i, j) = R[i][j];
}

static int in_part(char uplo, int i, int j) {
  return is_lower(uplo) ? i >= j : is_upper(uplo) ? i <= j : 1;
}

__attribute__((noinline)) void cblas_dlacpy(char layout, char uplo, int m,
                                            int n, const double *A, int lda,
                                            double *B, int ldb) {
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j++)
      if (in_part(uplo, i, j))
        AT(B, layout, ldb, i, j) = AT(A, layout, lda, i, j);
}

__attribute__((noinline)) void cblas_dlascl(char layout, char type, int kl,
                                            int ku, double cfrom, double cto,
                                            int m, int n, double *A, int lda,
                                            int info) {
  (void)kl, (void)ku, (void)info;
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j++)
      if (in_part(type, i, j))
        AT(A, layout, lda, i, j) = AT(A, layout, lda, i, j) * cto / cfrom;
}

__attribute__((noinline)) void cblas_dcopy(int n, const double *x, int incx,
                                           double *y, int incy) {
  for (int i = 0; i < n; i++)
    y[i * incy] = x[i * incx];
}

__attribute__((noinline)) void cblas_dscal(int n, double alpha, double *x,
                                           int incx) {
  for (int i = 0; i < n; i++)
    x[i * incx] *= alpha;
}

static void factor(char layout, char uplo, int n, double *A, int lda) {
  cblas_dpotrf(layout, uplo, n, A, lda, NULL);
}

static int status;
static void factor_status(char layout, char uplo, int n, double *A, int lda) {
  cblas_dpotrf(layout, uplo, n, A, lda, &status);
}

enum { N = 4, LDA = 6, SIZE = N * LDA };
static int failures;

/* one request each (clang -O2 would merge two requests in one function
 * into a request of a select of the functions) */
__attribute__((noinline)) static void diff_factor(char layout, char uplo,
                                                  double *A, double *dA) {
  __enzyme_fwddiff((void *)factor, enzyme_const, layout, enzyme_const, uplo,
                   enzyme_const, N, enzyme_dup, A, dA, enzyme_const, LDA);
}
__attribute__((noinline)) static void diff_factor_status(char layout,
                                                         char uplo, double *A,
                                                         double *dA) {
  __enzyme_fwddiff((void *)factor_status, enzyme_const, layout, enzyme_const,
                   uplo, enzyme_const, N, enzyme_dup, A, dA, enzyme_const, LDA);
}

static void check(int with_status, char layout, char uplo) {
  void (*f)(char, char, int, double *, int) =
      with_status ? factor_status : factor;
  double A0[SIZE], dA0[SIZE], A[SIZE], dA[SIZE], P[SIZE], M[SIZE];
  for (int k = 0; k < SIZE; k++)
    A0[k] = -7, dA0[k] = 100 + k; /* outside the matrix: must stay */
  /* A = B B' + N I, symmetric positive definite; dA symmetric */
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      double s = i == j ? N : 0;
      for (int l = 0; l < N; l++)
        s += sin(1.0 + i + 3 * l) * sin(1.0 + j + 3 * l);
      AT(A0, layout, LDA, i, j) = s;
      AT(dA0, layout, LDA, i, j) = cos(0.5 * (i + j) + 0.3 * i * j);
    }
  memcpy(A, A0, sizeof A);
  memcpy(dA, dA0, sizeof dA);
  if (with_status)
    diff_factor_status(layout, uplo, A, dA);
  else
    diff_factor(layout, uplo, A, dA);
  const double h = 1e-6;
  for (int k = 0; k < SIZE; k++)
    P[k] = A0[k] + h * dA0[k], M[k] = A0[k] - h * dA0[k];
  f(layout, uplo, N, P, LDA);
  f(layout, uplo, N, M, LDA);
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      double got = AT(dA, layout, LDA, i, j), want;
      if (in_part(uplo, i, j))
        want = (AT(P, layout, LDA, i, j) - AT(M, layout, LDA, i, j)) / (2 * h);
      else
        want = AT(dA0, layout, LDA, i, j); /* potrf leaves it alone */
      if (!(fabs(got - want) <= 1e-6 * (1 + fabs(want)))) {
        printf("layout %d uplo %d: dA(%d,%d) = %.12g, want %.12g\n", layout,
               uplo, i, j, got, want);
        failures++;
      }
    }
  for (int k = 0; k < SIZE; k++) {
    int inside = 0;
    for (int i = 0; i < N; i++)
      for (int j = 0; j < N; j++)
        inside |= &AT(dA, layout, LDA, i, j) == &dA[k];
    if (!inside && dA[k] != dA0[k]) {
      printf("layout %d uplo %d: dA[%d] outside the matrix changed\n", layout,
             uplo, k);
      failures++;
    }
  }
}

int main(void) {
  const char layouts[] = {101, 102};
  const char uplos[] = {'L', 'l', 'U', 'u', 121, 122};
  for (int l = 0; l < 2; l++)
    for (int u = 0; u < 6; u++) {
      check(0, layouts[l], uplos[u]);
      check(1, layouts[l], uplos[u]);
    }
  if (status != 0) {
    printf("status %d after a successful factorization\n", status);
    failures++;
  }
  return failures;
}

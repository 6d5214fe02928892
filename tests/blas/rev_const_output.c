/*
 * BLAS and LAPACK calls writing active values into an enzyme_const output
 * buffer that nothing the function runs reads back (Enzyme's blas.cpp
 * "TRTRS active A": B constant, in and out): the call runs, the buffer
 * holds the primal's result afterwards, and the derivative flowing into
 * it is dropped, as Enzyme drops it; the function's result does not
 * depend on the buffer's new contents, so the gradient (reverse) and the
 * tangent (forward) are those of the result alone, each entry against
 * central finite differences (long double) from nonzero shadows:
 *   axpy   b += 3 a (b read by the call itself: in and out);
 *   gemv   y := A x + 0.5 y;
 *   trtrs  B := A^-1 B, A lower (reverse mode only: trtrs has no forward
 *          rule);
 *   scal   b := a_k b, twice in a loop (each trip reads what the last
 *          wrote, into b alone);
 *   store  an active store into b, then scal's in-place update of it.
 * (Refused where the buffer is read back: errors.c cases 2, 3, 8 and 9.)
 * The routines are defined here (column-major, the forms called), so no
 * external BLAS is needed.  main returns the number of mismatches.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

enum { COL = 102, NT = 111, LO = 122, NONUNIT = 131 };
enum { N = 3, LDA = 4, NRHS = 2, NA = LDA * N, NB = LDA * NRHS };

/* every argument used: clang passes an unused one as poison */
__attribute__((noinline)) void cblas_daxpy(int n, double a, const double *x,
                                           int incx, double *y, int incy) {
  for (int i = 0; i < n; i++)
    y[i * incy] += a * x[i * incx];
}
__attribute__((noinline)) void cblas_dscal(int n, double a, double *x,
                                           int incx) {
  for (int i = 0; i < n; i++)
    x[i * incx] *= a;
}
__attribute__((noinline)) void cblas_dgemv(int layout, int trans, int m, int n,
                                           double alpha, const double *A,
                                           int lda, const double *x, int incx,
                                           double beta, double *y, int incy) {
  if (layout != COL || trans != NT)
    return;
  for (int i = 0; i < m; i++) {
    double s = 0;
    for (int j = 0; j < n; j++)
      s += A[i + j * lda] * x[j * incx];
    y[i * incy] = alpha * s + beta * y[i * incy];
  }
}
/* Enzyme's C form of LAPACK's trtrs (Integration/blasinfra.h) */
__attribute__((noinline)) void cblas_dtrtrs(int layout, int uplo, int trans,
                                            int diag, int n, int nrhs,
                                            const double *A, int lda,
                                            double *B, int ldb, int *info) {
  if (layout != COL || uplo != LO || trans != NT || diag != NONUNIT) {
    *info = -1;
    return;
  }
  for (int c = 0; c < nrhs; c++)
    for (int i = 0; i < n; i++) {
      double s = B[i + c * ldb];
      for (int k = 0; k < i; k++)
        s -= A[i + k * lda] * B[k + c * ldb];
      B[i + c * ldb] = s / A[i + i * lda];
    }
  *info = 0;
}

/* The function's result: smooth in every entry of v. */
static double loss(const double *v, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += (0.3 + 0.05 * i) * v[i] * v[i] + sin(v[i]);
  return s;
}

static double axpy_const(double *a, double *b) {
  cblas_daxpy(N, 3.0, a, 1, b, 1);
  return loss(a, N);
}
static double gemv_const(double *A, double *x, double *y) {
  cblas_dgemv(COL, NT, N, N, 1.0, A, LDA, x, 1, 0.5, y, 1);
  return loss(A, NA) * loss(x, N);
}
static double trtrs_const(double *A, double *B) {
  int info;
  cblas_dtrtrs(COL, LO, NT, NONUNIT, N, NRHS, A, LDA, B, LDA, &info);
  return loss(A, NA) + info;
}
static double scal_loop_const(double *a, double *b) {
  for (int k = 0; k < 2; k++)
    cblas_dscal(N, a[k], b, 1);
  return loss(a, N);
}

static double store_then_scal(double *a, double *b) {
  b[1] = a[0] * a[1];
  cblas_dscal(N, a[2], b, 1);
  return loss(a, N);
}

static int checks, failures;
static void expect(const char *what, int i, long double got, long double want,
                   long double tol) {
  checks++;
  if (!isnan(got) && fabsl(got - want) <= tol * (1 + fabsl(want)))
    return;
  failures++;
  printf("MISMATCH %s [%d]: got %.17Lg, expected %.17Lg\n", what, i, got,
         want);
}

static double seed(int i) { return 0.25 + 0.125 * (i % 7); }

/* d loss(v) / d v_i, by central differences in long double (loss's terms
 * are evaluated in double, hence the step). */
typedef double (*of_v)(const double *v);
static long double fd(of_v f, const double *v0, int n, int i) {
  double v[NA];
  memcpy(v, v0, (size_t)n * sizeof *v);
  long double h = 1e-4L, f2[4];
  static const int steps[4] = {-2, -1, 1, 2};
  for (int s = 0; s < 4; s++) {
    v[i] = v0[i] + steps[s] * (double)h;
    f2[s] = f(v);
  }
  return (f2[0] - 8 * f2[1] + 8 * f2[2] - f2[3]) / (12 * h);
}

static double a_part[NA], x_part[N];
static double loss_a(const double *v) { return loss(v, N); }
static double loss_A_times_x(const double *v) {
  return loss(v, NA) * loss(x_part, N);
}
static double loss_A_x_times(const double *v) {
  return loss(a_part, NA) * loss(v, N);
}
static double loss_A(const double *v) { return loss(v, NA); }

int main(void) {
  double a[N] = {0.7, -0.4, 1.3}, da[N], b[NB], want_b[NB];
  double A[NA], dA[NA], x[N] = {0.5, -1.2, 0.9}, dx[N];
  for (int i = 0; i < NA; i++)
    A[i] = 0.1 * (i % 5) - 0.2;
  for (int i = 0; i < N; i++)
    A[i * (LDA + 1)] = 2.0 + 0.5 * i; /* well conditioned */

  /* axpy: reverse, then forward */
  for (int i = 0; i < N; i++)
    da[i] = seed(i), b[i] = want_b[i] = 1.0 - i;
  __enzyme_autodiff((void *)axpy_const, enzyme_dup, a, da, enzyme_const, b);
  cblas_daxpy(N, 3.0, a, 1, want_b, 1);
  for (int i = 0; i < N; i++) {
    expect("axpy gradient", i, da[i], seed(i) + fd(loss_a, a, N, i), 1e-7L);
    expect("axpy's b after the gradient", i, b[i], want_b[i], 0);
  }
  double t[N] = {1.0, -0.5, 0.25}, tangent = 0;
  for (int i = 0; i < N; i++)
    tangent += t[i] * fd(loss_a, a, N, i);
  expect("axpy tangent", 0,
         __enzyme_fwddiff((void *)axpy_const, enzyme_dup, a, t, enzyme_const,
                          b),
         tangent, 1e-7L);
  cblas_daxpy(N, 3.0, a, 1, want_b, 1);
  for (int i = 0; i < N; i++)
    expect("axpy's b after the tangent", i, b[i], want_b[i], 0);

  /* gemv: reverse, then forward */
  memcpy(a_part, A, sizeof A);
  memcpy(x_part, x, sizeof x);
  for (int i = 0; i < NA; i++)
    dA[i] = seed(i);
  for (int i = 0; i < N; i++)
    dx[i] = seed(i + 3), b[i] = want_b[i] = 0.5 * i;
  __enzyme_autodiff((void *)gemv_const, enzyme_dup, A, dA, enzyme_dup, x, dx,
                    enzyme_const, b);
  cblas_dgemv(COL, NT, N, N, 1.0, A, LDA, x, 1, 0.5, want_b, 1);
  for (int i = 0; i < NA; i++)
    expect("gemv gradient of A", i, dA[i],
           seed(i) + fd(loss_A_times_x, A, NA, i), 1e-7L);
  for (int i = 0; i < N; i++) {
    expect("gemv gradient of x", i, dx[i],
           seed(i + 3) + fd(loss_A_x_times, x, N, i), 1e-7L);
    expect("gemv's y after the gradient", i, b[i], want_b[i], 0);
  }
  double tA[NA], tx[N] = {0.3, 0.2, -0.1};
  tangent = 0;
  for (int i = 0; i < NA; i++) {
    tA[i] = 0.1 * (i % 3) - 0.05;
    tangent += tA[i] * fd(loss_A_times_x, A, NA, i);
  }
  for (int i = 0; i < N; i++)
    tangent += tx[i] * fd(loss_A_x_times, x, N, i);
  expect("gemv tangent", 0,
         __enzyme_fwddiff((void *)gemv_const, enzyme_dup, A, tA, enzyme_dup, x,
                          tx, enzyme_const, b),
         tangent, 1e-7L);
  cblas_dgemv(COL, NT, N, N, 1.0, A, LDA, x, 1, 0.5, want_b, 1);
  for (int i = 0; i < N; i++)
    expect("gemv's y after the tangent", i, b[i], want_b[i], 0);

  /* trtrs: reverse; B holds the solution afterwards */
  for (int i = 0; i < NA; i++)
    dA[i] = seed(i);
  for (int i = 0; i < NB; i++)
    b[i] = want_b[i] = 1.0 + 0.25 * i;
  __enzyme_autodiff((void *)trtrs_const, enzyme_dup, A, dA, enzyme_const, b);
  int info;
  cblas_dtrtrs(COL, LO, NT, NONUNIT, N, NRHS, A, LDA, want_b, LDA, &info);
  for (int i = 0; i < NA; i++)
    expect("trtrs gradient of A", i, dA[i], seed(i) + fd(loss_A, A, NA, i),
           1e-7L);
  for (int i = 0; i < NB; i++)
    expect("trtrs's B after the gradient", i, b[i], want_b[i], 0);

  /* scal in a loop: reverse, then forward */
  for (int i = 0; i < N; i++)
    da[i] = seed(i), b[i] = want_b[i] = 1.0 + i;
  __enzyme_autodiff((void *)scal_loop_const, enzyme_dup, a, da, enzyme_const,
                    b);
  cblas_dscal(N, a[0], want_b, 1);
  cblas_dscal(N, a[1], want_b, 1);
  for (int i = 0; i < N; i++) {
    expect("scal loop gradient", i, da[i], seed(i) + fd(loss_a, a, N, i),
           1e-7L);
    expect("scal loop's b after the gradient", i, b[i], want_b[i], 0);
  }
  tangent = 0;
  for (int i = 0; i < N; i++)
    tangent += t[i] * fd(loss_a, a, N, i);
  expect("scal loop tangent", 0,
         __enzyme_fwddiff((void *)scal_loop_const, enzyme_dup, a, t,
                          enzyme_const, b),
         tangent, 1e-7L);

  /* a store, then scal: reverse, then forward */
  for (int i = 0; i < N; i++)
    da[i] = seed(i), b[i] = 1.0 + i;
  __enzyme_autodiff((void *)store_then_scal, enzyme_dup, a, da, enzyme_const,
                    b);
  for (int i = 0; i < N; i++) {
    long double want = (i == 1 ? (long double)a[0] * a[1] : 1.0 + i) * a[2];
    expect("store, scal gradient", i, da[i], seed(i) + fd(loss_a, a, N, i),
           1e-7L);
    expect("store, scal's b after the gradient", i, b[i], want, 1e-15L);
  }
  expect("store, scal tangent", 0,
         __enzyme_fwddiff((void *)store_then_scal, enzyme_dup, a, t,
                          enzyme_const, b),
         tangent, 1e-7L);

  if (failures)
    printf("%d of %d checks failed\n", failures, checks);
  return failures;
}

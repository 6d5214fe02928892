/*
 * Enzyme's ForwardMode/blas.cpp, ported: the same functions (cblas_* with
 * the layout, transposes and uplo passed as char, uplo also in lower case),
 * the same requests and activities, and the same expected derivatives,
 * which that test writes as BLAS calls on the tangents.  Enzyme's harness
 * compares call traces of a symbolic BLAS; here the calls compute (against
 * tests/blas's fake, which accepts characters and CBLAS enums alike, as
 * Enzyme's does), and the derivative must equal the expected calls' result.
 * POTRF is left out: Enzyme's test calls a `cblas_dpotrf` only its own BLAS
 * has; tanjit differentiates LAPACK's dpotrf_ (blas_fd.c checks it).
 * main returns the number of mismatches.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

extern int enzyme_dup, enzyme_const;
void __enzyme_fwddiff(void *, ...);
double __enzyme_fwddiff_d(void *, ...) __asm__("__enzyme_fwddiff");

enum { CblasRowMajor = 101, CblasColMajor = 102, CblasNoTrans = 111,
       CblasTrans = 112 };

double cblas_ddot(int, const double *, int, const double *, int);
double cblas_dnrm2(int, const double *, int);
void cblas_dgemv(char, char, int, int, double, const double *, int,
                 const double *, int, double, double *, int);
void cblas_dsymv(char, char, int, double, const double *, int,
                 const double *, int, double, double *, int);
void cblas_dgemm(char, char, char, int, int, int, double, const double *,
                 int, const double *, int, double, double *, int);
void cblas_dsyrk(char, char, char, int, int, double, const double *, int,
                 double, double *, int);
void cblas_dsyr2k(char, char, char, int, int, double, const double *, int,
                  const double *, int, double, double *, int);

static int failures, checks;

enum { M = 3, N = 4, K = 2, lda = 5, incA = 1, incB = 2, incC = 1,
       SIZE = 40 };
static double alpha = 2.71828, beta = 47.56;
static double A[SIZE], B[SIZE], C[SIZE], dA[SIZE], dB[SIZE], dC[SIZE];
static double eC[SIZE], edC[SIZE];

static void init(void) {
  for (int i = 0; i < SIZE; i++) {
    A[i] = sin(0.7 * i + 0.1), B[i] = cos(1.3 * i), C[i] = sin(2.1 * i + 1);
    dA[i] = cos(0.4 * i + 2), dB[i] = sin(0.9 * i + 3), dC[i] = cos(1.7 * i);
  }
}

/* The derivative's C and dC are kept; init() again for the expected calls,
 * which check() compares with them. */
static void found(void) {
  memcpy(eC, C, sizeof C);
  memcpy(edC, dC, sizeof dC);
  init();
}

static void check(const char *test, char layout, int a, int b) {
  for (int i = 0; i < SIZE; i++)
    if (!(fabs(C[i] - eC[i]) <= 1e-9 * fmax(1, fabs(C[i])) &&
          fabs(dC[i] - edC[i]) <= 1e-9 * fmax(1, fabs(dC[i])))) {
      fprintf(stderr, "%s (layout %d, %d, %d): element %d: dC %.17g, "
                      "expected %.17g\n",
              test, layout, a, b, i, edC[i], dC[i]);
      failures++;
      break;
    }
  checks++;
  init(); /* for the next request */
}

static void approx(const char *test, double got, double want) {
  if (!(fabs(got - want) <= 1e-10 * fmax(1, fabs(want)))) {
    fprintf(stderr, "%s: %.17g, expected %.17g\n", test, got, want);
    failures++;
  }
  checks++;
}

void my_dgemv(char layout, char trans, int M_, int N_, double alpha_,
              double *restrict A_, int lda_, double *restrict X, int incx,
              double beta_, double *restrict Y, int incy) {
  cblas_dgemv(layout, trans, M_, N_, alpha_, A_, lda_, X, incx, beta_, Y, incy);
}

void my_dsymv(char layout, char uplo, int N_, double alpha_,
              double *restrict A_, int lda_, double *restrict X, int incx,
              double beta_, double *restrict Y, int incy) {
  cblas_dsymv(layout, uplo, N_, alpha_, A_, lda_, X, incx, beta_, Y, incy);
}

double my_ddot(int N_, double *restrict X, int incx, double *restrict Y,
               int incy) {
  double res = cblas_ddot(N_, X, incx, Y, incy);
  return res;
}

double my_dnrm2(int N_, double *restrict X, int incx) {
  double res = cblas_dnrm2(N_, X, incx);
  return res;
}

void my_dgemm(char layout, char transA, char transB, int M_, int N_, int K_,
              double alpha_, double *restrict A_, int lda_,
              double *restrict B_, int ldb, double beta_, double *restrict C_,
              int ldc) {
  cblas_dgemm(layout, transA, transB, M_, N_, K_, alpha_, A_, lda_, B_, ldb,
              beta_, C_, ldc);
}

void my_dsyrk(char layout, char uplo, char trans, int N_, int K_,
              double alpha_, double *restrict A_, int lda_, double beta_,
              double *restrict C_, int ldc) {
  cblas_dsyrk(layout, uplo, trans, N_, K_, alpha_, A_, lda_, beta_, C_, ldc);
}

static void dotTests(void) {
  init();
  double d = __enzyme_fwddiff_d((void *)my_ddot, enzyme_const, N, enzyme_dup,
                                A, dA, enzyme_const, incA, enzyme_dup, B, dB,
                                enzyme_const, incB);
  approx("DOT active both", d,
         cblas_ddot(N, dA, incA, B, incB) + cblas_ddot(N, A, incA, dB, incB));
  d = __enzyme_fwddiff_d((void *)my_ddot, enzyme_const, N, enzyme_dup, A, dA,
                         enzyme_const, incA, enzyme_const, B, enzyme_const,
                         incB);
  approx("DOT active A", d, cblas_ddot(N, dA, incA, B, incB));
  d = __enzyme_fwddiff_d((void *)my_ddot, enzyme_const, N, enzyme_const, A,
                         enzyme_const, incA, enzyme_dup, B, dB, enzyme_const,
                         incB);
  approx("DOT active B", d, cblas_ddot(N, A, incA, dB, incB));
  d = __enzyme_fwddiff_d((void *)my_ddot, enzyme_const, N, enzyme_const, A,
                         enzyme_const, incA, enzyme_const, B, enzyme_const,
                         incB);
  approx("DOT const both", d, 0.0);
}

static void nrm2Tests(void) {
  init();
  double d = __enzyme_fwddiff_d((void *)my_dnrm2, enzyme_const, N, enzyme_dup,
                                A, dA, enzyme_const, incA);
  approx("NRM2 active", d,
         cblas_ddot(N, A, incA, dA, incA) / my_dnrm2(N, A, incA));
  d = __enzyme_fwddiff_d((void *)my_dnrm2, enzyme_const, N, enzyme_const, A,
                         enzyme_const, incA);
  approx("NRM2 const", d, 0.0);
}

static void gemvTests(void) {
  const char layouts[] = {CblasRowMajor, CblasColMajor};
  const char transes[] = {CblasNoTrans, CblasTrans};
  for (int l = 0; l < 2; l++)
    for (int t = 0; t < 2; t++) {
      char layout = layouts[l], transA = transes[t];
      init();
      __enzyme_fwddiff((void *)my_dgemv, enzyme_const, layout, enzyme_const,
                       transA, enzyme_const, M, enzyme_const, N, enzyme_const,
                       alpha, enzyme_dup, A, dA, enzyme_const, lda,
                       enzyme_const, B, enzyme_const, incB, enzyme_const, beta,
                       enzyme_dup, C, dC, enzyme_const, incC);
      found();
      cblas_dgemv(layout, transA, M, N, alpha, dA, lda, B, incB, beta, dC,
                  incC);
      my_dgemv(layout, transA, M, N, alpha, A, lda, B, incB, beta, C, incC);
      check("GEMV active A, C", layout, transA, 0);

      __enzyme_fwddiff((void *)my_dgemv, enzyme_const, layout, enzyme_const,
                       transA, enzyme_const, M, enzyme_const, N, enzyme_const,
                       alpha, enzyme_dup, A, dA, enzyme_const, lda, enzyme_dup,
                       B, dB, enzyme_const, incB, enzyme_const, beta,
                       enzyme_dup, C, dC, enzyme_const, incC);
      found();
      cblas_dgemv(layout, transA, M, N, alpha, A, lda, dB, incB, beta, dC,
                  incC);
      cblas_dgemv(layout, transA, M, N, alpha, dA, lda, B, incB, 1.0, dC,
                  incC);
      my_dgemv(layout, transA, M, N, alpha, A, lda, B, incB, beta, C, incC);
      check("GEMV active A, B, C", layout, transA, 0);

      __enzyme_fwddiff((void *)my_dgemv, enzyme_const, layout, enzyme_const,
                       transA, enzyme_const, M, enzyme_const, N, enzyme_const,
                       alpha, enzyme_const, A, enzyme_const, lda, enzyme_dup,
                       B, dB, enzyme_const, incB, enzyme_const, beta,
                       enzyme_dup, C, dC, enzyme_const, incC);
      found();
      cblas_dgemv(layout, transA, M, N, alpha, A, lda, dB, incB, beta, dC,
                  incC);
      my_dgemv(layout, transA, M, N, alpha, A, lda, B, incB, beta, C, incC);
      check("GEMV active B, C", layout, transA, 0);
    }
}

static void symvTests(void) {
  const char layouts[] = {CblasRowMajor, CblasColMajor};
  const char uplos[] = {'U', 'u', 'L', 'l'};
  for (int l = 0; l < 2; l++)
    for (int u = 0; u < 4; u++) {
      char layout = layouts[l], uplo = uplos[u];
      init();
      __enzyme_fwddiff((void *)my_dsymv, enzyme_const, layout, enzyme_const,
                       uplo, enzyme_const, N, enzyme_const, alpha, enzyme_dup,
                       A, dA, enzyme_const, lda, enzyme_const, B, enzyme_const,
                       incB, enzyme_const, beta, enzyme_dup, C, dC,
                       enzyme_const, incC);
      found();
      cblas_dsymv(layout, uplo, N, alpha, dA, lda, B, incB, beta, dC, incC);
      my_dsymv(layout, uplo, N, alpha, A, lda, B, incB, beta, C, incC);
      check("SYMV active A, C", layout, uplo, 0);

      __enzyme_fwddiff((void *)my_dsymv, enzyme_const, layout, enzyme_const,
                       uplo, enzyme_const, N, enzyme_const, alpha, enzyme_dup,
                       A, dA, enzyme_const, lda, enzyme_dup, B, dB,
                       enzyme_const, incB, enzyme_const, beta, enzyme_dup, C,
                       dC, enzyme_const, incC);
      found();
      cblas_dsymv(layout, uplo, N, alpha, A, lda, dB, incB, beta, dC, incC);
      cblas_dsymv(layout, uplo, N, alpha, dA, lda, B, incB, 1.0, dC, incC);
      my_dsymv(layout, uplo, N, alpha, A, lda, B, incB, beta, C, incC);
      check("SYMV active A, B, C", layout, uplo, 0);

      __enzyme_fwddiff((void *)my_dsymv, enzyme_const, layout, enzyme_const,
                       uplo, enzyme_const, N, enzyme_const, alpha,
                       enzyme_const, A, enzyme_const, lda, enzyme_dup, B, dB,
                       enzyme_const, incB, enzyme_const, beta, enzyme_dup, C,
                       dC, enzyme_const, incC);
      found();
      cblas_dsymv(layout, uplo, N, alpha, A, lda, dB, incB, beta, dC, incC);
      my_dsymv(layout, uplo, N, alpha, A, lda, B, incB, beta, C, incC);
      check("SYMV active B, C", layout, uplo, 0);
    }
}

static void gemmTests(void) {
  const char layouts[] = {CblasRowMajor, CblasColMajor};
  const char transes[] = {CblasNoTrans, CblasTrans};
  /* Enzyme's test passes incB and incC as the leading dimensions of B, C */
  const int ldb = lda, ldc = lda;
  for (int l = 0; l < 2; l++)
    for (int ta = 0; ta < 2; ta++)
      for (int tb = 0; tb < 2; tb++) {
        char layout = layouts[l], transA = transes[ta], transB = transes[tb];
        init();
        __enzyme_fwddiff((void *)my_dgemm, enzyme_const, layout, enzyme_const,
                         transA, enzyme_const, transB, enzyme_const, M,
                         enzyme_const, N, enzyme_const, K, enzyme_const, alpha,
                         enzyme_dup, A, dA, enzyme_const, lda, enzyme_dup, B,
                         dB, enzyme_const, ldb, enzyme_const, beta, enzyme_dup,
                         C, dC, enzyme_const, ldc);
        found();
        my_dgemm(layout, transA, transB, M, N, K, alpha, A, lda, dB, ldb, beta,
                 dC, ldc);
        my_dgemm(layout, transA, transB, M, N, K, alpha, dA, lda, B, ldb, 1.0,
                 dC, ldc);
        my_dgemm(layout, transA, transB, M, N, K, alpha, A, lda, B, ldb, beta,
                 C, ldc);
        check("GEMM Active A, B, C", layout, transA, transB);

        __enzyme_fwddiff((void *)my_dgemm, enzyme_const, layout, enzyme_const,
                         transA, enzyme_const, transB, enzyme_const, M,
                         enzyme_const, N, enzyme_const, K, enzyme_const, alpha,
                         enzyme_dup, A, dA, enzyme_const, lda, enzyme_const, B,
                         enzyme_const, ldb, enzyme_const, beta, enzyme_dup, C,
                         dC, enzyme_const, ldc);
        found();
        my_dgemm(layout, transA, transB, M, N, K, alpha, dA, lda, B, ldb, beta,
                 dC, ldc);
        my_dgemm(layout, transA, transB, M, N, K, alpha, A, lda, B, ldb, beta,
                 C, ldc);
        check("GEMM Active A, C", layout, transA, transB);

        __enzyme_fwddiff((void *)my_dgemm, enzyme_const, layout, enzyme_const,
                         transA, enzyme_const, transB, enzyme_const, M,
                         enzyme_const, N, enzyme_const, K, enzyme_const, alpha,
                         enzyme_const, A, enzyme_const, lda, enzyme_dup, B, dB,
                         enzyme_const, ldb, enzyme_const, beta, enzyme_dup, C,
                         dC, enzyme_const, ldc);
        found();
        my_dgemm(layout, transA, transB, M, N, K, alpha, A, lda, dB, ldb, beta,
                 dC, ldc);
        my_dgemm(layout, transA, transB, M, N, K, alpha, A, lda, B, ldb, beta,
                 C, ldc);
        check("GEMM Active B, C", layout, transA, transB);
      }
}

static void syrkTests(void) {
  const char layouts[] = {CblasColMajor, CblasRowMajor};
  const char transes[] = {CblasNoTrans, CblasTrans};
  const char uplos[] = {'U', 'u', 'L', 'l'};
  const int ldc = lda;
  for (int l = 0; l < 2; l++)
    for (int t = 0; t < 2; t++)
      for (int u = 0; u < 4; u++) {
        char layout = layouts[l], transA = transes[t], uplo = uplos[u];
        init();
        __enzyme_fwddiff((void *)my_dsyrk, enzyme_const, layout, enzyme_const,
                         uplo, enzyme_const, transA, enzyme_const, N,
                         enzyme_const, K, enzyme_const, alpha, enzyme_dup, A,
                         dA, enzyme_const, lda, enzyme_const, beta, enzyme_dup,
                         C, dC, enzyme_const, ldc);
        found();
        cblas_dsyr2k(layout, uplo, transA, N, K, alpha, A, lda, dA, lda, beta,
                     dC, ldc);
        my_dsyrk(layout, uplo, transA, N, K, alpha, A, lda, beta, C, ldc);
        check("SYRK active C, A", layout, transA, uplo);

        __enzyme_fwddiff((void *)my_dsyrk, enzyme_const, layout, enzyme_const,
                         uplo, enzyme_const, transA, enzyme_const, N,
                         enzyme_const, K, enzyme_const, alpha, enzyme_const, A,
                         enzyme_const, lda, enzyme_const, beta, enzyme_dup, C,
                         dC, enzyme_const, ldc);
        found();
        /* Enzyme's dlascl(beta) of the triangle, as a syrk with alpha 0 */
        cblas_dsyrk(layout, uplo, transA, N, K, 0.0, A, lda, beta, dC, ldc);
        my_dsyrk(layout, uplo, transA, N, K, alpha, A, lda, beta, C, ldc);
        check("SYRK active C", layout, transA, uplo);

        double dalpha = 46.1345;
        __enzyme_fwddiff((void *)my_dsyrk, enzyme_const, layout, enzyme_const,
                         uplo, enzyme_const, transA, enzyme_const, N,
                         enzyme_const, K, enzyme_dup, alpha, dalpha, enzyme_dup,
                         A, dA, enzyme_const, lda, enzyme_const, beta,
                         enzyme_dup, C, dC, enzyme_const, ldc);
        found();
        cblas_dsyr2k(layout, uplo, transA, N, K, alpha, A, lda, dA, lda, beta,
                     dC, ldc);
        cblas_dsyrk(layout, uplo, transA, N, K, dalpha, A, lda, 1.0, dC, ldc);
        my_dsyrk(layout, uplo, transA, N, K, alpha, A, lda, beta, C, ldc);
        check("SYRK active C, alpha", layout, transA, uplo);
      }
}

int main(void) {
  dotTests();
  nrm2Tests();
  gemvTests();
  gemmTests();
  syrkTests();
  symvTests();
  printf("enzyme blas: %d checks, %d failures\n", checks, failures);
  return failures;
}

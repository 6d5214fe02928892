/*
 * Reverse-mode LAPACK (src/ad/rev/blas.c): gradients of kernels that call
 * potrf, trtrs and potrs through Enzyme's C forms (cblas_dpotrf,
 * cblas_dtrtrs, cblas_dpotrs: defined here over dpotrf_ and CBLAS's dtrsm,
 * both layouts) and LAPACK's Fortran dpotrf_, dtrtrs_ and dpotrs_ (every
 * transpose, both triangles,
 * unit and stored diagonals, several right-hand sides), each entry of the
 * triangle and the right-hand sides against central finite differences
 * (long double), from nonzero shadows.  The kernels add 3 to A's diagonal
 * first (well conditioned, and for potrf positive definite;
 * differentiated as plain code).  main returns
 * the number of mismatches.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

extern int enzyme_dup;
void __enzyme_autodiff(void *, ...);

void cblas_dtrsm(int layout, int side, int uplo, int trans, int diag, int m,
                 int n, double alpha, const double *A, int lda, double *B,
                 int ldb);
void dtrtrs_(const char *uplo, const char *trans, const char *diag,
             const int *n, const int *nrhs, const double *A, const int *lda,
             double *B, const int *ldb, int *info);
void dpotrf_(const char *uplo, const int *n, double *A, const int *lda,
             int *info);
void dpotrs_(const char *uplo, const int *n, const int *nrhs, const double *A,
             const int *lda, double *B, const int *ldb, int *info);

enum { CAP = 48, NARR = 5 }; /* x, y, A, B, C; s unused but checked */
enum { ROW = 101, COL = 102, NT = 111, TR = 112, UP = 121, LO = 122,
       NONUNIT = 131, UNIT = 132, LEFT = 141 };

/* Enzyme's C forms of the LAPACK solves (Integration/blasinfra.h's
 * signatures), over dtrsm; not inlined, so the rules see the calls */
__attribute__((noinline)) void cblas_dtrtrs(int layout, int uplo, int trans, int diag, int n, int nrhs,
                  const double *A, int lda, double *B, int ldb, int *info) {
  cblas_dtrsm(layout, LEFT, uplo, trans, diag, n, nrhs, 1.0, A, lda, B, ldb);
  *info = 0;
}
__attribute__((noinline)) void cblas_dpotrs(int layout, int uplo, int n, int nrhs, const double *A,
                  int lda, double *B, int ldb, int *info) {
  int first = uplo == LO ? NT : TR, second = uplo == LO ? TR : NT;
  cblas_dtrsm(layout, LEFT, uplo, first, NONUNIT, n, nrhs, 1.0, A, lda, B, ldb);
  cblas_dtrsm(layout, LEFT, uplo, second, NONUNIT, n, nrhs, 1.0, A, lda, B, ldb);
  *info = 0;
}

__attribute__((noinline)) void cblas_dpotrf(int layout, int uplo, int n,
                                            double *A, int lda, int *info) {
  /* a row-major triangle is the column-major other one */
  char u = (uplo == LO) == (layout == COL) ? 'L' : 'U';
  dpotrf_(&u, &n, A, &lda, info);
}

#ifdef ENZYME_FORMS
/* Built again with these (blas-rev-lapack-enzyme-*): Enzyme's BLAS's C
 * forms of LAPACK's lacpy and lascl (lascl's status by value), over
 * liblapack's, so the reverse takes Enzyme's calls for potrf and trtrs
 * (src/ad/rev/blas.c, potrf_as_enzyme, trtrs_as_enzyme).  The options
 * arrive as the calls pass theirs: CBLAS enums here. */
void dlacpy_(const char *uplo, const int *m, const int *n, const double *A,
             const int *lda, double *B, const int *ldb);
void dlascl_(const char *type, const int *kl, const int *ku, const double *cfrom,
             const double *cto, const int *m, const int *n, double *A,
             const int *lda, int *info);
/* the column-major part of a row-major (or column-major) triangle */
static char part(int layout, int uplo) {
  if (uplo != UP && uplo != LO)
    return 'G';
  return (uplo == LO) == (layout == COL) ? 'L' : 'U';
}
__attribute__((noinline)) void cblas_dlacpy(int layout, int uplo, int m, int n,
                                            const double *A, int lda, double *B,
                                            int ldb) {
  char u = part(layout, uplo);
  if (layout != COL) {
    int t = m;
    m = n, n = t;
  }
  dlacpy_(&u, &m, &n, A, &lda, B, &ldb);
}
__attribute__((noinline)) void cblas_dlascl(int layout, int type, int kl, int ku,
                                            double cfrom, double cto, int m,
                                            int n, double *A, int lda, int info) {
  (void)info;
  char t = part(layout, type);
  int status;
  if (layout != COL) {
    int x = m;
    m = n, n = x;
  }
  dlascl_(&t, &kl, &ku, &cfrom, &cto, &m, &n, A, &lda, &status);
}
#endif

static double wsum(const double *v, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += (0.1 + 0.01 * i) * v[i] * v[i] + v[i];
  return s;
}
static void shift_diagonal(double *A, int n, int lda) {
  for (int i = 0; i < n; i++)
    A[i * (lda + 1)] += 3.0;
}

typedef double (*kernel)(double *x, double *y, double *A, double *B,
                         double *C, double *s);

/* n 3, nrhs 2, lda 4, ldb 4 (row-major: ldb 3) */
#define TRTRS(name, layout, uplo, trans, diag, ldb)                            \
  static double name(double *x, double *y, double *A, double *B, double *C,    \
                     double *s) {                                              \
    int info;                                                                  \
    shift_diagonal(A, 3, 4);                                                   \
    cblas_dtrtrs(layout, uplo, trans, diag, 3, 2, A, 4, B, ldb, &info);        \
    return wsum(B, 12);                                                        \
  }
TRTRS(k_dtrtrs_cunn, COL, UP, NT, NONUNIT, 4)
TRTRS(k_dtrtrs_cltu, COL, LO, TR, UNIT, 4)
TRTRS(k_dtrtrs_rutn, ROW, UP, TR, NONUNIT, 3)
TRTRS(k_dtrtrs_rlnn, ROW, LO, NT, NONUNIT, 3)
#define POTRS(name, layout, uplo, ldb)                                         \
  static double name(double *x, double *y, double *A, double *B, double *C,    \
                     double *s) {                                              \
    int info;                                                                  \
    shift_diagonal(A, 3, 4);                                                   \
    cblas_dpotrs(layout, uplo, 3, 2, A, 4, B, ldb, &info);                     \
    return wsum(B, 12);                                                        \
  }
POTRS(k_dpotrs_cl, COL, LO, 4)
POTRS(k_dpotrs_cu, COL, UP, 4)
POTRS(k_dpotrs_rl, ROW, LO, 3)
POTRS(k_dpotrs_ru, ROW, UP, 3)

/* A := its Cholesky factor, n 3, lda 4 (the other triangle kept) */
#define POTRF(name, layout, uplo)                                              \
  static double name(double *x, double *y, double *A, double *B, double *C,    \
                     double *s) {                                              \
    int info;                                                                  \
    shift_diagonal(A, 3, 4);                                                   \
    cblas_dpotrf(layout, uplo, 3, A, 4, &info);                                \
    return wsum(A, 12);                                                        \
  }
POTRF(k_dpotrf_cl, COL, LO)
POTRF(k_dpotrf_cu, COL, UP)
POTRF(k_dpotrf_rl, ROW, LO)
POTRF(k_dpotrf_ru, ROW, UP)
/* the factor, then the solve with it */
static double k_chol_solve(double *x, double *y, double *A, double *B,
                           double *C, double *s) {
  int info;
  shift_diagonal(A, 3, 4);
  cblas_dpotrf(COL, LO, 3, A, 4, &info);
  cblas_dpotrs(COL, LO, 3, 2, A, 4, B, 4, &info);
  return wsum(B, 12) + 0.5 * wsum(A, 12);
}

static const int i2 = 2, i3 = 3, i4 = 4;
#define FPOTRF(name, uplo)                                                     \
  static double name(double *x, double *y, double *A, double *B, double *C,    \
                     double *s) {                                              \
    int info;                                                                  \
    shift_diagonal(A, 3, 4);                                                   \
    dpotrf_(uplo, &i3, A, &i4, &info);                                         \
    return wsum(A, 12);                                                        \
  }
FPOTRF(f_dpotrf_l, "L")
FPOTRF(f_dpotrf_u, "u")
#define FTRTRS(name, uplo, trans, diag)                                        \
  static double name(double *x, double *y, double *A, double *B, double *C,    \
                     double *s) {                                              \
    int info;                                                                  \
    shift_diagonal(A, 3, 4);                                                   \
    dtrtrs_(uplo, trans, diag, &i3, &i2, A, &i4, B, &i4, &info);               \
    return wsum(B, 12);                                                        \
  }
FTRTRS(f_dtrtrs_unn, "U", "N", "N")
FTRTRS(f_dtrtrs_ltu, "l", "t", "u")
#define FPOTRS(name, uplo)                                                     \
  static double name(double *x, double *y, double *A, double *B, double *C,    \
                     double *s) {                                              \
    int info;                                                                  \
    shift_diagonal(A, 3, 4);                                                   \
    dpotrs_(uplo, &i3, &i2, A, &i4, B, &i4, &info);                            \
    return wsum(B, 12);                                                        \
  }
FPOTRS(f_dpotrs_l, "L")
FPOTRS(f_dpotrs_u, "u")

/* ---- the check ---- */

static double value(int i, int salt) {
  unsigned h = (unsigned)(i + 1) * 2654435761u ^ ((unsigned)salt * 40503u);
  return (double)(h % 2000u) / 1000.0 - 1.0;
}

static void fill(double a[NARR][CAP], double s[2]) {
  for (int k = 0; k < NARR; k++)
    for (int i = 0; i < CAP; i++)
      a[k][i] = value(i, k);
  s[0] = 1.3, s[1] = -0.7;
}

/* The gradient seeds the result with 1 and the memory the kernel leaves
 * with the shadows' initial values, and adds what it finds to them: it is
 * the gradient of f plus seed . (the memory after the call). */
static long double run(kernel f, double a[NARR][CAP], double s[2],
                       double seed[NARR][CAP], const double seed_s[2]) {
  double c[NARR][CAP], cs[2];
  memcpy(c, a, sizeof c);
  memcpy(cs, s, sizeof cs);
  long double r = f(c[0], c[1], c[2], c[3], c[4], cs);
  for (int k = 0; k < NARR; k++)
    for (int i = 0; i < CAP; i++)
      r += (long double)seed[k][i] * c[k][i];
  return r + (long double)seed_s[0] * cs[0] + (long double)seed_s[1] * cs[1];
}

typedef void (*gradient)(double *a[NARR], double *da[NARR], double *s,
                         double *ds);
#define GRAD(f)                                                                \
  static void g_##f(double *a[NARR], double *da[NARR], double *s,             \
                    double *ds) {                                              \
    __enzyme_autodiff((void *)f, enzyme_dup, a[0], da[0], enzyme_dup, a[1],    \
                      da[1], enzyme_dup, a[2], da[2], enzyme_dup, a[3], da[3], \
                      enzyme_dup, a[4], da[4], enzyme_dup, s, ds);             \
  }
GRAD(k_dtrtrs_cunn)
GRAD(k_dtrtrs_cltu)
GRAD(k_dtrtrs_rutn)
GRAD(k_dtrtrs_rlnn)
GRAD(k_dpotrs_cl)
GRAD(k_dpotrs_cu)
GRAD(k_dpotrs_rl)
GRAD(k_dpotrs_ru)
GRAD(f_dtrtrs_unn)
GRAD(f_dtrtrs_ltu)
GRAD(f_dpotrs_l)
GRAD(f_dpotrs_u)
GRAD(k_dpotrf_cl)
GRAD(k_dpotrf_cu)
GRAD(k_dpotrf_rl)
GRAD(k_dpotrf_ru)
GRAD(k_chol_solve)
GRAD(f_dpotrf_l)
GRAD(f_dpotrf_u)

static int bad;

static void check_entry(const char *name, const char *what, int i, double got,
                        long double want) {
  if (fabsl(got - want) > 1e-6L * (1 + fabsl(want))) {
    printf("%s: d%s[%d] = %.12g, finite differences %.12Lg\n", name, what, i,
           got, want);
    bad++;
  }
}

static void check(const char *name, kernel f, gradient g) {
  double a[NARR][CAP], s[2], da[NARR][CAP], ds[2];
  fill(a, s);
  /* nonzero shadows: the gradient is added to them */
  for (int k = 0; k < NARR; k++)
    for (int i = 0; i < CAP; i++)
      da[k][i] = 0.25 * value(i, k + 40);
  ds[0] = 0.5, ds[1] = -0.25;
  double w[NARR][CAP], ws[2], dw[NARR][CAP], dws[2];
  memcpy(w, a, sizeof w);
  memcpy(ws, s, sizeof ws);
  memcpy(dw, da, sizeof dw);
  memcpy(dws, ds, sizeof dws);
  double *ap[NARR], *dap[NARR];
  for (int k = 0; k < NARR; k++)
    ap[k] = w[k], dap[k] = dw[k];
  g(ap, dap, ws, dws);
  static const char *const names[NARR] = {"x", "y", "A", "B", "C"};
  const double h = 1e-5;
  for (int k = 0; k < NARR; k++)
    for (int i = 0; i < CAP; i++) {
      double keep = a[k][i];
      a[k][i] = keep + h;
      long double up = run(f, a, s, da, ds);
      a[k][i] = keep - h;
      long double down = run(f, a, s, da, ds);
      a[k][i] = keep;
      check_entry(name, names[k], i, dw[k][i], (up - down) / (2 * (long double)h));
    }
  for (int k = 0; k < 2; k++) {
    double keep = s[k];
    s[k] = keep + h;
    long double up = run(f, a, s, da, ds);
    s[k] = keep - h;
    long double down = run(f, a, s, da, ds);
    s[k] = keep;
    check_entry(name, k ? "beta" : "alpha", 0, dws[k],
                (up - down) / (2 * (long double)h));
  }
}

#define CHECK(f) check(#f, f, g_##f)

int main(void) {
  CHECK(k_dtrtrs_cunn);
  CHECK(k_dtrtrs_cltu);
  CHECK(k_dtrtrs_rutn);
  CHECK(k_dtrtrs_rlnn);
  CHECK(k_dpotrs_cl);
  CHECK(k_dpotrs_cu);
  CHECK(k_dpotrs_rl);
  CHECK(k_dpotrs_ru);
  CHECK(f_dtrtrs_unn);
  CHECK(f_dtrtrs_ltu);
  CHECK(f_dpotrs_l);
  CHECK(f_dpotrs_u);
  CHECK(k_dpotrf_cl);
  CHECK(k_dpotrf_cu);
  CHECK(k_dpotrf_rl);
  CHECK(k_dpotrf_ru);
  CHECK(k_chol_solve);
  CHECK(f_dpotrf_l);
  CHECK(f_dpotrf_u);
  printf("%d mismatches\n", bad);
  return bad;
}

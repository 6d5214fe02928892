/*
 * Reverse-mode BLAS (src/ad/rev/blas.c), the symmetric and triangular
 * routines: gradients of kernels that call dsymv, dsyrk, dtrmv, dtrmm and
 * dsymm through
 * CBLAS and the Fortran interface (both layouts, both triangles, every
 * transpose, unit and stored diagonals, strided and negative increments,
 * beta != 0, alpha and beta active), each entry against central
 * finite differences (long double), from nonzero shadows (the memory's
 * final values seeded with them, the gradient added).  symv's A diagonal
 * is the exception: Enzyme's adjoint saves dA's diagonal around its syr2
 * and restores it, so the diagonal gets no term (finite differences give
 * it alpha x_i dy_i), and tanjit gives Enzyme's numbers; those entries
 * are asserted to be what dA held before (the seed, or 0 where the kernel
 * overwrote A).  main returns the number of mismatches.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

extern int enzyme_dup;
void __enzyme_autodiff(void *, ...);

void cblas_dsymv(int layout, int uplo, int n, double alpha, const double *A,
                 int lda, const double *x, int incx, double beta, double *y,
                 int incy);
void cblas_dsyrk(int layout, int uplo, int trans, int n, int k, double alpha,
                 const double *A, int lda, double beta, double *C, int ldc);
void cblas_dtrmv(int layout, int uplo, int trans, int diag, int n,
                 const double *A, int lda, double *x, int incx);
void cblas_dtrmm(int layout, int side, int uplo, int trans, int diag, int m,
                 int n, double alpha, const double *A, int lda, double *B,
                 int ldb);
void cblas_dsymm(int layout, int side, int uplo, int m, int n, double alpha,
                 const double *A, int lda, const double *B, int ldb,
                 double beta, double *C, int ldc);
void dtrmm_(const char *side, const char *uplo, const char *trans,
            const char *diag, const int *m, const int *n, const double *alpha,
            const double *A, const int *lda, double *B, const int *ldb);
void dsymm_(const char *side, const char *uplo, const int *m, const int *n,
            const double *alpha, const double *A, const int *lda,
            const double *B, const int *ldb, const double *beta, double *C,
            const int *ldc);
void dsymv_(const char *uplo, const int *n, const double *alpha,
            const double *A, const int *lda, const double *x, const int *incx,
            const double *beta, double *y, const int *incy);
void dsyrk_(const char *uplo, const char *trans, const int *n, const int *k,
            const double *alpha, const double *A, const int *lda,
            const double *beta, double *C, const int *ldc);
void dtrmv_(const char *uplo, const char *trans, const char *diag,
            const int *n, const double *A, const int *lda, double *x,
            const int *incx);

enum { CAP = 48, NARR = 5 }; /* x, y, A, B, C; s holds alpha, beta */
enum { ROW = 101, COL = 102, NT = 111, TR = 112, UP = 121, LO = 122,
       NONUNIT = 131, UNIT = 132, LEFT = 141, RIGHT = 142 };

/* a smooth scalar of an output: sum of w_i v_i^2 + v_i */
static double wsum(const double *v, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += (0.1 + 0.01 * i) * v[i] * v[i] + v[i];
  return s;
}

typedef double (*kernel)(double *x, double *y, double *A, double *B,
                         double *C, double *s);

/* ---- CBLAS ---- */
/* y := alpha A x + beta y, A 4 x 4 (lda 5) from one triangle */
#define SYMV(name, layout, uplo)                                               \
  static double name(double *x, double *y, double *A, double *B, double *C,    \
                     double *s) {                                              \
    cblas_dsymv(layout, uplo, 4, s[0], A, 5, x, 2, s[1], y, 1);                \
    return wsum(y, 4) + 0.3 * wsum(x, 8);                                      \
  }
SYMV(k_dsymv_cu, COL, UP)
SYMV(k_dsymv_cl, COL, LO)
SYMV(k_dsymv_ru, ROW, UP)
SYMV(k_dsymv_rl, ROW, LO)
/* C := alpha op(A) op(A)' + beta C on a triangle, n 3, k 2 (lda, ldc 4) */
#define SYRK(name, layout, uplo, trans)                                        \
  static double name(double *x, double *y, double *A, double *B, double *C,    \
                     double *s) {                                              \
    cblas_dsyrk(layout, uplo, trans, 3, 2, s[0], A, 4, s[1], C, 4);            \
    return wsum(C, 12);                                                        \
  }
SYRK(k_dsyrk_cun, COL, UP, NT)
SYRK(k_dsyrk_clt, COL, LO, TR)
SYRK(k_dsyrk_rln, ROW, LO, NT)
SYRK(k_dsyrk_rut, ROW, UP, TR)
/* x := op(A) x, A 4 x 4 (lda 5) triangular, x with increment 2 or -2 */
#define TRMV(name, layout, uplo, trans, diag, inc)                             \
  static double name(double *x, double *y, double *A, double *B, double *C,    \
                     double *s) {                                              \
    cblas_dtrmv(layout, uplo, trans, diag, 4, A, 5, x, inc);                   \
    return wsum(x, 8) * s[0];                                                  \
  }
TRMV(k_dtrmv_cunn, COL, UP, NT, NONUNIT, 2)
TRMV(k_dtrmv_cltu, COL, LO, TR, UNIT, 2)
TRMV(k_dtrmv_clnn, COL, LO, NT, NONUNIT, -2)
TRMV(k_dtrmv_rutn, ROW, UP, TR, NONUNIT, 2)
TRMV(k_dtrmv_rlnu, ROW, LO, NT, UNIT, -2)
/* B := alpha op(A) B or alpha B op(A), B 3 x 2 (ldb 4), A 3 x 3 or
 * 2 x 2 (lda 4) triangular */
#define TRMM(name, layout, side, uplo, trans, diag)                            \
  static double name(double *x, double *y, double *A, double *B, double *C,    \
                     double *s) {                                              \
    cblas_dtrmm(layout, side, uplo, trans, diag, 3, 2, s[0], A, 4, B, 4);      \
    return wsum(B, 12);                                                        \
  }
TRMM(k_dtrmm_clunn, COL, LEFT, UP, NT, NONUNIT)
TRMM(k_dtrmm_clltu, COL, LEFT, LO, TR, UNIT)
TRMM(k_dtrmm_crutn, COL, RIGHT, UP, TR, NONUNIT)
TRMM(k_dtrmm_crlnn, COL, RIGHT, LO, NT, NONUNIT)
TRMM(k_dtrmm_rlunu, ROW, LEFT, UP, NT, UNIT)
TRMM(k_dtrmm_rrltn, ROW, RIGHT, LO, TR, NONUNIT)
/* C := alpha A B + beta C or alpha B A + beta C, C, B 3 x 2 (ld 4), A
 * symmetric 3 x 3 or 2 x 2 (lda 4) */
#define SYMM(name, layout, side, uplo)                                         \
  static double name(double *x, double *y, double *A, double *B, double *C,    \
                     double *s) {                                              \
    cblas_dsymm(layout, side, uplo, 3, 2, s[0], A, 4, B, 4, s[1], C, 4);       \
    return wsum(C, 12);                                                        \
  }
SYMM(k_dsymm_clu, COL, LEFT, UP)
SYMM(k_dsymm_crl, COL, RIGHT, LO)
SYMM(k_dsymm_rll, ROW, LEFT, LO)
SYMM(k_dsymm_rru, ROW, RIGHT, UP)
/* the inputs overwritten after the call: the adjoint reads its copies */
static double k_dsymv_over(double *x, double *y, double *A, double *B,
                           double *C, double *s) {
  cblas_dsymv(COL, UP, 4, s[0], A, 5, x, 1, s[1], y, 1);
  double r = wsum(y, 4);
  for (int i = 0; i < 20; i++)
    A[i] = x[i] = 0;
  return r;
}
/* a chain: trmv's output into symv */
static double k_chain(double *x, double *y, double *A, double *B, double *C,
                      double *s) {
  cblas_dtrmv(COL, LO, NT, NONUNIT, 4, B, 4, x, 1);
  cblas_dsymv(ROW, LO, 4, s[0], A, 4, x, 1, 0.0, y, 1);
  return wsum(y, 4);
}

/* ---- Fortran (lower-case options too) ---- */
static const int i1 = 1, i2 = 2, i3 = 3, i4 = 4, i5 = 5, im1 = -1;
#define FSYMV(name, uplo)                                                      \
  static double name(double *x, double *y, double *A, double *B, double *C,    \
                     double *s) {                                              \
    dsymv_(uplo, &i4, &s[0], A, &i5, x, &i1, &s[1], y, &i2);                   \
    return wsum(y, 8);                                                         \
  }
FSYMV(f_dsymv_u, "U")
FSYMV(f_dsymv_l, "l")
#define FSYRK(name, uplo, trans)                                               \
  static double name(double *x, double *y, double *A, double *B, double *C,    \
                     double *s) {                                              \
    dsyrk_(uplo, trans, &i3, &i2, &s[0], A, &i4, &s[1], C, &i4);               \
    return wsum(C, 12);                                                        \
  }
FSYRK(f_dsyrk_un, "U", "N")
FSYRK(f_dsyrk_lt, "l", "t")
#define FTRMV(name, uplo, trans, diag, inc)                                    \
  static double name(double *x, double *y, double *A, double *B, double *C,    \
                     double *s) {                                              \
    dtrmv_(uplo, trans, diag, &i4, A, &i5, x, inc);                            \
    return wsum(x, 4);                                                         \
  }
FTRMV(f_dtrmv_unn, "U", "N", "N", &i1)
FTRMV(f_dtrmv_ltu, "l", "t", "u", &im1)
FTRMV(f_dtrmv_utn, "u", "T", "n", &i1)
#define FTRMM(name, side, uplo, trans, diag)                                   \
  static double name(double *x, double *y, double *A, double *B, double *C,    \
                     double *s) {                                              \
    dtrmm_(side, uplo, trans, diag, &i3, &i2, &s[0], A, &i4, B, &i4);          \
    return wsum(B, 12);                                                        \
  }
FTRMM(f_dtrmm_lunn, "L", "U", "N", "N")
FTRMM(f_dtrmm_rltu, "r", "l", "t", "u")
#define FSYMM(name, side, uplo)                                                \
  static double name(double *x, double *y, double *A, double *B, double *C,    \
                     double *s) {                                              \
    dsymm_(side, uplo, &i3, &i2, &s[0], A, &i4, B, &i4, &s[1], C, &i4);       \
    return wsum(C, 12);                                                        \
  }
FSYMM(f_dsymm_lu, "L", "U")
FSYMM(f_dsymm_rl, "r", "l")

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
GRAD(k_dsymv_cu) GRAD(k_dsymv_cl) GRAD(k_dsymv_ru) GRAD(k_dsymv_rl)
GRAD(k_dsyrk_cun) GRAD(k_dsyrk_clt) GRAD(k_dsyrk_rln) GRAD(k_dsyrk_rut)
GRAD(k_dtrmv_cunn) GRAD(k_dtrmv_cltu) GRAD(k_dtrmv_clnn) GRAD(k_dtrmv_rutn)
GRAD(k_dtrmv_rlnu) GRAD(k_dsymv_over) GRAD(k_chain)
GRAD(k_dtrmm_clunn) GRAD(k_dtrmm_clltu) GRAD(k_dtrmm_crutn)
GRAD(k_dtrmm_crlnn) GRAD(k_dtrmm_rlunu) GRAD(k_dtrmm_rrltn)
GRAD(k_dsymm_clu) GRAD(k_dsymm_crl) GRAD(k_dsymm_rll) GRAD(k_dsymm_rru)
GRAD(f_dtrmm_lunn) GRAD(f_dtrmm_rltu) GRAD(f_dsymm_lu) GRAD(f_dsymm_rl)
GRAD(f_dsymv_u) GRAD(f_dsymv_l) GRAD(f_dsyrk_un) GRAD(f_dsyrk_lt)
GRAD(f_dtrmv_unn) GRAD(f_dtrmv_ltu) GRAD(f_dtrmv_utn)

static int bad;

static void check_entry(const char *name, const char *what, int i, double got,
                        long double want) {
  if (fabsl(got - want) > 1e-6L * (1 + fabsl(want))) {
    printf("%s: d%s[%d] = %.12g, finite differences %.12Lg\n", name, what, i,
           got, want);
    bad++;
  }
}

/* symv_ld: a symv's lda (0: none), whose A diagonal (4 entries) keeps
 * what dA held before its adjoint: the seed, or 0 (zeroed: the kernel
 * overwrites A after the call) */
static void check_symv(const char *name, kernel f, gradient g, int symv_ld,
                       int zeroed) {
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
      if (symv_ld && k == 2 && i % (symv_ld + 1) == 0 && i / (symv_ld + 1) < 4) {
        double want = zeroed ? 0.0 : da[k][i];
        if (fabs(dw[k][i] - want) > 1e-12) {
          printf("%s: dA[%d] = %.12g, expected Enzyme's %.12g (no symv term)\n",
                 name, i, dw[k][i], want);
          bad++;
        }
        continue;
      }
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

#define CHECK(f) check_symv(#f, f, g_##f, 0, 0)
#define CHECK_SYMV(f, ld, zeroed) check_symv(#f, f, g_##f, ld, zeroed)

int main(void) {
  CHECK_SYMV(k_dsymv_cu, 5, 0); CHECK_SYMV(k_dsymv_cl, 5, 0);
  CHECK_SYMV(k_dsymv_ru, 5, 0); CHECK_SYMV(k_dsymv_rl, 5, 0);
  CHECK(k_dsyrk_cun); CHECK(k_dsyrk_clt); CHECK(k_dsyrk_rln);
  CHECK(k_dsyrk_rut);
  CHECK(k_dtrmv_cunn); CHECK(k_dtrmv_cltu); CHECK(k_dtrmv_clnn);
  CHECK(k_dtrmv_rutn); CHECK(k_dtrmv_rlnu);
  CHECK_SYMV(k_dsymv_over, 5, 1); CHECK_SYMV(k_chain, 4, 0);
  CHECK(k_dtrmm_clunn); CHECK(k_dtrmm_clltu); CHECK(k_dtrmm_crutn);
  CHECK(k_dtrmm_crlnn); CHECK(k_dtrmm_rlunu); CHECK(k_dtrmm_rrltn);
  CHECK(k_dsymm_clu); CHECK(k_dsymm_crl); CHECK(k_dsymm_rll);
  CHECK(k_dsymm_rru);
  CHECK(f_dtrmm_lunn); CHECK(f_dtrmm_rltu); CHECK(f_dsymm_lu);
  CHECK(f_dsymm_rl);
  CHECK_SYMV(f_dsymv_u, 5, 0); CHECK_SYMV(f_dsymv_l, 5, 0);
  CHECK(f_dsyrk_un); CHECK(f_dsyrk_lt);
  CHECK(f_dtrmv_unn); CHECK(f_dtrmv_ltu); CHECK(f_dtrmv_utn);
  printf("%d mismatches\n", bad);
  return bad;
}

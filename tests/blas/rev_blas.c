/*
 * Reverse-mode BLAS (src/ad/rev/blas.c): gradients of kernels that call
 * ddot, dnrm2, daxpy, dscal, dcopy, dgemv and dgemm through CBLAS and the
 * Fortran interface (both layouts, every transpose, beta != 0, alpha and
 * beta active, strided vectors, inputs overwritten after the call), each
 * entry checked against central finite differences, from nonzero shadows
 * (the memory's final values seeded with them, the gradient added).  main returns the number of mismatches.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

extern int enzyme_dup;
void __enzyme_autodiff(void *, ...);

double cblas_ddot(int n, const double *x, int incx, const double *y, int incy);
double cblas_dnrm2(int n, const double *x, int incx);
void cblas_daxpy(int n, double a, const double *x, int incx, double *y, int incy);
void cblas_dscal(int n, double a, double *x, int incx);
void cblas_dcopy(int n, const double *x, int incx, double *y, int incy);
void cblas_dgemv(int layout, int trans, int m, int n, double alpha,
                 const double *A, int lda, const double *x, int incx,
                 double beta, double *y, int incy);
void cblas_dgemm(int layout, int ta, int tb, int m, int n, int k, double alpha,
                 const double *A, int lda, const double *B, int ldb,
                 double beta, double *C, int ldc);
double ddot_(const int *n, const double *x, const int *incx, const double *y,
             const int *incy);
double dnrm2_(const int *n, const double *x, const int *incx);
void daxpy_(const int *n, const double *a, const double *x, const int *incx,
            double *y, const int *incy);
void dscal_(const int *n, const double *a, double *x, const int *incx);
void dgemv_(const char *trans, const int *m, const int *n, const double *alpha,
            const double *A, const int *lda, const double *x, const int *incx,
            const double *beta, double *y, const int *incy);
void dgemm_(const char *ta, const char *tb, const int *m, const int *n,
            const int *k, const double *alpha, const double *A, const int *lda,
            const double *B, const int *ldb, const double *beta, double *C,
            const int *ldc);

enum { CAP = 48, NARR = 5 }; /* x, y, A, B, C; s holds alpha, beta */
enum { ROW = 101, COL = 102, NT = 111, TR = 112 };

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
static double k_ddot(double *x, double *y, double *A, double *B, double *C,
                     double *s) {
  return s[0] * cblas_ddot(5, x, 1, y, 2);
}
static double k_dnrm2(double *x, double *y, double *A, double *B, double *C,
                      double *s) {
  return cblas_dnrm2(6, x, 2) * s[0];
}
static double k_daxpy(double *x, double *y, double *A, double *B, double *C,
                      double *s) {
  cblas_daxpy(6, s[0], x, 2, y, 1);
  return wsum(y, 6);
}
static double k_dscal(double *x, double *y, double *A, double *B, double *C,
                      double *s) {
  cblas_dscal(6, s[0], x, 1);
  return wsum(x, 6);
}
static double k_dcopy(double *x, double *y, double *A, double *B, double *C,
                      double *s) {
  cblas_dcopy(5, x, 1, y, 2);
  return wsum(y, 10) * s[0];
}
/* y := alpha op(A) x + beta y, A 4 x 3 (lda 5) in each layout */
#define GEMV(name, layout, trans)                                              \
  static double name(double *x, double *y, double *A, double *B, double *C,    \
                     double *s) {                                              \
    cblas_dgemv(layout, trans, 4, 3, s[0], A, 5, x, 1, s[1], y, 2);            \
    return wsum(y, 8);                                                         \
  }
GEMV(k_dgemv_cn, COL, NT)
GEMV(k_dgemv_ct, COL, TR)
GEMV(k_dgemv_rn, ROW, NT)
GEMV(k_dgemv_rt, ROW, TR)
/* C := alpha op(A) op(B) + beta C, m 3, n 4, k 2, leading dimensions 5 */
#define GEMM(name, layout, ta, tb)                                             \
  static double name(double *x, double *y, double *A, double *B, double *C,    \
                     double *s) {                                              \
    cblas_dgemm(layout, ta, tb, 3, 4, 2, s[0], A, 5, B, 5, s[1], C, 5);        \
    return wsum(C, 20);                                                        \
  }
GEMM(k_dgemm_cnn, COL, NT, NT)
GEMM(k_dgemm_cnt, COL, NT, TR)
GEMM(k_dgemm_ctn, COL, TR, NT)
GEMM(k_dgemm_ctt, COL, TR, TR)
GEMM(k_dgemm_rnn, ROW, NT, NT)
GEMM(k_dgemm_rtt, ROW, TR, TR)
GEMM(k_dgemm_rnt, ROW, NT, TR)
/* the inputs overwritten after the call: the adjoint reads its copies */
static double k_dgemm_over(double *x, double *y, double *A, double *B,
                           double *C, double *s) {
  cblas_dgemm(COL, NT, NT, 3, 4, 2, s[0], A, 5, B, 5, s[1], C, 5);
  double r = wsum(C, 20);
  for (int i = 0; i < 20; i++)
    A[i] = B[i] = C[i] = 0;
  return r;
}
/* a chain: the output of one call is the input of the next */
static double k_chain(double *x, double *y, double *A, double *B, double *C,
                      double *s) {
  cblas_dgemv(COL, NT, 4, 3, 1.0, A, 4, x, 1, 0.0, y, 1);
  cblas_dscal(4, s[0], y, 1);
  return cblas_ddot(4, y, 1, y, 1) + cblas_dnrm2(4, y, 1);
}

/* ---- Fortran ---- */
static const int i1 = 1, i2 = 2, i3 = 3, i4 = 4, i5 = 5, i6 = 6;
static double f_ddot(double *x, double *y, double *A, double *B, double *C,
                     double *s) {
  return ddot_(&i5, x, &i2, y, &i1) * s[0];
}
static double f_dnrm2(double *x, double *y, double *A, double *B, double *C,
                      double *s) {
  return dnrm2_(&i6, x, &i1);
}
static double f_daxpy(double *x, double *y, double *A, double *B, double *C,
                      double *s) {
  daxpy_(&i6, &s[0], x, &i1, y, &i2);
  return wsum(y, 12);
}
static double f_dscal(double *x, double *y, double *A, double *B, double *C,
                      double *s) {
  dscal_(&i5, &s[0], x, &i2);
  return wsum(x, 10);
}
#define FGEMV(name, trans)                                                     \
  static double name(double *x, double *y, double *A, double *B, double *C,    \
                     double *s) {                                              \
    dgemv_(trans, &i4, &i3, &s[0], A, &i5, x, &i1, &s[1], y, &i1);             \
    return wsum(y, 4);                                                         \
  }
FGEMV(f_dgemv_n, "N")
FGEMV(f_dgemv_t, "T")
#define FGEMM(name, ta, tb)                                                    \
  static double name(double *x, double *y, double *A, double *B, double *C,    \
                     double *s) {                                              \
    dgemm_(ta, tb, &i3, &i4, &i2, &s[0], A, &i5, B, &i5, &s[1], C, &i5);       \
    return wsum(C, 20);                                                        \
  }
FGEMM(f_dgemm_nn, "N", "N")
FGEMM(f_dgemm_nt, "N", "T")
FGEMM(f_dgemm_tn, "T", "N")
FGEMM(f_dgemm_tt, "T", "T")

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
static double run(kernel f, double a[NARR][CAP], double s[2],
                  double seed[NARR][CAP], const double seed_s[2]) {
  double c[NARR][CAP], cs[2];
  memcpy(c, a, sizeof c);
  memcpy(cs, s, sizeof cs);
  double r = f(c[0], c[1], c[2], c[3], c[4], cs);
  for (int k = 0; k < NARR; k++)
    for (int i = 0; i < CAP; i++)
      r += seed[k][i] * c[k][i];
  return r + seed_s[0] * cs[0] + seed_s[1] * cs[1];
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
GRAD(k_ddot) GRAD(k_dnrm2) GRAD(k_daxpy) GRAD(k_dscal) GRAD(k_dcopy)
GRAD(k_dgemv_cn) GRAD(k_dgemv_ct) GRAD(k_dgemv_rn) GRAD(k_dgemv_rt)
GRAD(k_dgemm_cnn) GRAD(k_dgemm_cnt) GRAD(k_dgemm_ctn) GRAD(k_dgemm_ctt)
GRAD(k_dgemm_rnn) GRAD(k_dgemm_rtt) GRAD(k_dgemm_rnt) GRAD(k_dgemm_over)
GRAD(k_chain)
GRAD(f_ddot) GRAD(f_dnrm2) GRAD(f_daxpy) GRAD(f_dscal) GRAD(f_dgemv_n)
GRAD(f_dgemv_t) GRAD(f_dgemm_nn) GRAD(f_dgemm_nt) GRAD(f_dgemm_tn)
GRAD(f_dgemm_tt)

static int bad;

static void check_entry(const char *name, const char *what, int i, double got,
                        double want) {
  if (fabs(got - want) > 1e-5 * (1 + fabs(want))) {
    printf("%s: d%s[%d] = %.12g, finite differences %.12g\n", name, what, i,
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
  const double h = 1e-6;
  for (int k = 0; k < NARR; k++)
    for (int i = 0; i < CAP; i++) {
      double keep = a[k][i];
      a[k][i] = keep + h;
      double up = run(f, a, s, da, ds);
      a[k][i] = keep - h;
      double down = run(f, a, s, da, ds);
      a[k][i] = keep;
      check_entry(name, names[k], i, dw[k][i], (up - down) / (2 * h));
    }
  for (int k = 0; k < 2; k++) {
    double keep = s[k];
    s[k] = keep + h;
    double up = run(f, a, s, da, ds);
    s[k] = keep - h;
    double down = run(f, a, s, da, ds);
    s[k] = keep;
    check_entry(name, k ? "beta" : "alpha", 0, dws[k],
                (up - down) / (2 * h));
  }
}

#define CHECK(f) check(#f, f, g_##f)

int main(void) {
  CHECK(k_ddot); CHECK(k_dnrm2); CHECK(k_daxpy); CHECK(k_dscal);
  CHECK(k_dcopy);
  CHECK(k_dgemv_cn); CHECK(k_dgemv_ct); CHECK(k_dgemv_rn); CHECK(k_dgemv_rt);
  CHECK(k_dgemm_cnn); CHECK(k_dgemm_cnt); CHECK(k_dgemm_ctn);
  CHECK(k_dgemm_ctt); CHECK(k_dgemm_rnn); CHECK(k_dgemm_rtt);
  CHECK(k_dgemm_rnt); CHECK(k_dgemm_over); CHECK(k_chain);
  CHECK(f_ddot); CHECK(f_dnrm2); CHECK(f_daxpy); CHECK(f_dscal);
  CHECK(f_dgemv_n); CHECK(f_dgemv_t); CHECK(f_dgemm_nn); CHECK(f_dgemm_nt);
  CHECK(f_dgemm_tn); CHECK(f_dgemm_tt);
  printf("%d mismatches\n", bad);
  return bad;
}

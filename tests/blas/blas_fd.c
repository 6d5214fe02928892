/*
 * BLAS calls differentiated by the BLAS rules (rules/blas.c), checked
 * against central finite differences under every activity of their inputs:
 * the CBLAS interface in both layouts and with transposes, the Fortran
 * interface (pointers, characters, hidden lengths), and single precision.
 * Run by `tanjit run` against a real BLAS and against tests/blas's
 * tracking fake; built with -DFORTRAN_ILP64 it calls the `_64_` forms the
 * fake exports (Julia's libblastrampoline names).  main returns the number
 * of mismatches.
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

extern int enzyme_dup, enzyme_const, enzyme_width;
double __enzyme_fwddiff(void *, ...);

static int failures, checks;

enum { ROW = 101, COL = 102, NOTRANS = 111, TRANS = 112, UPPER = 121,
       LOWER = 122 };
enum { M = 3, N = 4, K = 2, LD = 5 };

double cblas_ddot(int, const double *, int, const double *, int);
double cblas_dnrm2(int, const double *, int);
void cblas_daxpy(int, double, const double *, int, double *, int);
void cblas_dscal(int, double, double *, int);
void cblas_dcopy(int, const double *, int, double *, int);
void cblas_dgemv(int, int, int, int, double, const double *, int,
                 const double *, int, double, double *, int);
void cblas_dsymv(int, int, int, double, const double *, int, const double *,
                 int, double, double *, int);
void cblas_dgemm(int, int, int, int, int, int, double, const double *, int,
                 const double *, int, double, double *, int);
void cblas_dsyrk(int, int, int, int, int, double, const double *, int,
                 double, double *, int);
void cblas_dsyr2k(int, int, int, int, int, double, const double *, int,
                  const double *, int, double, double *, int);
float cblas_sdot(int, const float *, int, const float *, int);
void cblas_sgemm(int, int, int, int, int, int, float, const float *, int,
                 const float *, int, float, float *, int);

#ifdef FORTRAN_ILP64
typedef int64_t fint;
#define F(name) name##_64_
#define F_DOT_NAME "ddot_64_"
#define F_GEMM_NAME "dgemm_64_"
#else
typedef int32_t fint;
#define F(name) name##_
#define F_DOT_NAME "ddot_"
#define F_GEMM_NAME "dgemm_"
#endif
double F(ddot)(const fint *, const double *, const fint *, const double *,
               const fint *);
double F(dnrm2)(const fint *, const double *, const fint *);
void F(daxpy)(const fint *, const double *, const double *, const fint *,
              double *, const fint *);
void F(dscal)(const fint *, const double *, double *, const fint *);
void F(dcopy)(const fint *, const double *, const fint *, double *,
              const fint *);
/* with the hidden length of its character argument, as gfortran passes */
void F(dgemv)(const char *, const fint *, const fint *, const double *,
              const double *, const fint *, const double *, const fint *,
              const double *, double *, const fint *, size_t);
void F(dsymv)(const char *, const fint *, const double *, const double *,
              const fint *, const double *, const fint *, const double *,
              double *, const fint *);
void F(dgemm)(const char *, const char *, const fint *, const fint *,
              const fint *, const double *, const double *, const fint *,
              const double *, const fint *, const double *, double *,
              const fint *);
void F(dsyrk)(const char *, const char *, const fint *, const fint *,
              const double *, const double *, const fint *, const double *,
              double *, const fint *);
void F(sgemv)(const char *, const fint *, const fint *, const float *,
              const float *, const fint *, const float *, const fint *,
              const float *, float *, const fint *, size_t);

#ifdef LAPACK
void dpotrf_(const char *, const int32_t *, double *, const int32_t *,
             int32_t *, size_t);
#endif

#ifdef TRACK
int fake_blas_count(const char *);
void fake_blas_reset(void);
#endif

#define REAL double
#define H(name) name##_d
#include "harness.h"
#undef REAL
#undef H
#define REAL float
#define H(name) name##_f
#include "harness.h"
#undef REAL
#undef H

typedef double D;
typedef float S;
#define KERNEL(T, name)                                                        \
  static T name(T *a0, T *a1, T *a2, T *a3, T s0, T s1)
#define UNUSED (void)a0, (void)a1, (void)a2, (void)a3, (void)s0, (void)s1

#ifndef FORTRAN_ILP64
KERNEL(D, c_dot) { UNUSED; return cblas_ddot(N, a0, 1, a1, 1); }
KERNEL(D, c_dot_strided) { UNUSED; return cblas_ddot(N, a0, 2, a1, -3); }
KERNEL(D, c_nrm2) { UNUSED; return cblas_dnrm2(N, a0, 2); }
KERNEL(D, c_axpy) { UNUSED; cblas_daxpy(N, s0, a0, 1, a3, 2); return 0; }
KERNEL(D, c_scal) { UNUSED; cblas_dscal(N, s0, a3, 1); return 0; }
KERNEL(D, c_copy) { UNUSED; cblas_dcopy(N, a0, 2, a3, -3); return 0; }
KERNEL(D, c_gemv_rn) {
  UNUSED;
  cblas_dgemv(ROW, NOTRANS, M, N, s0, a0, LD, a1, 1, s1, a3, 1);
  return 0;
}
KERNEL(D, c_gemv_ct) {
  UNUSED;
  cblas_dgemv(COL, TRANS, M, N, s0, a0, LD, a1, 2, s1, a3, 1);
  return 0;
}
KERNEL(D, c_symv_cl) {
  UNUSED;
  cblas_dsymv(COL, LOWER, N, s0, a0, LD, a1, 1, s1, a3, 1);
  return 0;
}
KERNEL(D, c_symv_ru) {
  UNUSED;
  cblas_dsymv(ROW, UPPER, N, s0, a0, LD, a1, 1, s1, a3, 2);
  return 0;
}
KERNEL(D, c_gemm_rnt) {
  UNUSED;
  cblas_dgemm(ROW, NOTRANS, TRANS, M, N, K, s0, a0, LD, a1, LD, s1, a3, LD);
  return 0;
}
KERNEL(D, c_gemm_ctn) {
  UNUSED;
  cblas_dgemm(COL, TRANS, NOTRANS, M, N, K, s0, a0, LD, a1, LD, s1, a3, LD);
  return 0;
}
KERNEL(D, c_syrk_cln) {
  UNUSED;
  cblas_dsyrk(COL, LOWER, NOTRANS, N, K, s0, a0, LD, s1, a3, LD);
  return 0;
}
KERNEL(D, c_syrk_rut) {
  UNUSED;
  cblas_dsyrk(ROW, UPPER, TRANS, N, K, s0, a0, LD, s1, a3, LD);
  return 0;
}
KERNEL(D, c_syr2k_cun) {
  UNUSED;
  cblas_dsyr2k(COL, UPPER, NOTRANS, N, K, s0, a0, LD, a1, LD, s1, a3, LD);
  return 0;
}
/* a BLAS call inside a loop, with the results combined */
KERNEL(D, c_dot_loop) {
  UNUSED;
  double sum = 0;
  for (int i = 0; i < 3; i++)
    sum += s0 * cblas_ddot(N - i, a0 + i, 1, a1, 1);
  cblas_dscal(N, sum, a3, 1);
  return sum;
}
#ifdef LAPACK
/* a3 := chol(B B' + N I), B the N x N matrix in a3 (so that it is
 * positive definite) */
static double cholesky(double *a3, const char *uplo) {
  double spd[N * LD];
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      double sum = i == j ? N : 0;
      for (int l = 0; l < N; l++)
        sum += a3[i + l * LD] * a3[j + l * LD];
      spd[i + j * LD] = sum;
    }
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      a3[i + j * LD] = spd[i + j * LD];
  int32_t n = N, ld = LD, info;
  dpotrf_(uplo, &n, a3, &ld, &info, 1);
  return info;
}
KERNEL(D, f_potrf_l) { UNUSED; return cholesky(a3, "L"); }
KERNEL(D, f_potrf_u) { UNUSED; return cholesky(a3, "U"); }
#endif

/* CBLAS and Fortran calls together, for the width-2 request */
KERNEL(D, w_mix) {
  UNUSED;
  static const fint m = M, n = N, k = K, ld = LD, inc = 1;
  cblas_dgemv(ROW, NOTRANS, M, N, s0, a0, LD, a1, 1, s1, a3, 1);
  F(dgemm)("N", "T", &m, &n, &k, &s0, a0, &ld, a1, &ld, &s1, a3 + 8, &ld);
  return cblas_ddot(N, a3, 1, a2, 1) + F(dnrm2)(&n, a1, &inc);
}
KERNEL(S, c_sdot) { UNUSED; return cblas_sdot(N, a0, 1, a1, 1); }
KERNEL(S, c_sgemm_cnn) {
  UNUSED;
  cblas_sgemm(COL, NOTRANS, NOTRANS, M, N, K, s0, a0, LD, a1, LD, s1, a3, LD);
  return 0;
}
#endif

static const fint fn = N, fm = M, fk = K, fld = LD, one = 1, two = 2;
KERNEL(D, f_dot) { UNUSED; return F(ddot)(&fn, a0, &one, a1, &two); }
KERNEL(D, f_nrm2) { UNUSED; return F(dnrm2)(&fn, a0, &one); }
KERNEL(D, f_axpy) { UNUSED; F(daxpy)(&fn, &s0, a0, &two, a3, &one); return 0; }
KERNEL(D, f_scal) { UNUSED; F(dscal)(&fn, &s0, a3, &two); return 0; }
KERNEL(D, f_copy) { UNUSED; F(dcopy)(&fn, a0, &one, a3, &two); return 0; }
KERNEL(D, f_gemv_t) {
  UNUSED;
  F(dgemv)("T", &fm, &fn, &s0, a0, &fld, a1, &one, &s1, a3, &one, 1);
  return 0;
}
KERNEL(D, f_symv_u) {
  UNUSED;
  F(dsymv)("U", &fn, &s0, a0, &fld, a1, &one, &s1, a3, &one);
  return 0;
}
KERNEL(D, f_gemm_nt) {
  UNUSED;
  F(dgemm)("N", "T", &fm, &fn, &fk, &s0, a0, &fld, a1, &fld, &s1, a3, &fld);
  return 0;
}
KERNEL(D, f_syrk_lt) {
  UNUSED;
  F(dsyrk)("L", "T", &fn, &fk, &s0, a0, &fld, &s1, a3, &fld);
  return 0;
}
KERNEL(S, f_sgemv_n) {
  UNUSED;
  F(sgemv)("N", &fm, &fn, &s0, a0, &fld, a1, &one, &s1, a3, &one, 1);
  return 0;
}

#define DERIVATIVES_T(T, f)                                                    \
  static T d_##f(unsigned act, T **a, T **da, T *s, T *ds) {                   \
    typedef T REAL;                                                            \
    switch (act) {                                                             \
    case 31: return H_REQ(f, H_DUP(0), H_DUP(1), H_DUP(2), H_DUPS(0), H_DUPS(1)); \
    case 1: return H_REQ(f, H_DUP(0), H_CONST(1), H_CONST(2), H_CONSTS(0), H_CONSTS(1)); \
    case 2: return H_REQ(f, H_CONST(0), H_DUP(1), H_CONST(2), H_CONSTS(0), H_CONSTS(1)); \
    case 4: return H_REQ(f, H_CONST(0), H_CONST(1), H_DUP(2), H_CONSTS(0), H_CONSTS(1)); \
    case 8: return H_REQ(f, H_CONST(0), H_CONST(1), H_CONST(2), H_DUPS(0), H_CONSTS(1)); \
    case 16: return H_REQ(f, H_CONST(0), H_CONST(1), H_CONST(2), H_CONSTS(0), H_DUPS(1)); \
    default: return H_REQ(f, H_CONST(0), H_CONST(1), H_CONST(2), H_CONSTS(0), H_CONSTS(1)); \
    }                                                                          \
  }
#define CHECK_D(f) check_d(#f, f, d_##f, 1e-6, 1e-6)
#define CHECK_S(f) check_f(#f, f, d_##f, 1e-2, 2e-2)

#ifndef FORTRAN_ILP64
DERIVATIVES_T(D, c_dot)
DERIVATIVES_T(D, c_dot_strided)
DERIVATIVES_T(D, c_nrm2)
DERIVATIVES_T(D, c_axpy)
DERIVATIVES_T(D, c_scal)
DERIVATIVES_T(D, c_copy)
DERIVATIVES_T(D, c_gemv_rn)
DERIVATIVES_T(D, c_gemv_ct)
DERIVATIVES_T(D, c_symv_cl)
DERIVATIVES_T(D, c_symv_ru)
DERIVATIVES_T(D, c_gemm_rnt)
DERIVATIVES_T(D, c_gemm_ctn)
DERIVATIVES_T(D, c_syrk_cln)
DERIVATIVES_T(D, c_syrk_rut)
DERIVATIVES_T(D, c_syr2k_cun)
DERIVATIVES_T(D, c_dot_loop)
DERIVATIVES_T(D, w_mix)
#ifdef LAPACK
DERIVATIVES_T(D, f_potrf_l)
DERIVATIVES_T(D, f_potrf_u)
#endif
DERIVATIVES_T(S, c_sdot)
DERIVATIVES_T(S, c_sgemm_cnn)
#endif
DERIVATIVES_T(D, f_dot)
DERIVATIVES_T(D, f_nrm2)
DERIVATIVES_T(D, f_axpy)
DERIVATIVES_T(D, f_scal)
DERIVATIVES_T(D, f_copy)
DERIVATIVES_T(D, f_gemv_t)
DERIVATIVES_T(D, f_symv_u)
DERIVATIVES_T(D, f_gemm_nt)
DERIVATIVES_T(D, f_syrk_lt)
DERIVATIVES_T(S, f_sgemv_n)

#ifndef FORTRAN_ILP64
typedef struct {
  double d0, d1;
} two_tangents;
two_tangents __enzyme_fwddiff2(void *, ...) __asm__("__enzyme_fwddiff");

/* One width-2 request against two width-1 requests, lane by lane (every
 * input active, the directions differing per lane). */
static void check_width2(void) {
  double a[4][CAP_d], da[2][4][CAP_d], s[2], ds[2][2];
  for (unsigned k = 0; k < 4; k++)
    for (unsigned i = 0; i < CAP_d; i++) {
      a[k][i] = value_d(i, k);
      for (unsigned l = 0; l < 2; l++)
        da[l][k][i] = value_d(i, k + 10 + 40 * l);
    }
  for (unsigned k = 0; k < 2; k++) {
    s[k] = value_d(k, 20) + 1.5;
    for (unsigned l = 0; l < 2; l++)
      ds[l][k] = value_d(k, 30 + 40 * l);
  }
  double w[4][CAP_d], dw[2][4][CAP_d];
  memcpy(w, a, sizeof w);
  memcpy(dw, da, sizeof dw);
  two_tangents r = __enzyme_fwddiff2(
      (void *)w_mix, enzyme_width, 2, enzyme_dup, w[0], dw[0][0], dw[1][0],
      enzyme_dup, w[1], dw[0][1], dw[1][1], enzyme_dup, w[2], dw[0][2],
      dw[1][2], enzyme_dup, w[3], dw[0][3], dw[1][3], s[0], ds[0][0],
      ds[1][0], s[1], ds[0][1], ds[1][1]);
  for (unsigned l = 0; l < 2; l++) {
    double v[4][CAP_d], dv[4][CAP_d], sv[2] = {s[0], s[1]};
    double *vp[4], *dvp[4];
    memcpy(v, a, sizeof v);
    memcpy(dv, da[l], sizeof dv);
    for (unsigned k = 0; k < 4; k++)
      vp[k] = v[k], dvp[k] = dv[k];
    double want = d_w_mix(31, vp, dvp, sv, ds[l]);
    double got = l ? r.d1 : r.d0;
    int bad = !(fabs(got - want) <= 1e-12 * fmax(1.0, fabs(want)));
    for (unsigned i = 0; i < CAP_d && !bad; i++)
      bad = !(fabs(dw[l][3][i] - dv[3][i]) <= 1e-12 * fmax(1.0, fabs(dv[3][i])));
    if (bad) {
      fprintf(stderr, "width 2, lane %u: differs from the width-1 derivative "
                      "(result %.17g vs %.17g)\n",
              l, got, want);
      failures++;
    }
    checks++;
  }
}
#endif

#ifndef FORTRAN_ILP64
/*
 * Run-time activity: a pointer that is either a duplicated array or a
 * constant one (its own shadow then).  Reading through it, the constant
 * one contributes nothing; writing through it, the constant one's values
 * are the primal's alone (the tangent call must not scale them again).
 */
static double pick_dot(double *a, double *b, double *y, int first) {
  double *x = first ? a : b;
  return cblas_ddot(N, x, 1, y, 1);
}
static double pick_scal(double *a, double *b, double alpha, int first) {
  double *x = first ? a : b;
  cblas_dscal(N, alpha, x, 1);
  return x[0];
}

static void check_runtime_activity(void) {
  for (int first = 0; first < 2; first++) {
    double a[N], da[N], b[N], y[N], want = 0;
    for (unsigned i = 0; i < N; i++) {
      a[i] = value_d(i, 1), da[i] = value_d(i, 2), b[i] = value_d(i, 3);
      y[i] = value_d(i, 4);
      want += first ? da[i] * y[i] : 0;
    }
    double got = __enzyme_fwddiff((void *)pick_dot, enzyme_dup, a, da,
                                  enzyme_const, b, enzyme_const, y, first);
    if (!(fabs(got - want) <= 1e-12)) {
      fprintf(stderr, "run-time activity, ddot (first %d): %.17g, expected "
                      "%.17g\n", first, got, want);
      failures++;
    }
    __enzyme_fwddiff((void *)pick_scal, enzyme_dup, a, da, enzyme_const, b,
                     enzyme_const, 2.0, first);
    int bad = 0;
    for (unsigned i = 0; i < N; i++) {
      bad |= first ? da[i] != 2 * value_d(i, 2) : b[i] != 2 * value_d(i, 3);
      bad |= first ? b[i] != value_d(i, 3) : a[i] != value_d(i, 1);
    }
    if (bad) {
      fprintf(stderr, "run-time activity, dscal (first %d): wrong values\n",
              first);
      failures++;
    }
    checks += 2;
  }
}
#endif

#ifdef TRACK
/* The calls one derivative makes, by routine. */
static void expect_calls(const char *what, const char *routine, int want) {
  int got = fake_blas_count(routine);
  if (got != want) {
    fprintf(stderr, "%s: %d calls to %s, expected %d\n", what, got, routine,
            want);
    failures++;
  }
  checks++;
}

static void check_calls(void) {
  double a[4][CAP_d], da[4][CAP_d], s[2] = {1.5, 0.5}, ds[2] = {1, 1};
  double *ap[4], *dap[4];
  for (unsigned k = 0; k < 4; k++) {
    for (unsigned i = 0; i < CAP_d; i++)
      a[k][i] = value_d(i, k), da[k][i] = value_d(i, k + 10);
    ap[k] = a[k], dap[k] = da[k];
  }
#ifndef FORTRAN_ILP64
  const char *dot = "cblas_ddot", *gemv = "cblas_dgemv", *axpy = "cblas_daxpy";
  fake_blas_reset();
  d_c_syrk_cln(31, ap, dap, s, ds); /* dA through syr2k, dalpha, dbeta */
  expect_calls("syrk", "cblas_dsyrk", 2);
  expect_calls("syrk", "cblas_dsyr2k", 1);
  expect_calls("syrk", "cblas_daxpy", N);
  fake_blas_reset();
  d_c_gemv_rn(31, ap, dap, s, ds);
  expect_calls("gemv", gemv, 4);
  expect_calls("gemv", axpy, 1);
  fake_blas_reset();
  d_c_gemv_rn(1, ap, dap, s, ds); /* dA only: beta rides on the term */
  expect_calls("gemv dA", gemv, 2);
  fake_blas_reset();
  d_c_gemv_rn(0, ap, dap, s, ds); /* nothing active: dy = beta dy */
  expect_calls("gemv const", gemv, 2);
#else
  const char *dot = "ddot_64_";
#endif
  fake_blas_reset();
  d_f_dot(31, ap, dap, s, ds);
  expect_calls("dot", F_DOT_NAME, 3);
  fake_blas_reset();
  d_f_dot(1, ap, dap, s, ds);
  expect_calls("dot dx", F_DOT_NAME, 2);
  fake_blas_reset();
  d_f_nrm2(31, ap, dap, s, ds);
  expect_calls("nrm2", F_DOT_NAME, 1);
  fake_blas_reset();
  d_f_gemm_nt(31, ap, dap, s, ds);
  expect_calls("gemm", F_GEMM_NAME, 4);
  (void)dot;
}
#endif

int main(void) {
#ifndef FORTRAN_ILP64
  CHECK_D(c_dot);
  CHECK_D(c_dot_strided);
  CHECK_D(c_nrm2);
  CHECK_D(c_axpy);
  CHECK_D(c_scal);
  CHECK_D(c_copy);
  CHECK_D(c_gemv_rn);
  CHECK_D(c_gemv_ct);
  CHECK_D(c_symv_cl);
  CHECK_D(c_symv_ru);
  CHECK_D(c_gemm_rnt);
  CHECK_D(c_gemm_ctn);
  CHECK_D(c_syrk_cln);
  CHECK_D(c_syrk_rut);
  CHECK_D(c_syr2k_cun);
  CHECK_D(c_dot_loop);
  CHECK_S(c_sdot);
  CHECK_S(c_sgemm_cnn);
  CHECK_D(w_mix);
  check_width2();
  check_runtime_activity();
#ifdef LAPACK
  CHECK_D(f_potrf_l);
  CHECK_D(f_potrf_u);
#endif
#endif
  CHECK_D(f_dot);
  CHECK_D(f_nrm2);
  CHECK_D(f_axpy);
  CHECK_D(f_scal);
  CHECK_D(f_copy);
  CHECK_D(f_gemv_t);
  CHECK_D(f_symv_u);
  CHECK_D(f_gemm_nt);
  CHECK_D(f_syrk_lt);
  CHECK_S(f_sgemv_n);
#ifdef TRACK
  check_calls();
#endif
  printf("blas: %d checks, %d failures\n", checks, failures);
  return failures;
}

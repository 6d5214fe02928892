/*
 * A tracking stand-in for BLAS: the routines the BLAS rules differentiate
 * and call (dot, nrm2, axpy, scal, copy, gemv, symv, gemm, syrk, syr2k), in
 * double and single precision, under the CBLAS, Fortran (LP64) and ILP64
 * (`_64_`, as libblastrampoline exports them) names.  Each call computes
 * what BLAS computes (plain loops) and is recorded by name, so a test can
 * check which routines a derivative called and that renamed tangent calls
 * (`ejlstr$ddot_64_$<this library>`) reached this library, loaded
 * RTLD_LOCAL.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

enum { LOG_MAX = 4096 };
static char log_names[LOG_MAX][24];
static int log_n;

static void record(const char *name) {
  if (log_n < LOG_MAX) {
    strncpy(log_names[log_n], name, sizeof log_names[0] - 1);
    log_n++;
  }
}

void fake_blas_reset(void) { log_n = 0; }
int fake_blas_ncalls(void) { return log_n; }
const char *fake_blas_call(int i) {
  return i >= 0 && i < log_n ? log_names[i] : "";
}
int fake_blas_count(const char *name) {
  int n = 0;
  for (int i = 0; i < log_n; i++)
    n += strcmp(log_names[i], name) == 0;
  return n;
}

static int notrans(int c) { return c == 111 || c == 'N' || c == 'n'; }
static int lower(int c) { return c == 122 || c == 'L' || c == 'l'; }
/* element strides of a matrix with leading dimension ld */
static int64_t row_stride(int layout, int64_t ld) { return layout == 101 ? ld : 1; }
static int64_t col_stride(int layout, int64_t ld) { return layout == 101 ? 1 : ld; }
static int64_t first(int64_t n, int64_t inc) { return inc < 0 ? (1 - n) * inc : 0; }

#define KERNELS(T, P)                                                          \
  static T P##dot_k(int64_t n, const T *x, int64_t ix, const T *y,            \
                    int64_t iy) {                                             \
    T s = 0;                                                                  \
    for (int64_t i = 0, a = first(n, ix), b = first(n, iy); i < n;             \
         i++, a += ix, b += iy)                                               \
      s += x[a] * y[b];                                                       \
    return s;                                                                 \
  }                                                                           \
  static T P##nrm2_k(int64_t n, const T *x, int64_t ix) {                     \
    return (T)sqrt((double)P##dot_k(n, x, ix, x, ix));                        \
  }                                                                           \
  static void P##axpy_k(int64_t n, T alpha, const T *x, int64_t ix, T *y,     \
                        int64_t iy) {                                         \
    for (int64_t i = 0, a = first(n, ix), b = first(n, iy); i < n;             \
         i++, a += ix, b += iy)                                               \
      y[b] += alpha * x[a];                                                   \
  }                                                                           \
  static void P##copy_k(int64_t n, const T *x, int64_t ix, T *y,             \
                        int64_t iy) {                                         \
    for (int64_t i = 0, a = first(n, ix), b = first(n, iy); i < n;             \
         i++, a += ix, b += iy)                                               \
      y[b] = x[a];                                                            \
  }                                                                           \
  static void P##scal_k(int64_t n, T alpha, T *x, int64_t ix) {               \
    for (int64_t i = 0; i < n && ix > 0; i++)                                 \
      x[i * ix] *= alpha;                                                     \
  }                                                                           \
  static void P##scale_vec(int64_t n, T beta, T *y, int64_t iy) {             \
    for (int64_t i = 0, b = first(n, iy); i < n; i++, b += iy)                 \
      y[b] = beta == 0 ? 0 : beta * y[b];                                     \
  }                                                                           \
  static void P##gemv_k(int layout, int t, int64_t m, int64_t n, T alpha,     \
                        const T *A, int64_t lda, const T *x, int64_t ix,      \
                        T beta, T *y, int64_t iy) {                           \
    int64_t rs = row_stride(layout, lda), cs = col_stride(layout, lda);       \
    int64_t ly = notrans(t) ? m : n, lx = notrans(t) ? n : m;                 \
    if (m == 0 || n == 0)                                                     \
      return;                                                                 \
    P##scale_vec(ly, beta, y, iy);                                            \
    for (int64_t i = 0, b = first(ly, iy); i < ly; i++, b += iy) {            \
      T s = 0;                                                                \
      for (int64_t j = 0, a = first(lx, ix); j < lx; j++, a += ix)            \
        s += (notrans(t) ? A[i * rs + j * cs] : A[j * rs + i * cs]) * x[a];   \
      y[b] += alpha * s;                                                      \
    }                                                                         \
  }                                                                           \
  static void P##symv_k(int layout, int uplo, int64_t n, T alpha, const T *A, \
                        int64_t lda, const T *x, int64_t ix, T beta, T *y,    \
                        int64_t iy) {                                         \
    int64_t rs = row_stride(layout, lda), cs = col_stride(layout, lda);       \
    if (n == 0)                                                               \
      return;                                                                 \
    P##scale_vec(n, beta, y, iy);                                             \
    for (int64_t i = 0, b = first(n, iy); i < n; i++, b += iy) {              \
      T s = 0;                                                                \
      for (int64_t j = 0, a = first(n, ix); j < n; j++, a += ix) {            \
        int in = lower(uplo) ? i >= j : i <= j;                               \
        s += (in ? A[i * rs + j * cs] : A[j * rs + i * cs]) * x[a];           \
      }                                                                       \
      y[b] += alpha * s;                                                      \
    }                                                                         \
  }                                                                           \
  static void P##gemm_k(int layout, int ta, int tb, int64_t m, int64_t n,     \
                        int64_t k, T alpha, const T *A, int64_t lda,          \
                        const T *B, int64_t ldb, T beta, T *C, int64_t ldc) { \
    int64_t ar = row_stride(layout, lda), ac = col_stride(layout, lda);       \
    int64_t br = row_stride(layout, ldb), bc = col_stride(layout, ldb);       \
    int64_t cr = row_stride(layout, ldc), cc = col_stride(layout, ldc);       \
    for (int64_t i = 0; i < m; i++)                                           \
      for (int64_t j = 0; j < n; j++) {                                       \
        T s = 0;                                                              \
        for (int64_t l = 0; l < k; l++)                                       \
          s += (notrans(ta) ? A[i * ar + l * ac] : A[l * ar + i * ac]) *      \
               (notrans(tb) ? B[l * br + j * bc] : B[j * br + l * bc]);       \
        T *c = &C[i * cr + j * cc];                                           \
        *c = alpha * s + (beta == 0 ? 0 : beta * *c);                         \
      }                                                                       \
  }                                                                           \
  /* syr2k with B = NULL is syrk */                                           \
  static void P##syr2k_k(int layout, int uplo, int t, int64_t n, int64_t k,   \
                         T alpha, const T *A, int64_t lda, const T *B,        \
                         int64_t ldb, T beta, T *C, int64_t ldc) {            \
    int64_t ar = row_stride(layout, lda), ac = col_stride(layout, lda);       \
    int64_t br = row_stride(layout, ldb), bc = col_stride(layout, ldb);       \
    int64_t cr = row_stride(layout, ldc), cc = col_stride(layout, ldc);       \
    for (int64_t i = 0; i < n; i++)                                           \
      for (int64_t j = 0; j < n; j++) {                                       \
        if (lower(uplo) ? i < j : i > j)                                      \
          continue;                                                           \
        T s = 0;                                                              \
        for (int64_t l = 0; l < k; l++) {                                     \
          T ai = notrans(t) ? A[i * ar + l * ac] : A[l * ar + i * ac];        \
          T aj = notrans(t) ? A[j * ar + l * ac] : A[l * ar + j * ac];        \
          if (!B) {                                                           \
            s += ai * aj;                                                     \
            continue;                                                         \
          }                                                                   \
          T bi = notrans(t) ? B[i * br + l * bc] : B[l * br + i * bc];        \
          T bj = notrans(t) ? B[j * br + l * bc] : B[l * br + j * bc];        \
          s += ai * bj + bi * aj;                                             \
        }                                                                     \
        T *c = &C[i * cr + j * cc];                                           \
        *c = alpha * s + (beta == 0 ? 0 : beta * *c);                         \
      }                                                                       \
  }

KERNELS(double, d)
KERNELS(float, s)

/* The three interfaces of each routine: CBLAS by value (int sizes, int
 * enums), Fortran by pointer with 4-byte and 8-byte integers. */
#define INTERFACES(T, P, IT, SUF)                                             \
  T P##dot##SUF(const IT *n, const T *x, const IT *ix, const T *y,            \
                const IT *iy) {                                               \
    record(#P "dot" #SUF);                                                    \
    return P##dot_k(*n, x, *ix, y, *iy);                                      \
  }                                                                           \
  T P##nrm2##SUF(const IT *n, const T *x, const IT *ix) {                     \
    record(#P "nrm2" #SUF);                                                   \
    return P##nrm2_k(*n, x, *ix);                                             \
  }                                                                           \
  void P##axpy##SUF(const IT *n, const T *alpha, const T *x, const IT *ix,    \
                    T *y, const IT *iy) {                                     \
    record(#P "axpy" #SUF);                                                   \
    P##axpy_k(*n, *alpha, x, *ix, y, *iy);                                    \
  }                                                                           \
  void P##copy##SUF(const IT *n, const T *x, const IT *ix, T *y,             \
                    const IT *iy) {                                           \
    record(#P "copy" #SUF);                                                   \
    P##copy_k(*n, x, *ix, y, *iy);                                            \
  }                                                                           \
  void P##scal##SUF(const IT *n, const T *alpha, T *x, const IT *ix) {        \
    record(#P "scal" #SUF);                                                   \
    P##scal_k(*n, *alpha, x, *ix);                                            \
  }                                                                           \
  void P##gemv##SUF(const char *t, const IT *m, const IT *n, const T *alpha,  \
                    const T *A, const IT *lda, const T *x, const IT *ix,      \
                    const T *beta, T *y, const IT *iy) {                      \
    record(#P "gemv" #SUF);                                                   \
    P##gemv_k(102, *t, *m, *n, *alpha, A, *lda, x, *ix, *beta, y, *iy);       \
  }                                                                           \
  void P##symv##SUF(const char *u, const IT *n, const T *alpha, const T *A,   \
                    const IT *lda, const T *x, const IT *ix, const T *beta,   \
                    T *y, const IT *iy) {                                     \
    record(#P "symv" #SUF);                                                   \
    P##symv_k(102, *u, *n, *alpha, A, *lda, x, *ix, *beta, y, *iy);           \
  }                                                                           \
  void P##gemm##SUF(const char *ta, const char *tb, const IT *m, const IT *n, \
                    const IT *k, const T *alpha, const T *A, const IT *lda,   \
                    const T *B, const IT *ldb, const T *beta, T *C,           \
                    const IT *ldc) {                                          \
    record(#P "gemm" #SUF);                                                   \
    P##gemm_k(102, *ta, *tb, *m, *n, *k, *alpha, A, *lda, B, *ldb, *beta, C,  \
              *ldc);                                                          \
  }                                                                           \
  void P##syrk##SUF(const char *u, const char *t, const IT *n, const IT *k,   \
                    const T *alpha, const T *A, const IT *lda, const T *beta, \
                    T *C, const IT *ldc) {                                    \
    record(#P "syrk" #SUF);                                                   \
    P##syr2k_k(102, *u, *t, *n, *k, *alpha, A, *lda, NULL, 1, *beta, C,       \
               *ldc);                                                         \
  }                                                                           \
  void P##syr2k##SUF(const char *u, const char *t, const IT *n, const IT *k,  \
                     const T *alpha, const T *A, const IT *lda, const T *B,   \
                     const IT *ldb, const T *beta, T *C, const IT *ldc) {     \
    record(#P "syr2k" #SUF);                                                  \
    P##syr2k_k(102, *u, *t, *n, *k, *alpha, A, *lda, B, *ldb, *beta, C,       \
               *ldc);                                                         \
  }

INTERFACES(double, d, int32_t, _)
INTERFACES(float, s, int32_t, _)
INTERFACES(double, d, int64_t, _64_)
INTERFACES(float, s, int64_t, _64_)

#define CBLAS(T, P)                                                           \
  T cblas_##P##dot(int n, const T *x, int ix, const T *y, int iy) {           \
    record("cblas_" #P "dot");                                                \
    return P##dot_k(n, x, ix, y, iy);                                         \
  }                                                                           \
  T cblas_##P##nrm2(int n, const T *x, int ix) {                              \
    record("cblas_" #P "nrm2");                                               \
    return P##nrm2_k(n, x, ix);                                               \
  }                                                                           \
  void cblas_##P##axpy(int n, T alpha, const T *x, int ix, T *y, int iy) {    \
    record("cblas_" #P "axpy");                                               \
    P##axpy_k(n, alpha, x, ix, y, iy);                                        \
  }                                                                           \
  void cblas_##P##copy(int n, const T *x, int ix, T *y, int iy) {            \
    record("cblas_" #P "copy");                                               \
    P##copy_k(n, x, ix, y, iy);                                               \
  }                                                                           \
  void cblas_##P##scal(int n, T alpha, T *x, int ix) {                        \
    record("cblas_" #P "scal");                                               \
    P##scal_k(n, alpha, x, ix);                                               \
  }                                                                           \
  void cblas_##P##gemv(int layout, int t, int m, int n, T alpha, const T *A,  \
                       int lda, const T *x, int ix, T beta, T *y, int iy) {   \
    record("cblas_" #P "gemv");                                               \
    P##gemv_k(layout, t, m, n, alpha, A, lda, x, ix, beta, y, iy);            \
  }                                                                           \
  void cblas_##P##symv(int layout, int u, int n, T alpha, const T *A,         \
                       int lda, const T *x, int ix, T beta, T *y, int iy) {   \
    record("cblas_" #P "symv");                                               \
    P##symv_k(layout, u, n, alpha, A, lda, x, ix, beta, y, iy);               \
  }                                                                           \
  void cblas_##P##gemm(int layout, int ta, int tb, int m, int n, int k,       \
                       T alpha, const T *A, int lda, const T *B, int ldb,     \
                       T beta, T *C, int ldc) {                               \
    record("cblas_" #P "gemm");                                               \
    P##gemm_k(layout, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);  \
  }                                                                           \
  void cblas_##P##syrk(int layout, int u, int t, int n, int k, T alpha,       \
                       const T *A, int lda, T beta, T *C, int ldc) {          \
    record("cblas_" #P "syrk");                                               \
    P##syr2k_k(layout, u, t, n, k, alpha, A, lda, NULL, 1, beta, C, ldc);     \
  }                                                                           \
  void cblas_##P##syr2k(int layout, int u, int t, int n, int k, T alpha,      \
                        const T *A, int lda, const T *B, int ldb, T beta,     \
                        T *C, int ldc) {                                      \
    record("cblas_" #P "syr2k");                                              \
    P##syr2k_k(layout, u, t, n, k, alpha, A, lda, B, ldb, beta, C, ldc);      \
  }

CBLAS(double, d)
CBLAS(float, s)

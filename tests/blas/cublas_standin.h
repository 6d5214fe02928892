/*
 * A stand-in cuBLAS on host arrays with real arithmetic, shared by
 * rev_cublas.c and fwd_cublas.c: the handle first, scalars by pointer,
 * int enums (OP_N 0, OP_T 1), _v2's dot result through a pointer;
 * cublasDdot and cublasDaxpy without _v2 return the dot and take alpha by
 * value, as Enzyme's stand-ins do.  Noinline definitions: tanjit's cuBLAS
 * rules take the calls by name, the program's own bodies run them.
 */
#ifndef TANJIT_TESTS_BLAS_CUBLAS_STANDIN_H
#define TANJIT_TESTS_BLAS_CUBLAS_STANDIN_H

typedef struct handle { int unused; } handle;
enum { OP_N = 0, OP_T = 1 };

#define NOINLINE __attribute__((noinline))

static double at(const double *x, int i, int inc) { return x[i * inc]; }

NOINLINE int cublasDscal_v2(handle *h, int n, const double *a, double *x,
                            int incx) {
  (void)h;
  for (int i = 0; i < n; i++)
    x[i * incx] *= *a;
  return 0;
}
NOINLINE int cublasDaxpy_v2(handle *h, int n, const double *a, const double *x,
                            int incx, double *y, int incy) {
  (void)h;
  for (int i = 0; i < n; i++)
    y[i * incy] += *a * at(x, i, incx);
  return 0;
}
NOINLINE int cublasDaxpy(handle *h, int n, double a, const double *x, int incx,
                         double *y, int incy) {
  return cublasDaxpy_v2(h, n, &a, x, incx, y, incy);
}
NOINLINE int cublasDdot_v2(handle *h, int n, const double *x, int incx,
                           const double *y, int incy, double *r) {
  (void)h;
  double s = 0;
  for (int i = 0; i < n; i++)
    s += at(x, i, incx) * at(y, i, incy);
  *r = s;
  return 0;
}
NOINLINE double cublasDdot(handle *h, int n, const double *x, int incx,
                           const double *y, int incy) {
  double r;
  cublasDdot_v2(h, n, x, incx, y, incy, &r);
  return r;
}
NOINLINE int cublasDcopy_v2(handle *h, int n, const double *x, int incx,
                            double *y, int incy) {
  (void)h;
  for (int i = 0; i < n; i++)
    y[i * incy] = at(x, i, incx);
  return 0;
}
/* column major; beta 0: y not read */
NOINLINE int cublasDgemv_v2(handle *h, int op, int m, int n, const double *a,
                            const double *A, int lda, const double *x, int incx,
                            const double *b, double *y, int incy) {
  (void)h;
  int leny = op == OP_N ? m : n, lenx = op == OP_N ? n : m;
  for (int i = 0; i < leny; i++) {
    double s = 0;
    for (int j = 0; j < lenx; j++)
      s += (op == OP_N ? A[i + j * lda] : A[j + i * lda]) * at(x, j, incx);
    y[i * incy] = *a * s + (*b == 0 ? 0 : *b * y[i * incy]);
  }
  return 0;
}
NOINLINE int cublasDger_v2(handle *h, int m, int n, const double *a,
                           const double *x, int incx, const double *y, int incy,
                           double *A, int lda) {
  (void)h;
  for (int j = 0; j < n; j++)
    for (int i = 0; i < m; i++)
      A[i + j * lda] += *a * at(x, i, incx) * at(y, j, incy);
  return 0;
}
NOINLINE int cublasDgemm_v2(handle *h, int ta, int tb, int m, int n, int k,
                            const double *a, const double *A, int lda,
                            const double *B, int ldb, const double *b, double *C,
                            int ldc) {
  (void)h;
  for (int j = 0; j < n; j++)
    for (int i = 0; i < m; i++) {
      double s = 0;
      for (int l = 0; l < k; l++)
        s += (ta == OP_N ? A[i + l * lda] : A[l + i * lda]) *
             (tb == OP_N ? B[l + j * ldb] : B[j + l * ldb]);
      C[i + j * ldc] = *a * s + (*b == 0 ? 0 : *b * C[i + j * ldc]);
    }
  return 0;
}

#endif

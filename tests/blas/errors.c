/*
 * BLAS calls whose derivative must fail cleanly, naming the call:
 *   -DCASE=1  potrf through a CBLAS-style name (Enzyme's test BLAS has one;
 *             only LAPACK's Fortran dpotrf_ is differentiated)
 *   -DCASE=2  cblas_daxpy accumulating an active x into a y with no shadow
 */
extern int enzyme_dup, enzyme_const;
double __enzyme_fwddiff(void *, ...);
void cblas_dpotrf(int, int, int, double *, int, int *);
void cblas_daxpy(int, double, const double *, int, double *, int);

static double f(double *a, double *b) {
#if CASE == 1
  int n = 2, info;
  (void)b;
  cblas_dpotrf(102, 122, n, a, n, &info);
  return a[0];
#else
  cblas_daxpy(2, 3.0, a, 1, b, 1);
  return 0;
#endif
}

int main(void) {
  double a[4] = {4, 1, 1, 3}, da[4] = {1, 0, 0, 1}, b[4] = {0};
  return (int)__enzyme_fwddiff((void *)f, enzyme_dup, a, da, enzyme_const, b);
}

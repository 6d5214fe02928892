/*
 * BLAS calls whose derivative must fail cleanly, naming the call:
 *   -DCASE=2  cblas_daxpy accumulating an active x into a y with no shadow
 * (case 1, potrf through its C name, is differentiated now:
 * cblas_potrf.c)
 */
extern int enzyme_dup, enzyme_const;
double __enzyme_fwddiff(void *, ...);
void cblas_daxpy(int, double, const double *, int, double *, int);

static double f(double *a, double *b) {
  cblas_daxpy(2, 3.0, a, 1, b, 1);
  return 0;
}

int main(void) {
  double a[4] = {4, 1, 1, 3}, da[4] = {1, 0, 0, 1}, b[4] = {0};
  return (int)__enzyme_fwddiff((void *)f, enzyme_dup, a, da, enzyme_const, b);
}

/*
 * BLAS calls whose derivative must fail cleanly, naming the call:
 *   -DCASE=2  cblas_daxpy accumulating an active x into a y with no shadow
 *             (an enzyme_const buffer) that the function reads back
 *   -DCASE=3  the same in reverse mode
 *   -DCASE=8  the same y read back by a later BLAS call (cblas_ddot),
 *             reverse mode
 *   -DCASE=9  the same in forward mode
 *   -DCASE=4  cblas_dsyr2k in reverse mode, which has no reverse rule
 *   -DCASE=5  cblas_dtrmv in forward mode, a rule of reverse mode only
 *   -DCASE=6  cublasDdot_v2 in forward mode (its result goes through a
 *             pointer: reverse mode only; cublasDdot, returning it, is taken)
 *   -DCASE=7  cublasDtrmv_v2 with an active A in reverse mode (its adjoint
 *             would read x's elements on the host)
 * (case 1, potrf through its C name, is differentiated now:
 * cblas_potrf.c; an enzyme_const output nothing reads back is taken
 * without a derivative: rev_const_output.c)
 */
extern int enzyme_dup, enzyme_const;
double __enzyme_fwddiff(void *, ...);
void __enzyme_autodiff(void *, ...);
void cblas_daxpy(int, double, const double *, int, double *, int);
void cblas_dsyr2k(int, int, int, int, int, double, const double *, int,
                  const double *, int, double, double *, int);
void cblas_dtrmv(int, int, int, int, int, const double *, int, double *, int);
double cblas_ddot(int, const double *, int, const double *, int);

#if CASE == 4
static double f(double *a, double *b) {
  cblas_dsyr2k(102, 121, 111, 2, 1, 1.0, a, 2, a, 2, 0.0, b, 2);
  return b[0];
}
#elif CASE == 5
static double f(double *a, double *b) {
  cblas_dtrmv(102, 121, 111, 131, 2, a, 2, b, 1);
  return b[0];
}
#elif CASE == 6
int cublasDdot_v2(void *, int, const double *, int, const double *, int,
                  double *);
static double f(double *a, double *b) {
  cublasDdot_v2(0, 2, a, 1, a, 1, b);
  return b[0];
}
#elif CASE == 7
int cublasDtrmv_v2(void *, int, int, int, int, const double *, int, double *,
                   int);
static double f(double *a, double *b) {
  cublasDtrmv_v2(0, 0, 0, 0, 2, a, 2, b, 1);
  return b[0];
}
#elif CASE == 8 || CASE == 9
static double f(double *a, double *b) {
  cblas_daxpy(2, 3.0, a, 1, b, 1);
  return cblas_ddot(2, b, 1, a, 1);
}
#else
static double f(double *a, double *b) {
  cblas_daxpy(2, 3.0, a, 1, b, 1);
  return b[1];
}
#endif

int main(void) {
  double a[4] = {4, 1, 1, 3}, da[4] = {1, 0, 0, 1}, b[4] = {0}, db[4] = {0};
#if CASE == 2 || CASE == 9
  return (int)__enzyme_fwddiff((void *)f, enzyme_dup, a, da, enzyme_const, b);
#elif CASE == 3 || CASE == 8
  __enzyme_autodiff((void *)f, enzyme_dup, a, da, enzyme_const, b);
#elif CASE == 5 || CASE == 6
  return (int)__enzyme_fwddiff((void *)f, enzyme_dup, a, da, enzyme_dup, b, db);
#else
  __enzyme_autodiff((void *)f, enzyme_dup, a, da, enzyme_dup, b, db);
#endif
  return (int)(da[0] + db[0]);
}

/* The derivative is made in this file's module; the static it must shadow
 * is err_static_lib.c's, which it cannot: an error that says so. */
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
extern int enzyme_dup, enzyme_const;
void residuals(int m, const double *x, double *fvec);
static double cost(const double *x, int m) {
  double fv[8], s = 0;
  residuals(m, x, fv);
  for (int i = 0; i < m; i++)
    s += fv[i] * fv[i];
  return s;
}
int main(void) {
  double x[2] = {0.5, 1.5}, dx[2] = {1, 0};
#ifdef FWD
  return __enzyme_fwddiff((void *)cost, enzyme_dup, x, dx, enzyme_const, 4) > 0;
#else
  __enzyme_autodiff((void *)cost, enzyme_dup, x, dx, enzyme_const, 4);
  return dx[0] > 0;
#endif
}

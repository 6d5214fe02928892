/* A duplicated pointer whose shadow is a null constant: refused as the
 * module loads (the gradient would be added through address 0), naming
 * the parameter. */
extern int enzyme_dup;
void __enzyme_autodiff(void *, ...);
static double f(const double *x) { return x[0] * x[1]; }
int main(void) {
  double x[2] = {1, 2};
  __enzyme_autodiff((void *)f, enzyme_dup, x, (double *)0);
  return 0;
}

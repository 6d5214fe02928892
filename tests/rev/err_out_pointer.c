/* enzyme_out on a pointer parameter is a malformed request. */
extern int enzyme_out;
double __enzyme_autodiff(void *, ...);
static double f(double *x) { return x[0] * x[0]; }
int main(void) {
  double x[1] = {2};
  return __enzyme_autodiff((void *)f, enzyme_out, x) != 0;
}

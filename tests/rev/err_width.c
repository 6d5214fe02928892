/* enzyme_width > 1 (vector reverse mode) is refused. */
extern int enzyme_width;
double __enzyme_autodiff(void *, ...);
static double f(double *x) { return x[0] * x[0]; }
int main(void) {
  double x[1] = {2}, d1[1] = {0}, d2[1] = {0};
  __enzyme_autodiff((void *)f, enzyme_width, 2, x, d1, d2);
  return d1[0] != 4;
}

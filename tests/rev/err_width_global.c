/* enzyme_width > 1 of a function reading an active mutable global: its
 * one shadow the lanes would share. */
extern int enzyme_width;
double __enzyme_autodiff(void *, ...);
double scale = 1.5;
static double f(const double *x) { return x[0] * scale; }
int main(void) {
  double x[1] = {2}, d1[1] = {0}, d2[1] = {0};
  __enzyme_autodiff((void *)f, enzyme_width, 2, x, d1, d2);
  return d1[0] != 1.5;
}

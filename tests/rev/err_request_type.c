/* An argument of the wrong type (an int for a double parameter): the
 * error names the request as written (__enzyme_autodiff), not
 * __enzyme_fwddiff, which it named before. */
extern int enzyme_out;
double __enzyme_autodiff(void *, ...);
static double f(double a, double b) { return a * b; }
int main(void) {
  return __enzyme_autodiff((void *)f, enzyme_out, 1, enzyme_out, 2.0) != 0;
}

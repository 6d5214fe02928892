/* An indirect call no function of the module can be the target of (a
 * pointer to a library function no rule covers, of a type no function
 * defined here has). */
double __enzyme_autodiff(void *, ...);
double library_blend(double, double);
static double (*volatile pick)(double, double) = library_blend;
static double f(double x) {
  double (*g)(double, double) = pick;
  return g(x, 3.0) + x;
}
int main(void) { return __enzyme_autodiff((void *)f, 2.0) != 13.0; }

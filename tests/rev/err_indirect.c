/* An indirect call with active arguments: refused in reverse mode. */
double __enzyme_autodiff(void *, ...);
static double sq(double x) { return x * x; }
static double (*volatile pick)(double) = sq;
static double f(double x) {
  double (*g)(double) = pick;
  return g(x) + x;
}
int main(void) { return __enzyme_autodiff((void *)f, 2.0) != 5.0; }

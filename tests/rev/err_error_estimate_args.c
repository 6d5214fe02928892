/* A forward-mode request's errors name the request as written: here
 * __enzyme_error_estimate with one argument too many. */
double __enzyme_error_estimate(void *, ...);
static double f(double x) { return x * x; }
int main(void) {
  double d = __enzyme_error_estimate((void *)f, 1.5, 0.0, 2.0);
  return d > 0;
}

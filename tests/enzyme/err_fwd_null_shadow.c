/* A duplicated pointer whose shadow is a null constant: refused as the
 * module loads (the tangent would be read through address 0), where a
 * null argument with a null shadow (an optional pointer left out) is
 * taken and differentiated. */
extern int enzyme_dup;
double __enzyme_fwddiff(void *, ...);
static double f(const double *x, const double *scale) {
  return x[0] * x[1] * (scale ? scale[0] : 1.0);
}
int main(void) {
  double x[2] = {1, 2}, dx[2] = {1, 0};
  double left_out = __enzyme_fwddiff((void *)f, enzyme_dup, x, dx, enzyme_dup,
                                     (double *)0, (double *)0);
  return (int)__enzyme_fwddiff((void *)f, enzyme_dup, x, (double *)0,
                               enzyme_dup, x, dx) +
         (left_out != 2.0);
}

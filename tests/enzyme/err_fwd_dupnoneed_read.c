/* enzyme_dupnoneed memory whose primal value the derivative needs: the
 * tangent of out[0] * x reads out[0], which the caller did not pass (only
 * the shadow exists), so the request is refused, naming the load. */
extern int enzyme_dupnoneed;
void __enzyme_fwddiff(void *, ...);
static void f(double x, double *out) {
  out[0] = out[0] * x;
}
int main(void) {
  double dout[1] = {1.0};
  __enzyme_fwddiff((void *)f, 2.0, 1.0, enzyme_dupnoneed, (double *)0x1,
                   dout);
  return dout[0] != 0.0;
}

/* Forward mode's side of tests/rev/err_const_read_back.c: an enzyme_const
 * buffer the function reads back after storing active values into it.
 * Its loads from constant memory carry no tangent, so the derivative
 * would silently miss the path through the buffer: refused, naming the
 * store. */
extern int enzyme_const;
double __enzyme_fwddiff(void *, ...);
static double f(double x, double *scratch, int n) {
  for (int i = 0; i < n; i++)
    scratch[i] = x * i;
  double s = 0;
  for (int i = 0; i < n; i++)
    s += scratch[n - 1 - i] * scratch[i];
  return s;
}
int main(void) {
  double s[4];
  return __enzyme_fwddiff((void *)f, 2.0, 1.0, enzyme_const, s, enzyme_const,
                          4) != 0.0;
}

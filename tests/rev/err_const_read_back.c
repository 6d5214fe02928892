/* An enzyme_const buffer the function reads back after storing active
 * values: what it reads would carry the derivative the constant memory
 * cannot hold, so the request is refused (a gradient without that path
 * would be silently wrong), naming the store. */
extern int enzyme_const, enzyme_dup;
double __enzyme_autodiff(void *, ...);
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
  return __enzyme_autodiff((void *)f, 2.0, enzyme_const, s, enzyme_const, 4) !=
         0.0;
}

/* enzyme_width > 1 of a function that writes its caller's memory. */
extern int enzyme_width;
void __enzyme_autodiff(void *, ...);
static void f(double *x) { x[0] = x[0] * x[0]; }
int main(void) {
  double x[1] = {2}, d1[1] = {1}, d2[1] = {1};
  __enzyme_autodiff((void *)f, enzyme_width, 2, x, d1, d2);
  return d1[0] != 4;
}

/* enzyme_width > 1 in split mode of a function returning a float: the
 * reverse would take one result adjoint per lane, which is not read. */
extern int enzyme_width, enzyme_dup;
void *__enzyme_augmentfwd(void *, ...);
static double f(const double *x) { return x[0] * x[0]; }
int main(void) {
  double x[1] = {2}, d1[1] = {0}, d2[1] = {0};
  void *tape =
      __enzyme_augmentfwd((void *)f, enzyme_width, 2, enzyme_dup, x, d1, d2);
  return tape == 0;
}

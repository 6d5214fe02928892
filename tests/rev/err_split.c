/* Split reverse mode (__enzyme_augmentfwd / __enzyme_reverse) is refused. */
void *__enzyme_augmentfwd(void *, ...);
static double f(double *x) { return x[0] * x[0]; }
int main(void) {
  double x[1] = {2}, d[1] = {0};
  void *tape = __enzyme_augmentfwd((void *)f, x, d);
  return tape != 0;
}

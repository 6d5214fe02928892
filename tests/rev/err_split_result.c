/* __enzyme_augmentfwd of a function with a result returns the tape and
 * the result; declared to return the tape alone, it is refused. */
void *__enzyme_augmentfwd(void *, ...);
static double f(double *x) { return x[0] * x[0]; }
int main(void) {
  double x[1] = {2}, dx[1] = {0};
  void *tape = __enzyme_augmentfwd((void *)f, x, dx);
  return tape == 0;
}

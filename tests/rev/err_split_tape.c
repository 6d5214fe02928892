/* __enzyme_reverse of a function with a float result: its adjoint comes
 * before the tape, and here the tape is missing. */
void *__enzyme_augmentfwd(void *, ...);
double __enzyme_reverse(void *, ...);
extern int enzyme_noret;
static double f(double *x) { return x[0] * x[0]; }
int main(void) {
  double x[1] = {2}, dx[1] = {0};
  void *tape = __enzyme_augmentfwd((void *)f, x, dx, enzyme_noret);
  __enzyme_reverse((void *)f, x, dx, 1.0);
  return dx[0] != 4 || !tape;
}

/* A split-mode tape replayed by a reverse with other markers. */
void *__enzyme_augmentfwd(void *, ...);
void __enzyme_reverse(void *, ...);
extern int enzyme_dup, enzyme_const;
static void f(double *x, double *y) { y[0] = x[0] * x[0]; }
int main(void) {
  double x[1] = {2}, dx[1] = {0}, y[1], dy[1] = {1};
  void *tape = __enzyme_augmentfwd((void *)f, enzyme_dup, x, dx, enzyme_dup, y, dy);
  __enzyme_reverse((void *)f, enzyme_const, x, enzyme_dup, y, dy, tape);
  return dx[0] != 4;
}

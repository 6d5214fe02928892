/* Enzyme's allocatedtape_err.c with a main: the buffer is too small. */
extern int enzyme_allocated, enzyme_tape;
double sin(double);
void __enzyme_reverse(void *, ...);
static void f(double *x) { x[0] = sin(x[0]); }
int main(void) {
  double x[1] = {1}, x_b[1] = {1};
  char tape[1];
  __enzyme_reverse((void *)f, x, x_b, enzyme_allocated, 1, enzyme_tape, tape);
  return x_b[0] != 0;
}

/*
 * Enzyme ForwardMode/err_empty.c, a negative test: the function to
 * differentiate calls `unknown`, which has neither a body nor a rule, so the
 * request must fail with an error naming it (and, with -g, the line of the
 * call), never run with a silent zero.  Run by expect_error.sh.
 */
extern double __enzyme_fwddiff(void *, double, double);

double unknown(double in);

double g(double in) {
  return unknown(in); /* the error names this call */
}

double square(double x, double dx) {
  return __enzyme_fwddiff((void *)g, x, dx);
}

int main(void) {
  return square(3.0, 1.0) == 0.0 ? 3 : 4;
}

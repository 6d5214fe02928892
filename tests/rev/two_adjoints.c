#define RC_OWN_PROTOTYPE
#include <math.h>
#include "rev_check.h"
/* Enzyme's C convention: a struct of the enzyme_out adjoints, in order */
typedef struct { double da, db; } grads2;
grads2 __enzyme_autodiff(void *, ...);
static double f(double a, double b) { return sin(a) * b * b + a / b; }
static long double run(const long double *p) { return f((double)p[0], (double)p[1]); }
int main(void) {
  long double p[2] = {0.7, 1.3}, got[2];
  grads2 g = __enzyme_autodiff((void *)f, 0.7, 1.3);
  got[0] = g.da, got[1] = g.db;
  rc_check("two_adjoints", run, p, got, 2);
  grads2 h = __enzyme_autodiff((void *)f, enzyme_out, 0.7, enzyme_out, 1.3);
  rc_expect("marked", h.da + h.db, g.da + g.db, 0);
  return rc_result();
}

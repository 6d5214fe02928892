#include <math.h>
#define RC_OWN_PROTOTYPE
#include "rev_check.h"
#include "split_abi.h"
/* __enzyme_virtualreverse: the {augmented, reverse} table of a function in
 * Enzyme's split convention, called through its entries as a function
 * pointer's shadow would be: augmented(x) -> {tape, result}, then
 * reverse(x, d result, tape) -> {dx}. */
void *__enzyme_virtualreverse(void *);

static double f(double x) {
  double s = 0;
  for (int i = 1; i <= 4; i++)
    s += sin(i * x) / i;
  return s * x;
}

static const double result_seed = 2.0;
static long double run(const long double *p) {
  return result_seed * f((double)p[0]);
}

int main(void) {
  void **table = __enzyme_virtualreverse((void *)f);
  augmented (*aug)(double) = (augmented(*)(double))table[0];
  gradient (*rev)(double, double, void *) =
      (gradient(*)(double, double, void *))table[1];
  long double p[1] = {0.8}, got[1];
  augmented a = aug(0.8);
  rc_expect("split_virtual result", a.primal, f(0.8), 1e-12);
  got[0] = rev(0.8, result_seed, a.tape).dx;
  rc_check("split_virtual", run, p, got, 1);
  return rc_result();
}

/* Variadic logging of active values inside the differentiated function
 * (printf, fprintf to stderr, snprintf into a local buffer): primal output
 * only, the derivatives unchanged. */
#include <stdio.h>
#include "both_modes.h"
static int verbose = 1;
static double logged(double *x, int n) {
  double s = 0;
  char line[64];
  for (int i = 0; i < n; i++) {
    double t = x[i] * exp(-0.5 * x[i]);
    s += t * t;
    if (verbose)
      printf("iter %d: x=%g t=%.6f s=%g\n", i, x[i], t, s);
  }
  snprintf(line, sizeof line, "total %.3e", s);
  fprintf(stderr, "%s (%d terms, last %g)\n", line, n, x[n - 1]);
  return s;
}
static const double x0[3] = {0.5, 1.5, -0.25};
static const double dir[3] = {1.0, -0.5, 0.75};
BM_ARRAY_BOTH(logged, 3, x0, dir)
int main(void) {
  both_logged();
  verbose = 0;
  return rc_result();
}

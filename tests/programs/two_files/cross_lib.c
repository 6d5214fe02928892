/* The second translation unit of cross_fwd.c and cross_rev.c: its own
 * module in the session, compiled with debug info, whose code the other
 * file's derivatives reach through a view of this module (src/jit/
 * views.c).  A static helper, a loop over a table this file defines, a
 * write through a pointer. */
#include <math.h>

#include "cross_lib.h"

const double cross_weights[CROSS_N] = {0.5, -1.25, 2.0, 0.75};

static double bump(double x, double w) { return w * sin(x) + exp(0.5 * x); }

double cross_sq(double x) { return x * x; }

double cross_energy(const double *x, int n) {
  double e = 0;
  for (int i = 0; i < n; i++)
    e += bump(x[i], cross_weights[i]) * x[(i + 1) % n];
  return e;
}

void cross_scale(double *y, const double *x, int n, double a) {
  for (int i = 0; i < n; i++)
    y[i] = a * x[i] * cross_weights[i];
}

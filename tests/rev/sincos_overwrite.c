#define _GNU_SOURCE
#include "rev_check.h"
/* An input read, then overwritten by sincos's (and modf's, frexp's)
 * out-parameters before the reverse pass: the reverse must use the value
 * read, not what the call left there (rev/tape.c's reloads ask whether
 * anything writes memory; these calls do), and the out-parameters' shadow
 * seeds are consumed as the adjoints of the values stored. */
#define N 6
static double sincos_overwrite(double *x, int n) {
  double s = 0;
  for (int i = 0; i + 1 < n; i += 2) {
    double c = x[i] * x[i], t;
    double y = x[i + 1];
    sincos(y * c, &x[i], &t); /* x[i] read above, now sin(y c) */
    s += c * t + x[i] * y;
  }
  double m = x[1] * x[3];
  s += modf(x[5] * 0.5, &x[3]) * m; /* x[3] read into m, then overwritten */
  int e;
  s += frexp(x[4] * 3.0, &e) * x[4];
  return s;
}
RC_ARRAY_TEST(sincos_overwrite, N, 0.7, -0.4, 1.1, 0.9, 0.35, 1.3)

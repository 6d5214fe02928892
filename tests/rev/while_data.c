#include "rev_check.h"
/* a while loop whose trip count depends on the data */
static double while_data(double *x, int n) {
  double s = x[0], t = 0;
  int i = 0;
  while (s < 40.0) {
    s = s * 1.5 + x[i % n] * x[(i + 1) % n];
    t += s * x[i % n];
    i++;
  }
  return t / (1.0 + s);
}
RC_ARRAY_TEST(while_data, 4, 1.0, 1.2, 0.8, 1.1)

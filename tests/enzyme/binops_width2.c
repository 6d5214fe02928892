/*
 * Enzyme ForwardModeVector/binops.c: both partials of x1 x2 + 1 / x1 in one
 * width-2 request, returned as a struct of tangents.
 */
#define ENZYME_COMPAT_OWN_PROTOTYPE
#include "enzyme_compat.h"

typedef struct {
  double dx, dy;
} Gradients;

extern Gradients __enzyme_fwddiff(double (*)(double, double), ...);

double fun(double x1, double x2) {
  double w1 = x1;
  double w2 = x2;
  double w3 = w1 * w2;
  double w4 = 1.0 / w1;
  double w5 = w3 + w4;
  return w5;
}

Gradients dfun(double x, double y) {
  return __enzyme_fwddiff(fun, enzyme_width, 2, x, 1.0, 0.0, y, 0.0, 1.0);
}

int main(void) {
  double xres[] = {0.0, 3.75, 8.8888888888888893, 15.9375};
  double yres[] = {1.0, 2.0, 3.0, 4.0};

  for (int i = 1; i < 5; i++) {
    double x = (double)i;
    Gradients df = dfun(x, x * x);
    APPROX_EQ(df.dx, xres[i - 1], 1e-10);
    APPROX_EQ(df.dy, yres[i - 1], 1e-10);
  }
  return enzyme_compat_result();
}

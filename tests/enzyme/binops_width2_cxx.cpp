// Enzyme ForwardModeVector/binops.cpp: the C++ form of binops_width2.c,
// both partials of x1 x2 + 1 / x1 in one width-2 request whose result is a
// C++ struct of tangents (a variadic, unmangled extern declaration).
extern "C" {
double fabs(double);
int printf(const char *, ...);
}

struct Gradients {
  double dx, dy;
};

extern Gradients __enzyme_fwddiff(double (*)(double, double), ...);
extern int enzyme_width;

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

static int failures;
static void approx_eq(const char *what, int i, double got, double want) {
  if (!(fabs(got - want) <= 1e-10)) {
    printf("MISMATCH %s at i=%d: got %.17g, expected %.17g\n", what, i, got,
           want);
    failures++;
  }
}

int main() {
  double xres[]{0.0, 3.75, 8.8888888888888893, 15.9375};
  double yres[]{1.0, 2.0, 3.0, 4.0};

  for (int i = 1; i < 5; i++) {
    double x = (double)i;
    Gradients df = dfun(x, x * x);
    approx_eq("df.dx", i, df.dx, xres[i - 1]);
    approx_eq("df.dy", i, df.dy, yres[i - 1]);
  }
  return failures != 0;
}

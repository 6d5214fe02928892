/*
 * libm functions of a float that return an integer (an exponent, a rounded
 * value, a class) are constant between their jumps: no derivative flows
 * through them, in either mode, and a program using one is differentiated
 * rather than refused ("no rule and no body").  Away from the jumps, the
 * derivative of x * n(x) is n(x); checked against central differences.
 */
#include <math.h>
#include <stdio.h>

extern int enzyme_out;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

__attribute__((noinline)) static double scaled(double x) {
  long i = lround(x * 10);
  long j = lrint(x * 7);
  long long k = llround(x * 3) + llrint(x * 5);
  int e = ilogb(x * 100);
  float xf = (float)x;
  long m = lroundf(xf * 4) + lrintf(xf * 2);
  int cls = fpclassify(x) == FP_NORMAL;
  return x * (double)(i + j + k + e + m + cls) + isnan(x) + isinf(x) +
         (signbit(x) ? 1 : 0);
}

static int failures;

static void expect(const char *what, double got, double want) {
  if (!(fabs(got - want) <= 1e-6 * (1 + fabs(want)))) {
    printf("MISMATCH %s: got %.17g, expected %.17g\n", what, got, want);
    failures++;
  }
}

int main(void) {
  static const double xs[] = {0.83, 1.37, 2.61, 0.52};
  for (unsigned t = 0; t < sizeof xs / sizeof *xs; t++) {
    double x = xs[t], h = 1e-6;
    double fd = (scaled(x + h) - scaled(x - h)) / (2 * h);
    expect("reverse", __enzyme_autodiff((void *)scaled, enzyme_out, x), fd);
    expect("forward", __enzyme_fwddiff((void *)scaled, x, 1.0), fd);
    expect("forward, scaled seed", __enzyme_fwddiff((void *)scaled, x, -2.5),
           -2.5 * fd);
  }
  if (failures)
    return 1;
  printf("ok\n");
  return 0;
}

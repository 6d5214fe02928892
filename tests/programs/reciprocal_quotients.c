/* Quotients with a constant numerator (1/r, -3/x, 0.1/r^2, inverse-cube
 * forces): their tangent reuses the primal quotient, -(c/b)^2 db / c,
 * instead of dividing again.  Scalars, a loop the vectorizers turn into
 * splat-constant vector divisions at -O3, float, and a width-2 request. */
#include "enzyme.h"
#include "tangent_check.h"

typedef struct {
  double d[2];
} pair;
pair __enzyme_fwddiff_w2(void *, ...) asm("__enzyme_fwddiff");
float __enzyme_fwddiff_f(void *, ...) asm("__enzyme_fwddiff");

double recip(double x) { return 1.0 / x; }
double neg_three_over(double x) { return -3.0 / x; }
double tenth_over_square(double x) { return 0.1 / (x * x); }
float recipf(float x) { return 1.0f / x; }
double inverse_cube(double r2) { return 1.0 / (r2 * sqrt(r2)); }
/* where (k/b)^2 alone would underflow or overflow but -k/b^2 does not */
float tiny_over(float x) { return 1e-20f / x; }
float huge_over(float x) { return 1e20f / x; }
double huge_over_d(double x) { return 1e100 / x; }

/* sum_i 2 / (x_i + i) over an enzyme_dup array. */
#define N 37
void sum_of_quotients(const double *x, double *out) {
  double s = 0;
  for (int i = 0; i < N; i++)
    s += 2.0 / (x[i] + i);
  *out = s;
}

int main(void) {
  const double xs[] = {0.37, 1.5, -2.25};
  for (int k = 0; k < 3; k++) {
    double x = xs[k];
    long double lx = x;
    check_tangent("1/x", __enzyme_fwddiff((void *)recip, x, 1.0),
                  -1 / (lx * lx));
    check_tangent("-3/x", __enzyme_fwddiff((void *)neg_three_over, x, 0.5),
                  0.5L * 3 / (lx * lx));
    check_tangent("0.1/x^2",
                  __enzyme_fwddiff((void *)tenth_over_square, x, 1.0),
                  -0.2L / (lx * lx * lx));
    check_tangent_float("1/x float",
                        __enzyme_fwddiff_f((void *)recipf, (float)x, 1.0f),
                        -1 / ((long double)(float)x * (float)x));
    pair w2 = __enzyme_fwddiff_w2((void *)recip, enzyme_width, 2, x, 1.0, -2.0);
    check_tangent("1/x width 2 lane 0", w2.d[0], -1 / (lx * lx));
    check_tangent("1/x width 2 lane 1", w2.d[1], 2 / (lx * lx));
  }
  long double r2 = 1.7L;
  check_tangent("r^-3", __enzyme_fwddiff((void *)inverse_cube, 1.7, 1.0),
                -1.5L / (r2 * r2 * sqrtl(r2)));

  /* scaled, so that an underflow to 0 is not within the tolerance */
  check_tangent_float("1e-20/x at 1000, times 1e26",
                      1e26f * __enzyme_fwddiff_f((void *)tiny_over, 1000.0f, 1.0f),
                      -1.0L);
  check_tangent_float("1e20/x at 1e-5",
                      __enzyme_fwddiff_f((void *)huge_over, 1e-5f, 1.0f),
                      -1e20L / ((long double)1e-5f * 1e-5f));
  check_tangent("1e100/x at 1e-60",
                __enzyme_fwddiff((void *)huge_over_d, 1e-60, 1.0),
                -1e100L / (1e-60L * 1e-60L));

  double x[N], dx[N], out = 0, dout = 0;
  long double want = 0;
  for (int i = 0; i < N; i++) {
    x[i] = 0.5 + 0.01 * i;
    dx[i] = (i % 3) - 1.0;
    long double d = x[i] + i;
    want += -2 * dx[i] / (d * d);
  }
  __enzyme_fwddiff((void *)sum_of_quotients, enzyme_dup, x, dx, enzyme_dup,
                   &out, &dout);
  check_tangent("sum 2/(x_i+i)", dout, want);
  return tc_finish("reciprocal_quotients");
}

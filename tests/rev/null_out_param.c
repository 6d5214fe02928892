/* A literal null passed for an output pointer that the callee writes only
 * under `if (p)` (cminpack's lmdif drivers call fit(y, 0)): at -O0 the
 * call keeps `ptr null`, and the callee was differentiated with that
 * parameter constant, so its store of an active value through it was
 * refused.  A null argument is never dereferenced: it is duplicated with
 * a null shadow (src/ad/ir/null_argument.c), here directly, passed on to
 * a further callee, and beside a non-null call of the same function.
 * Both modes, against the analytic derivative. */
#include "both_modes.h"

static double fit(const double *y, double *xout) {
  double x = y[0] * y[0] + sin(y[1]);
  if (xout)
    *xout = x;
  return x * y[0];
}

static void put(double v, double *p) {
  if (p)
    *p = v;
}

static double fit_on(const double *y, double *out) {
  put(y[0] * y[1], out);
  return y[0] * y[1] * y[1];
}

static double direct(const double *y) { return fit(y, 0); }
static double passed_on(const double *y) { return fit_on(y, 0); }
static double both(const double *y) {
  double t;
  double r = fit(y, 0);
  fit(y, &t);
  return r + t * t;
}

/* a macro: each request names its function directly */
#define CHECK(name, f, y, want)                                               \
  do {                                                                        \
    double g_[2] = {0, 0};                                                    \
    const double v_[2] = {0.3, -0.7};                                         \
    __enzyme_autodiff((void *)f, enzyme_dup, y, g_);                          \
    rc_expect(name, g_[0], want[0], 1e-12L);                                  \
    rc_expect(name, g_[1], want[1], 1e-12L);                                  \
    double t_ = __enzyme_fwddiff((void *)f, enzyme_dup, y, v_);               \
    rc_expect(name, t_, want[0] * v_[0] + want[1] * v_[1], 1e-12L);           \
  } while (0)

int main(void) {
  static const double ys[3][2] = {{1.5, 0.4}, {-0.8, 2.1}, {0.3, -1.3}};
  for (int i = 0; i < 3; i++) {
    const double *y = ys[i];
    long double y0 = y[0], y1 = y[1], x = y0 * y0 + sinl(y1);
    long double d1[2] = {3 * y0 * y0 + sinl(y1), y0 * cosl(y1)};
    long double d2[2] = {y1 * y1, 2 * y0 * y1};
    long double d3[2] = {d1[0] + 2 * x * 2 * y0, d1[1] + 2 * x * cosl(y1)};
    CHECK("direct", direct, y, d1);
    CHECK("passed_on", passed_on, y, d2);
    CHECK("both", both, y, d3);
  }
  return rc_result();
}

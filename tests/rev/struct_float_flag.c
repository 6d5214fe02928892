/* A struct of a double and an int flag returned from and passed to
 * helpers by value: { double, i32 } in registers, a float beside a
 * narrow integer (std::optional<double>'s { double, i8 } is the same
 * shape).  Reverse mode's call plan takes it as the double's adjoint (an
 * integer narrower than a pointer holds none: rev/calls.c), where it
 * refused it as mixing floats and pointers.  Both modes, against the
 * analytic derivative. */
#include "both_modes.h"

struct tagged {
  double v;
  int tag;
};

__attribute__((noinline)) static struct tagged make(double x, int tag) {
  struct tagged t = {x * 2, tag};
  return t;
}

__attribute__((noinline)) static double use(struct tagged t) {
  return t.tag ? t.v * t.v * t.v : sin(t.v);
}

static double f(double x) { return use(make(x, 1)) + use(make(x, 0)); }

int main(void) {
  static const double xs[3] = {0.7, -1.2, 2.5};
  for (int i = 0; i < 3; i++) {
    double x = xs[i];
    long double want = 24.0L * x * x + 2 * cosl(2.0L * x);
    rc_expect("reverse", __enzyme_autodiff((void *)f, x), want, 1e-12L);
    rc_expect("forward", __enzyme_fwddiff((void *)f, x, 1.0), want, 1e-12L);
  }
  return rc_result();
}

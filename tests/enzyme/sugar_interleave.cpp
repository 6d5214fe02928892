// Requests as Enzyme's current C++ header (<enzyme/enzyme>) writes them:
// the result's activity and whether the primal is wanted by address, then
// every argument after its marker passed by value (the int the marker
// global holds), then enzyme_interleave and the shadows of the duplicated
// arguments in order.  At -O0 clang passes the markers through the
// header's tuples: after SROA an insertvalue/extractvalue chain.
#define ENZYME_COMPAT_OWN_PROTOTYPE
#include "enzyme_compat.h"

extern int enzyme_dup, enzyme_const, enzyme_out, enzyme_interleave;
extern int enzyme_noret, enzyme_dup_return, enzyme_active_return;

template <typename R, typename... A> R __enzyme_fwddiff(void *, A...);
template <typename R, typename... A> R __enzyme_autodiff(void *, A...);

template <typename T> struct pair_of {
  int marker;
  T value;
};

template <typename T>
__attribute__((always_inline)) static pair_of<T> marked(int m, T v) {
  return pair_of<T>{m, v};
}

static double f(double x, double y, double z) { return x * x * y + z * y; }

// d/dx along (dx, dz) with y constant
__attribute__((noinline)) static double df(double x, double y, double z,
                                           double dx, double dz) {
  pair_of<double> a = marked(enzyme_dup, x), b = marked(enzyme_const, y),
                  c = marked(enzyme_dup, z);
  return __enzyme_fwddiff<double>((void *)f, &enzyme_dup_return, &enzyme_noret,
                                  a.marker, a.value, b.marker, b.value,
                                  c.marker, c.value, enzyme_interleave, dx, dz);
}

struct grads {
  double dx, dy;
};

static double g(double x, double *p, double y) { return x * y * p[0] + y * p[1]; }

// reverse: x and y active (enzyme_out), p duplicated (gradient accumulated)
__attribute__((noinline)) static grads dg(double x, double *p, double *dp,
                                          double y) {
  pair_of<double> a = marked(enzyme_out, x), c = marked(enzyme_out, y);
  pair_of<double *> b = marked(enzyme_dup, p);
  return __enzyme_autodiff<grads>((void *)g, &enzyme_active_return,
                                  &enzyme_noret, a.marker, a.value, b.marker,
                                  b.value, c.marker, c.value, enzyme_interleave,
                                  dp);
}

int main() {
  double x = 1.5, y = -0.75, z = 2.25, dx = 0.5, dz = -1.25;
  APPROX_EQ(df(x, y, z, dx, dz), 2 * x * y * dx + y * dz, 1e-12);
  double p[2] = {0.8, -1.1}, dp[2] = {10.0, 20.0}; /* accumulated into */
  grads r = dg(x, p, dp, y);
  APPROX_EQ(r.dx, y * p[0], 1e-12);
  APPROX_EQ(r.dy, x * p[0] + p[1], 1e-12);
  APPROX_EQ(dp[0], 10.0 + x * y, 1e-12);
  APPROX_EQ(dp[1], 20.0 + y, 1e-12);
  return enzyme_compat_result();
}

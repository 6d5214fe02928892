// C++ at -O0: a view class with padding (a pointer, two shorts, 4 bytes
// of hole, a long stride), copied into a pair by the pair's constructor,
// which never touches the members: its memcpy's bytes come from the
// declared types alone.  An empty member's constructor is shared with
// another class, whose doubles the context-insensitive analysis of the
// callers then lays over the view's stride (Eigen's variable_if_dynamic
// members in a Block copied by CwiseBinaryOp's constructor): asked what
// the padding holds, the callers' analyses replaced the declared members
// by that conflict and the copy was refused.  Padding of the declared
// types sends no copy to the callers.
#include <cmath>
#define RC_OWN_PROTOTYPE
#include "rev_check.h"
extern "C" double __enzyme_autodiff(void *, ...);

struct Empty {
  Empty(long v) { (void)v; }
};
struct View {
  const double *data;
  short rows, cols;
  Empty tag;
  long stride;
  View(const double *d, long s) : data(d), rows(1), cols(3), tag(s), stride(s) {}
  double at(int i) const { return data[i * stride]; }
};
struct Other {
  Empty tag;
  double v[3];
  Other(double a) : tag(1), v{a, 2 * a, std::sin(a)} {}
};
struct Pair {
  View a, b;
  Pair(const View &x, const View &y) : a(x), b(y) {}
  double dot() const {
    double s = 0;
    for (int i = 0; i < 3; i++)
      s += a.at(i) * b.at(i);
    return s;
  }
};

static double model(double *x, int n) {
  (void)n;
  Other o(x[0]);
  View u(x, 1), w(x + 3, 1);
  Pair q(u, w);
  long k = u.stride * 3 - w.stride; // 2
  return q.dot() * (double)k + o.v[2] * x[1];
}
RC_ARRAY_TEST_AS("cpp_padded_member_copy", RC_MARKED, model, 6,
                 1.2, -0.3, 0.5, 0.7, 2.1, -0.4)

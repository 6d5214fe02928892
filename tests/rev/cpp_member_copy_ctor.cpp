#include "rev_check.h"
// An object copied into a member by a constructor (clang -O0: one
// llvm.memcpy from the reference parameter into `&this->in`, a GEP of the
// loaded `this`) whose float members no code before the copy touches:
// Inner's constructor sets only its flag, the state is written later
// through the copy.  Type analysis knows nothing of the copied bytes; the
// member GEP's type says what they are (bool, padding, doubles).
struct Inner {
  bool first;
  double state[2];
  Inner() : first(true) {}
};

struct Outer {
  Inner in;
  double w;
  Outer(const Inner &i, double w) : in(i), w(w) {}
  void step(const double *x) {
    if (in.first) {
      in.state[0] = x[0] * w;
      in.state[1] = x[1];
      in.first = false;
    }
    in.state[1] = in.state[0] * in.state[1] + w;
  }
};

static double cpp_member_copy_ctor(double *x, int n) {
  Inner a;
  Outer o(a, x[2]);
  for (int i = 0; i < n - 1; i++)
    o.step(x);
  return o.in.state[1] * o.in.state[0];
}

RC_ARRAY_TEST(cpp_member_copy_ctor, 3, 0.5, 1.25, -0.75)

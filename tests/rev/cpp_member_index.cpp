// C++: an element reference returned by a member function
// (`double &operator[](int)` over a member array), the object copied by
// value.  At -O0 the copy is one llvm.memcpy whose bytes are known to be
// doubles only through the references operator[] returns.
#include <cmath>
#define RC_OWN_PROTOTYPE
#include "rev_check.h"
extern "C" double __enzyme_autodiff(void *, ...);

struct lanes {
  double d[4];
  double &operator[](int i) { return d[i]; }
  const double &operator[](int i) const { return d[i]; }
};
struct body {
  lanes pos;
  lanes vel;
};
static double energy(const body *in) {
  body b = *in; // a copy by value
  double e = 0;
  for (int i = 0; i < 4; i++) {
    b.pos[i] += 0.5 * b.vel[(i + 1) % 4];
    e += b.pos[i] * b.pos[i] * std::cos(b.vel[i]);
  }
  return e;
}
static double model(double *x, int n) {
  body b;
  for (int i = 0; i < 4; i++) {
    b.pos[i] = x[i];
    b.vel[i] = x[(i + 2) % n] * x[n - 1 - i];
  }
  body c = b;
  return energy(&c) + c.pos[3] * c.vel[0];
}
RC_ARRAY_TEST_AS("cpp_member_index", RC_MARKED, model, 6,
                 0.7, -0.3, 1.2, 0.4, -0.9, 0.15)

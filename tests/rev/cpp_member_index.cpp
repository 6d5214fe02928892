// C++: an element reference returned by a member function
// (`double &operator[](int)` over a member array), the object copied by
// value.  At -O0 the copy is one llvm.memcpy whose bytes are known to be
// doubles only through the references operator[] returns.
#include <cmath>
#define RC_OWN_PROTOTYPE
#include "rev_check.h"
template <typename T, typename... A> T __enzyme_autodiff(void *, A...);

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
RC_ARRAY_RUN(run_model, model, 6)
int main() {
  double x[6] = {0.7, -0.3, 1.2, 0.4, -0.9, 0.15}, dx[6];
  long double p[6], got[6];
  for (int i = 0; i < 6; i++)
    p[i] = x[i];
  rc_seed(dx, 6);
  __enzyme_autodiff<void>((void *)model, enzyme_dup, x, dx, enzyme_const, 6);
  for (int i = 0; i < 6; i++)
    got[i] = dx[i];
  rc_check("cpp_member_index", run_model, p, got, 6);
  return rc_result();
}

// C++: new[]/delete[] scratch, a small class owning a buffer
#define RC_OWN_PROTOTYPE
#include "rev_check.h"
extern "C" double __enzyme_autodiff(void *, ...);
class buffer {
  double *d;
  int n;
public:
  explicit buffer(int n) : d(new double[n]), n(n) {}
  ~buffer() { delete[] d; }
  double &operator[](int i) { return d[i]; }
  double sum_sq() const {
    double s = 0;
    for (int i = 0; i < n; i++)
      s += d[i] * d[i];
    return s;
  }
};
static double f(double *x, int n) {
  buffer b(n);
  for (int i = 0; i < n; i++)
    b[i] = x[i] * x[(i + 1) % n];
  double *one = new double(x[0] * 3.0);
  double r = b.sum_sq() + *one;
  delete one;
  return r;
}
RC_ARRAY_TEST_AS("cpp_new_delete", RC_UNMARKED, f, 4, 0.5, -1.0, 1.5, 0.75)

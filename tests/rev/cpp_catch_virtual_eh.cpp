// A catch after an exception from a virtual call (C++ with exceptions
// on): the call's targets are chosen at run time (one throws from inside
// a loop after updating x in place, one does not), and each target's pair
// is its unwinding clone's, so the reverse undoes the iterations that ran
// before the throw, then the handler.  Checked against finite differences
// from nonzero shadows.
#include "rev_check.h"
struct stop {
  int k;
};
struct Shape {
  virtual double area(double *x, int n) = 0;
  virtual ~Shape() {}
};
struct Sq : Shape {
  double area(double *x, int n) override {
    double s = 0;
    for (int k = 0; k < n; k++) {
      s += x[k] * x[k];
      x[k] *= 1.1;
      if (s > 3.0)
        throw stop{k};
    }
    return s;
  }
};
struct Ci : Shape {
  double area(double *x, int n) override {
    double s = 0;
    for (int k = 0; k < n; k++)
      s += std::sin(x[k]);
    return s;
  }
};
__attribute__((noinline)) Shape *pick(int i) {
  static Sq a;
  static Ci b;
  return i % 2 ? (Shape *)&a : (Shape *)&b;
}
static double f(double *x, int n) {
  double r = 0;
  for (int i = 0; i < 3; i++) {
    Shape *s = pick(i);
    try {
      r += s->area(x, n) * x[i];
    } catch (const stop &e) {
      r += x[e.k] * x[e.k] * 0.5;
    }
  }
  return r;
}

RC_ARRAY_TEST_AS("cpp_catch_virtual_eh", RC_UNMARKED, f, 5, 0.9, 1.2, -0.7, 0.4,
                 0.8)

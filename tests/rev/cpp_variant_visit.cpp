// C++: a std::vector of std::variant<Circle, Rect> built by push_back and
// summed with std::visit.  At -O0 libstdc++'s __do_visit calls a variadic
// lambda `[](auto&& v, ...)` with its fixed parameters only: it never
// calls va_start, so it is differentiated over them.  The variant is
// moved into the vector by a memcpy in __new_allocator::construct, five
// calls below the model, whose doubles are stored eight calls down the
// variant's constructors: the far callers' other callees are followed
// deeper there.  At -O1 the memcpy is in the model itself, at byte
// offsets that are distances between pointers.
#include <cmath>
#include <variant>
#include <vector>
#define RC_OWN_PROTOTYPE
#include "rev_check.h"
extern "C" double __enzyme_autodiff(void *, ...);

struct Circle {
  double r;
};
struct Rect {
  double w, h;
};
using Shape = std::variant<Circle, Rect>;
struct Area {
  double operator()(const Circle &c) const { return 3.0 * c.r * c.r; }
  double operator()(const Rect &r) const { return r.w * std::sin(r.h); }
};

static double model(double *x, int n) {
  std::vector<Shape> shapes;
  shapes.push_back(Circle{x[0]});
  shapes.push_back(Rect{x[1], x[2]});
  for (int i = 3; i + 1 < n; i += 2)
    shapes.push_back(Rect{x[i], x[i + 1] * x[0]});
  shapes.push_back(Circle{x[n - 1]});
  double s = 0;
  for (const Shape &q : shapes)
    s += std::visit(Area{}, q);
  return s;
}
RC_ARRAY_TEST_AS("cpp_variant_visit", RC_MARKED, model, 6,
                 0.5, 1.5, 2.0, -0.7, 0.9, 1.1)

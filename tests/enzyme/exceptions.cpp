/*
 * C++ exceptions in differentiated code (issue 15, item 7), built with
 * exceptions on as clang++ builds by default: calls that may throw become
 * invoke, destructors run from cleanup landing pads, catch handlers are
 * landing pads with typed clauses.
 *  - may_throw: a callee that throws for bad input but not here, with a
 *    local object whose destructor makes every call an invoke;
 *  - caught: the callee throws (after computing part of its value), the
 *    handler computes another value of x: its derivative is the handler's;
 *  - rethrown: a cleanup pad deletes an array with a shadow (deleted on
 *    unwind too: the program's operator new[]/delete[] count what is
 *    live) and the exception reaches an outer handler;
 *  - growing: a std::vector filled by push_back (which may throw);
 *  - requests (and a batch) inside try blocks, whose derivatives throw
 *    out to the caller's handler.
 * Each derivative is checked against central finite differences.
 */
#include "enzyme_compat.h"

#include <stdexcept>
#include <vector>

struct Trace {
  double *sink;
  explicit Trace(double *s) : sink(s) {}
  ~Trace() { *sink += 1; }
};

__attribute__((noinline)) double checked_sqrt(double v) {
  if (v < 0)
    throw std::domain_error("negative");
  return sqrt(v);
}

double may_throw(double x) {
  double count = 0;
  Trace t(&count);
  double a = checked_sqrt(x * x + 1);
  double b = checked_sqrt(a + x);
  return a * b + count;
}

__attribute__((noinline)) double risky(double x) {
  double partial = x * x * x;
  if (x > 1)
    throw std::runtime_error("too large");
  return partial;
}

double caught(double x) {
  try {
    return risky(x) + 2 * x;
  } catch (const std::runtime_error &) {
    return 3 * x * x + sin(x);
  }
}

/* Arrays allocated and not yet deleted: the program's own operator new[]
 * and delete[], which the derivative calls for shadows too. */
static long live_arrays;

__attribute__((noinline)) void *operator new[](std::size_t n) {
  void *p = malloc(n ? n : 1);
  if (!p)
    throw std::bad_alloc();
  live_arrays++;
  return p;
}
__attribute__((noinline)) void operator delete[](void *p) noexcept {
  if (p)
    live_arrays--;
  free(p);
}
void operator delete[](void *p, std::size_t) noexcept { operator delete[](p); }

__attribute__((noinline)) double sum_squares(const double *p, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += p[i] * p[i];
  return s;
}

__attribute__((noinline)) double fill_and_fail(double x, int n) {
  double *tmp = new double[n];
  struct Guard {
    double *p;
    ~Guard() { delete[] p; }
  } guard{tmp};
  for (int i = 0; i < n; i++)
    tmp[i] = x * i;
  double s = sum_squares(tmp, n);
  checked_sqrt(-s - 1); /* always throws */
  return s;
}

double rethrown(double x) {
  try {
    return fill_and_fail(x, 64);
  } catch (const std::domain_error &) {
    return exp(x);
  }
}

double growing(double x) {
  std::vector<double> v;
  for (int i = 0; i < 20; i++)
    v.push_back(x * (i + 1));
  double s = 0;
  for (double e : v)
    s += e * e;
  return s;
}

/* the request names the function itself (a template argument, not a
 * pointer parameter, which -O0 would keep) */
template <double (*f)(double)> static void check(double x, const char *name) {
  double d = __enzyme_fwddiff((void *)f, x, 1.0);
  double h = 1e-6;
  double fd = (f(x + h) - f(x - h)) / (2 * h);
  if (!(fabs(d - fd) <= 1e-6 * (1 + fabs(fd))))
    fprintf(stderr, "%s at %g:\n", name, x);
  APPROX_EQ(d, fd, 1e-6 * (1 + fabs(fd)));
}

struct Lanes {
  double v[2];
};
extern Lanes __enzyme_batch(void *, ...);
extern int enzyme_vector;

int main() {
  check<may_throw>(0.7, "may_throw");
  check<caught>(0.5, "caught (no throw)");
  check<caught>(2.0, "caught (thrown)");
  APPROX_EQ(__enzyme_fwddiff((void *)caught, 2.0, 1.0), 12 + cos(2.0), 1e-12);
  check<rethrown>(0.3, "rethrown");
  check<growing>(1.5, "growing");

  /* requests inside try blocks: the derivative throws to this handler,
   * and one that does not throw returns normally */
  int handled = 0;
  double d = 0;
  std::vector<double> keep(3, 1.0); /* a cleanup pad around every call */
  try {
    d = __enzyme_fwddiff((void *)risky, 0.5, 1.0);
  } catch (const std::runtime_error &) {
    handled += 100;
  }
  APPROX_EQ(d, 3 * 0.25, 1e-12);
  try {
    d = __enzyme_fwddiff((void *)risky, 3.0, 1.0);
    ENZYME_COMPAT_FAIL("the derivative of risky(3) did not throw");
  } catch (const std::runtime_error &) {
    handled++;
  }
  try {
    Lanes l = __enzyme_batch((void *)risky, enzyme_width, 2, enzyme_vector,
                             0.5, 2.0);
    ENZYME_COMPAT_FAIL("the batch of risky(2) did not throw");
    d = l.v[0];
  } catch (const std::runtime_error &) {
    handled++;
  }
  if (handled != 2)
    ENZYME_COMPAT_FAIL("an exception missed its handler");
  APPROX_EQ(keep[0] + keep[1] + keep[2], 3.0, 0);

  /* fill_and_fail's array and its shadow are both deleted on unwind */
  long before = live_arrays;
  for (int i = 0; i < 100; i++)
    __enzyme_fwddiff((void *)rethrown, 0.3, 1.0);
  if (live_arrays != before) {
    fprintf(stderr, "%ld arrays left over 100 requests\n",
            live_arrays - before);
    ENZYME_COMPAT_FAIL("shadow allocations leak on unwind");
  }
  return enzyme_compat_result();
}

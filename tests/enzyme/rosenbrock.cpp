// Enzyme ForwardMode/rosenbrock.cpp: the directional derivatives of the
// (pairwise) Rosenbrock function of a vector passed by const reference,
// one unit direction per request; the tangent vector is the request's
// shadow of the whole vector object.
extern "C" {
double fabs(double);
int printf(const char *, ...);
}
#include "mini_vector.h"

using mini::vector;

template <typename T> T rosenbrock2(const vector<T> &control) {
  T result(0);
  for (size_t i = 0; i < control.size(); i += 2) {
    T c1 = (control[i + 1] - control[i] * control[i]);
    T c2 = 1.0 - control[i];
    result += 100 * c1 * c1 + c2 * c2;
  }
  return result;
}

extern double __enzyme_fwddiff(double (*)(const vector<double> &),
                               vector<double> &, vector<double> &);

static int failures;
static void approx_eq(const char *what, size_t i, double got, double want,
                      double tol) {
  if (!(fabs(got - want) <= tol)) {
    printf("MISMATCH %s[%zu]: got %.17g, expected %.17g\n", what, i, got, want);
    failures++;
  }
}

int main() {
  vector<double> control{1.5, 2.5, 3.5, 4.5};
  double results[] = {-149.0, 50.0, 10855.0, -1550.0};
  for (size_t i = 0; i < control.size(); i++) {
    vector<double> activity(4);
    activity[i] = 1.0;
    double dret = __enzyme_fwddiff(rosenbrock2<double>, control, activity);
    approx_eq("d rosenbrock2", i, dret, results[i], 1e-10);
  }
  if (failures)
    return 1;
  printf("rosenbrock: ok\n");
  return 0;
}

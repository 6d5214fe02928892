// Enzyme ForwardMode/vec.cpp (and vec.c, the same program): a sum of
// squares over a vector passed by const reference, differentiated with a
// zero tangent vector.  The original only printed; its values are checked
// here: the tangent is 0, and the tangent vector is left as it was.  One
// request is added, with a nonzero tangent vector, so that a zero result
// cannot come from a shadow that is never read.
extern "C" {
double fabs(double);
int printf(const char *, ...);
}
#include "mini_vector.h"

using mini::vector;

double f(const vector<double> &control) {
  double result = 0;
  for (size_t i = 0; i < control.size(); i++) {
    result += control[i] * control[i];
  }
  return result;
}

extern double __enzyme_fwddiff(double (*)(const vector<double> &),
                               vector<double> &, vector<double> &);

int main() {
  vector<double> control{1.0, 1.0, 1.0, 1.0};
  vector<double> activity{0.0, 0.0, 0.0, 0.0};
  double dret = __enzyme_fwddiff(f, control, activity);
  printf("dret: %f, %f, %f, %f, %f\n", dret, activity[0], activity[1],
         activity[2], activity[3]);
  int failures = 0;
  if (!(dret == 0.0)) {
    printf("MISMATCH dret: got %.17g, expected 0\n", dret);
    failures++;
  }
  for (size_t i = 0; i < activity.size(); i++)
    if (!(activity[i] == 0.0 && control[i] == 1.0)) {
      printf("MISMATCH element %zu: control %.17g, activity %.17g\n", i,
             control[i], activity[i]);
      failures++;
    }
  vector<double> direction{1.0, 0.0, 2.0, 0.0};
  double dret2 = __enzyme_fwddiff(f, control, direction);
  if (!(dret2 == 6.0)) {
    printf("MISMATCH dret2: got %.17g, expected 6\n", dret2);
    failures++;
  }
  return failures != 0;
}

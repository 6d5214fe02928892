/* Calls to external libc functions on integer-only data inside the
 * differentiated code (labs, div): they carry no derivative and must not
 * stop the engine.  (clang -O2 turns labs into llvm.abs; -O0 keeps the
 * call; div stays a call at both.) */
#include <stdlib.h>

#include "enzyme.h"
#include "tangent_check.h"

double folded_weights(double x, long shift) {
  double s = 0.0;
  for (long i = -3; i <= 3; i++) {
    long w = labs(i - shift);
    div_t q = div((int)w, 2);
    s += (double)(w + q.rem) * sin(x * (double)(q.quot + 1));
  }
  return s;
}

int main(void) {
  const double x = 0.8;
  const long shifts[] = {0, 2};
  for (int c = 0; c < 2; c++) {
    long double want = 0;
    for (long i = -3; i <= 3; i++) {
      long w = labs(i - shifts[c]);
      long quot = w / 2, rem = w % 2;
      want += (long double)(w + rem) * (quot + 1) * cosl(x * (quot + 1.0L));
    }
    check_tangent("d/dx", __enzyme_fwddiff((void *)folded_weights, x, 1.0,
                                           enzyme_const, shifts[c]),
                  want);
  }
  return tc_finish("extern_int_call");
}

/*
 * C++ that logs through std::ostream inside the differentiated function:
 * operator<< for numbers and strings, std::endl, flush.  Enzyme knows the
 * stream calls are inactive; the tangent is that of the arithmetic.
 */
#include <iostream>
#include <sstream>

#include "enzyme_compat.h"

bool verbose = false; /* external: not folded away at -O2 */

double logged(double x, unsigned long step) {
  double y = x * x * 3.0 + x;
  std::ostream &out = verbose ? std::cout : std::cerr;
  if (verbose) {
    out << "step " << step << ": x = " << x << ", y = " << y << std::endl;
    out.flush();
  }
  std::cerr << std::flush;
  return y * step;
}

int main() {
  double x = 1.25;
  for (unsigned long step = 1; step <= 3; step++) {
    double d = __enzyme_fwddiff((void *)logged, enzyme_dup, x, 1.0,
                                enzyme_const, step);
    APPROX_EQ(d, (6.0 * x + 1.0) * step, 1e-12);
  }
  return enzyme_compat_result();
}

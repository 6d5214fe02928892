/* A request is a call to a *declared* function whose name contains
 * __enzyme_fwddiff (C++ templates mangle it), or to a definition of
 * __enzyme_fwddiff itself (a fallback stub, ignored).  The program's own
 * functions may carry the name inside theirs, defined and even unused: they
 * are ordinary code, kept and called like any other. */
#include "enzyme.h"
#include "tangent_check.h"

double cube(double x) { return x * x * x; }

/* defined, named like a request, never called */
double my__enzyme_fwddiff_unused(double x) { return x + 1; }

/* defined, named like a request, called: a wrapper holding a real request */
double call__enzyme_fwddiff_cube(double x) {
  return __enzyme_fwddiff((void *)cube, x, 1.0);
}

int main(void) {
  check_tangent("request inside a lookalike", call__enzyme_fwddiff_cube(2.0),
                12.0);
  check_tangent("second order through it",
                __enzyme_fwddiff((void *)call__enzyme_fwddiff_cube, 2.0, 1.0),
                12.0);
  return tc_finish("request_name_lookalike");
}

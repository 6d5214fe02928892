/*
 * Stands in for a Julia system image in tests/julia/sysimage_decl.ll: it
 * defines a specialization under Julia's mangled name, which the test's IR
 * only declares (tagged "enzyme_math"="log"), as a module compiled against
 * the system image would.  tanjit sees no body, so the tag must supply the
 * derivative.
 */
#include <math.h>

double julia_log_123(double x);

double julia_log_123(double x) { return log(x); }

/* Calls to external libc functions that no rule table knows (strlen on a
 * constant string, rand_r on a local seed, atoi, abs) inside differentiated
 * code: they touch only constant or integer data, so they are inactive and
 * must be kept as plain calls, not reported as missing derivatives. */
#include <stdlib.h>
#include <string.h>

#include "enzyme.h"
#include "tangent_check.h"

static const char *const words[] = {"a", "bb", "ccc", "dddd"};
static const char *const numbers[] = {"3", "-2", "7"};

double weighted(double x, int k) {
  unsigned seed = 12345u + (unsigned)k;
  double s = 0.0;
  for (int i = 0; i < 4; i++) {
    size_t len = strlen(words[(i + k) & 3]); /* constant data */
    int r = rand_r(&seed) % 5;                /* an integer-only local */
    int w = abs(atoi(numbers[(i + k) % 3]) - r);
    s += (double)(len + (size_t)w) * x * x;
  }
  return s;
}

int main(void) {
  for (int k = 0; k < 3; k++) {
    const double x = 1.25;
    /* the same integers as the primal computes */
    unsigned seed = 12345u + (unsigned)k;
    long double c = 0;
    for (int i = 0; i < 4; i++) {
      size_t len = strlen(words[(i + k) & 3]);
      int r = rand_r(&seed) % 5;
      int w = abs(atoi(numbers[(i + k) % 3]) - r);
      c += (long double)(len + (size_t)w);
    }
    check_primal("primal", weighted(x, k), (double)(c * x * x));
    check_tangent("d/dx", __enzyme_fwddiff((void *)weighted, x, 1.0,
                                           enzyme_const, k),
                  2.0L * c * x);
  }
  return tc_finish("extern_libc_ints");
}

/* One callee differentiated for two requests: in the first the global it
 * reads is inactive in the caller, in the second the caller writes an
 * active value into it.  The derivative of the callee must see the
 * global's tangent in the second (whichever request is built first). */
#include "enzyme.h"
#include "tangent_check.h"

double g_scale = 5.0;

__attribute__((noinline)) double scaled(double y) { return y * g_scale; }
double scale_only(double y) { return scaled(y); }           /* y * g_scale */
double set_scale(double x) { g_scale = x; return scaled(x); } /* x^2 */

/* Requests are rewritten in use-list order (the last one in the source
 * first): scaled's derivative is built for scale_only first. */
double request_set_scale(double x) {
  return __enzyme_fwddiff((void *)set_scale, x, 1.0);
}
double request_scale_only(double y) {
  return __enzyme_fwddiff((void *)scale_only, y, 1.0);
}

int main(void) {
  /* The shadow of g_scale lives as long as the module (as in Enzyme):
   * the request that leaves it zero runs first. */
  check_tangent("global inactive in the caller", request_scale_only(3.0),
                5.0L);
  check_tangent("global made active by the caller", request_set_scale(3.0),
                6.0L);
  check_primal_out("g_scale", g_scale, 3.0L);
  return tc_finish("global_cache_order");
}

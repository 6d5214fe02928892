/* A pointer that is either duplicated (shadow memory of its own) or
 * constant (no shadow: it stands for itself), chosen at run time.  Through
 * the constant one, a store must not write a tangent into primal memory
 * and a load must read a zero tangent (Enzyme's runtime activity). */
#include "enzyme.h"
#include "tangent_check.h"

void __enzyme_fwddiff_v(void *, ...) __asm__("__enzyme_fwddiff");

__attribute__((noinline)) void store_either(double *out, double *scratch,
                                            double x, int c) {
  double *p = c ? out : scratch;
  *p = x * x;
  out[1] = out[0] + scratch[0];
}

__attribute__((noinline)) double load_either(double *active, double *fixed,
                                             int c) {
  double *p = c ? active : fixed;
  return p[0] * 2.0;
}

int main(void) {
  for (int c = 0; c < 2; c++) {
    double out[2] = {1, 0}, dout[2] = {0.5, 0}, scratch[1] = {5};
    __enzyme_fwddiff_v((void *)store_either, out, dout, enzyme_const, scratch,
                       3.0, 1.0, c);
    /* c = 0: x^2 lands in scratch, its tangent nowhere */
    check_primal_out("scratch", scratch[0], c ? 5.0L : 9.0L);
    check_primal_out("out[0]", out[0], c ? 9.0L : 1.0L);
    check_primal_out("out[1]", out[1], c ? 14.0L : 10.0L);
    check_tangent("dout[0]", dout[0], c ? 6.0L : 0.5L);
    check_tangent("dout[1]", dout[1], c ? 6.0L : 0.5L);
  }
  double a = 4.0, da = 7.0, fixed = 3.0;
  for (int c = 0; c < 2; c++)
    check_tangent("load through the chosen pointer",
                  __enzyme_fwddiff((void *)load_either, enzyme_dup, &a, &da,
                                   enzyme_const, &fixed, c),
                  c ? 14.0L : 0.0L);
  check_primal_out("fixed", fixed, 3.0L);
  return tc_finish("runtime_activity");
}

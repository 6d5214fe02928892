/* Single-precision libm: sinf, cosf, expf, logf, sqrtf, tanhf, powf, atanf.
 * The request is declared with float parameters (a variadic prototype
 * would promote the floats to double), and checked at float tolerances. */
#include "enzyme.h"
#include "tangent_check.h"

/* One fixed prototype per translation unit: with two of one symbol, clang
 * -O2 may pad the shorter calls to the other's parameter list. */
float __enzyme_fwddiff_f1(float (*)(float), float, float)
    asm("__enzyme_fwddiff");

float f_sinf(float x) { return sinf(x); }
float f_cosf(float x) { return cosf(x); }
float f_expf(float x) { return expf(x); }
float f_logf(float x) { return logf(x); }
float f_sqrtf(float x) { return sqrtf(x); }
float f_tanhf(float x) { return tanhf(x); }
float f_atanf(float x) { return atanf(x); }
float f_powf_base(float b) { return powf(b, 1.5f); }
float f_powf_exp(float e) { return powf(2.5f, e); }

int main(void) {
  const float xs[] = {0.3f, 1.25f, 2.5f};
  for (int i = 0; i < 3; i++) {
    float x = xs[i];
    long double lx = x;
    check_tangent_float("sinf", __enzyme_fwddiff_f1(f_sinf, x, 1.0f), cosl(lx));
    check_tangent_float("cosf", __enzyme_fwddiff_f1(f_cosf, x, 1.0f),
                        -sinl(lx));
    check_tangent_float("expf", __enzyme_fwddiff_f1(f_expf, x, 1.0f), expl(lx));
    check_tangent_float("logf", __enzyme_fwddiff_f1(f_logf, x, 1.0f), 1 / lx);
    check_tangent_float("sqrtf", __enzyme_fwddiff_f1(f_sqrtf, x, 1.0f),
                        0.5L / sqrtl(lx));
    check_tangent_float("tanhf", __enzyme_fwddiff_f1(f_tanhf, x, 1.0f),
                        1 / (coshl(lx) * coshl(lx)));
    check_tangent_float("atanf", __enzyme_fwddiff_f1(f_atanf, x, 2.0f),
                        2 / (1 + lx * lx));
    check_tangent_float("powf d/dbase",
                        __enzyme_fwddiff_f1(f_powf_base, x, 1.0f),
                        1.5L * powl(lx, 0.5L));
    check_tangent_float("powf d/dexp",
                        __enzyme_fwddiff_f1(f_powf_exp, x, 1.0f),
                        powl(2.5L, lx) * logl(2.5L));
  }
  return tc_finish("math_float");
}

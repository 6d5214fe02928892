/* float complex <complex.h> functions (cexpf ...): on x86-64 a float complex
 * travels as one <2 x float> argument and result, and the partner functions
 * of the rules (ccosf for csinf, clogf for cpowf) are declared that way.
 * Each tangent is checked against the analytic derivative, computed in long
 * double complex: d/dx P(f(z(x))) = P(f'(z) z'(x)). */
#include <complex.h>

#include "enzyme.h"
#include "tangent_check.h"

float __enzyme_fwddiff_f(void *, float, float) asm("__enzyme_fwddiff");

#define PROJECT(r) (crealf(r) + 2.0f * cimagf(r))
#define PROJECT_L(r) (creall(r) + 2.0L * cimagl(r))

static float complex z_of(float x) { return (0.4f + x) + I * (0.3f - 0.5f * x); }
static float complex w_of(float x) { return (-0.7f + 0.2f * x) + I * (1.1f + x * x); }
static long double complex zl(long double x) { return (0.4L + x) + I * (0.3L - 0.5L * x); }
static long double complex wl(long double x) { return (-0.7L + 0.2L * x) + I * (1.1L + x * x); }
static const long double complex dz = 1.0L - 0.5L * I;
static long double complex dw(long double x) { return 0.2L + 2 * x * I; }

float f_exp(float x) { return PROJECT(cexpf(z_of(x))); }
float f_sin(float x) { return PROJECT(csinf(z_of(x))); }
float f_cos(float x) { return PROJECT(ccosf(z_of(x))); }
float f_sinh(float x) { return PROJECT(csinhf(z_of(x))); }
float f_cosh(float x) { return PROJECT(ccoshf(z_of(x))); }
float f_tan(float x) { return PROJECT(ctanf(z_of(x))); }
float f_tanh(float x) { return PROJECT(ctanhf(z_of(x))); }
float f_sqrt(float x) { return PROJECT(csqrtf(z_of(x))); }
float f_log(float x) { return PROJECT(clogf(z_of(x))); }
float f_pow(float x) { return PROJECT(cpowf(z_of(x), w_of(x))); }
float f_abs_arg(float x) { return cabsf(w_of(x)) + 3.0f * cargf(z_of(x)); }
float f_mul(float x) { return PROJECT(z_of(x) * w_of(x)); }

#define CHECK(name, f, want) \
  check_tangent_float(name, __enzyme_fwddiff_f((void *)f, x, 1.0f), want)

int main(void) {
  const float xs[] = {0.25f, -0.6f};
  for (int i = 0; i < 2; i++) {
    float x = xs[i];
    long double lx = x;
    long double complex z = zl(lx), w = wl(lx);
    CHECK("cexpf", f_exp, PROJECT_L(cexpl(z) * dz));
    CHECK("csinf", f_sin, PROJECT_L(ccosl(z) * dz));
    CHECK("ccosf", f_cos, PROJECT_L(-csinl(z) * dz));
    CHECK("csinhf", f_sinh, PROJECT_L(ccoshl(z) * dz));
    CHECK("ccoshf", f_cosh, PROJECT_L(csinhl(z) * dz));
    CHECK("ctanf", f_tan, PROJECT_L(dz / (ccosl(z) * ccosl(z))));
    CHECK("ctanhf", f_tanh, PROJECT_L(dz / (ccoshl(z) * ccoshl(z))));
    CHECK("csqrtf", f_sqrt, PROJECT_L(dz / (2 * csqrtl(z))));
    CHECK("clogf", f_log, PROJECT_L(dz / z));
    CHECK("cpowf", f_pow,
          PROJECT_L(cpowl(z, w) * (dw(lx) * clogl(z) + w * dz / z)));
    CHECK("cabsf, cargf", f_abs_arg,
          creall(conjl(w) * dw(lx)) / cabsl(w) + 3 * cimagl(dz / z));
    CHECK("z*w float", f_mul, PROJECT_L(dz * w + z * dw(lx)));
  }
  return tc_finish("complex_float");
}

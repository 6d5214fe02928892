/* C99 complex arithmetic and <complex.h> functions: products and quotients
 * go through __muldc3/__divdc3 at -O0; each function's tangent is checked
 * against a central finite difference of a real projection. */
#include <complex.h>

#include "enzyme.h"
#include "tangent_check.h"

#define PROJECT(r) (creal(r) + 2.0 * cimag(r))

static double complex z_of(double x) { return (0.4 + x) + I * (0.3 - 0.5 * x); }
static double complex w_of(double x) { return (-0.7 + 0.2 * x) + I * (1.1 + x * x); }

double c_mul(double x) { return PROJECT(z_of(x) * w_of(x)); }
double c_div(double x) { return PROJECT(z_of(x) / w_of(x)); }
double c_exp(double x) { return PROJECT(cexp(z_of(x))); }
double c_sin(double x) { return PROJECT(csin(z_of(x))); }
double c_cos(double x) { return PROJECT(ccos(z_of(x))); }
double c_sinh(double x) { return PROJECT(csinh(z_of(x))); }
double c_cosh(double x) { return PROJECT(ccosh(z_of(x))); }
double c_tan(double x) { return PROJECT(ctan(z_of(x))); }
double c_tanh(double x) { return PROJECT(ctanh(z_of(x))); }
double c_sqrt(double x) { return PROJECT(csqrt(z_of(x))); }
double c_log(double x) { return PROJECT(clog(z_of(x))); }
double c_pow(double x) { return PROJECT(cpow(z_of(x), w_of(x))); }
double c_abs_arg(double x) { return cabs(w_of(x)) + 3.0 * carg(z_of(x)); }

typedef double (*real_fn)(double);
static double along(double t, void *ctx) {
  real_fn *f = ctx;
  return (*f)(0.25 + t);
}

/* A request names its function as a constant, hence one per case. */
#define CHECK(name, f)                                                         \
  do {                                                                         \
    real_fn fn_ = f;                                                           \
    check_tangent_fd(name, __enzyme_fwddiff((void *)f, 0.25, 1.0),             \
                     fd_derivative(along, &fn_));                              \
  } while (0)

int main(void) {
  CHECK("z*w", c_mul);
  CHECK("z/w", c_div);
  CHECK("cexp", c_exp);
  CHECK("csin", c_sin);
  CHECK("ccos", c_cos);
  CHECK("csinh", c_sinh);
  CHECK("ccosh", c_cosh);
  CHECK("ctan", c_tan);
  CHECK("ctanh", c_tanh);
  CHECK("csqrt", c_sqrt);
  CHECK("clog", c_log);
  CHECK("cpow", c_pow);
  CHECK("cabs, carg", c_abs_arg);
  return tc_finish("complex_math");
}

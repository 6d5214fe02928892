/*
 * Enzyme's in-IR registrations, written as a C user writes them (compiled
 * to IR by clang at -O0 and -O2; tests/custom/test_custom.c checks the
 * numbers).  Each rule is deliberately different from the true derivative,
 * so a test can tell the rule was used.
 */
#include <math.h>

double __enzyme_fwddiff(void *, ...);

/* Tangent-only form through pointers (Enzyme's customfwd test): the rule
 * says d(src^2) = 100 * dsrc. */
__attribute__((noinline)) static void square_(const double *src, double *dest) {
  *dest = *src * *src;
}
static void dsquare_(const double *src, const double *d_src, const double *dest,
                     double *d_dest) {
  (void)src, (void)dest;
  *d_dest = 100.0 * *d_src;
}
void *__enzyme_register_derivative_square[] = {(void *)square_,
                                               (void *)dsquare_};
double square(double x) {
  double y;
  square_(&x, &y);
  return y;
}
double dsquare(double x, double dx) {
  return __enzyme_fwddiff((void *)square, x, dx);
}

/* Tangent-only scalar form: twice(x) = 2x, the rule says 7 dx. */
__attribute__((noinline)) double twice(double x) { return 2.0 * x; }
double dtwice_rule(double x, double dx) {
  (void)x;
  return 7.0 * dx;
}
void *__enzyme_register_derivative_twice[] = {(void *)twice,
                                              (void *)dtwice_rule};
double twice_sin(double x) { return sin(twice(x)); }
double dtwice_sin(double x, double dx) {
  return __enzyme_fwddiff((void *)twice_sin, x, dx);
}

/* Pair form {primal, tangent}: the rule's primal is cube + 1 and replaces
 * the call, so sin(cube(x)) differentiates to cos(x^3 + 1) * 3x^2. */
typedef struct {
  double primal, tangent;
} dual;
__attribute__((noinline)) double cube(double x) { return x * x * x; }
dual dcube_rule(double x, double dx) {
  dual r = {x * x * x + 1.0, 3.0 * x * x * dx};
  return r;
}
void *__enzyme_register_derivative_cube[] = {(void *)cube, (void *)dcube_rule};
double sin_cube(double x) { return sin(cube(x)); }
double dsin_cube(double x, double dx) {
  return __enzyme_fwddiff((void *)sin_cube, x, dx);
}

/* __enzyme_inactivefn: noise(x) = 5x contributes nothing. */
__attribute__((noinline)) double noise(double x) { return 5.0 * x; }
void *__enzyme_inactivefn[] = {(void *)noise};
double with_noise(double x) { return x * x + noise(x); }
double dwith_noise(double x, double dx) {
  return __enzyme_fwddiff((void *)with_noise, x, dx);
}

/* __enzyme_function_like: closed_log has no IR (it lives in the test's
 * closed library); "log" gives it the math table's rule. */
double closed_log(double x);
void *__enzyme_function_like[2] = {(void *)closed_log, "log"};
double xlog(double x) { return x * closed_log(x); }
double dxlog(double x, double dx) {
  return __enzyme_fwddiff((void *)xlog, x, dx);
}

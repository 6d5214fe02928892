#include <math.h>
#include "rev_check.h"
/* Calls through a function pointer that may reach a function with a
 * custom gradient and a custom forward derivative (a straight-through
 * quantizer: the rules pass the tangent through, its body's floor would
 * give 0) or one marked inactive: the rules must answer the indirect call
 * as they answer a direct one, in both modes.  And a function with a
 * custom forward derivative only, in reverse mode: differentiated from its
 * body, as Enzyme does. */
double __enzyme_fwddiff(void *, ...);

static int rev_used, fwd_used;
__attribute__((noinline)) static void quant_(const double *src, double *dest) {
  *dest = floor(*src * 4) / 4;
}
__attribute__((noinline)) static void ident_(const double *src, double *dest) {
  *dest = *src * 2;
}
void *aug_quant_(const double *src, double *d_src, double *dest,
                 double *d_dest) {
  (void)d_src, (void)d_dest;
  *dest = floor(*src * 4) / 4;
  return 0;
}
void rev_quant_(const double *src, double *d_src, double *dest, double *d_dest,
                void *tape) {
  (void)src, (void)dest, (void)tape;
  rev_used++;
  *d_src += *d_dest;
  *d_dest = 0;
}
void fwd_quant_(const double *src, const double *d_src, double *dest,
                double *d_dest) {
  fwd_used++;
  *dest = floor(*src * 4) / 4;
  *d_dest = *d_src;
}
void *__enzyme_register_gradient_quant[3] = {(void *)quant_, (void *)aug_quant_,
                                             (void *)rev_quant_};
void *__enzyme_register_derivative_quant[2] = {(void *)quant_,
                                               (void *)fwd_quant_};

typedef void (*op_t)(const double *, double *);
op_t ops[2] = {quant_, ident_};

/* y = op(x), then y^2 * x */
static double viaptr(double x, int k) {
  double y;
  ops[k](&x, &y);
  return y * y * x;
}

/* a custom forward derivative only, used by a reverse request */
static int cube_used;
__attribute__((noinline)) static double cube(double x) { return x * x * x; }
double d_cube(double x, double dx) {
  cube_used++;
  return 3 * x * x * dx;
}
void *__enzyme_register_derivative_cube[2] = {(void *)cube, (void *)d_cube};
static double use_cube(double x) { return cube(x) * sin(x); }

/* a function marked inactive (a stop-gradient), through a pointer */
__attribute__((noinline)) static double stopgrad(double x) { return x; }
__attribute__((noinline)) static double twice(double x) { return 2 * x; }
void *__enzyme_inactivefn[] = {(void *)stopgrad};
typedef double (*f1)(double);
f1 fns[2] = {stopgrad, twice};
static double via_fns(double x, int k) { return x * fns[k](x); }

int main(void) {
  double x = 0.8;
  double q = floor(x * 4) / 4;
  /* straight through: d/dx (q^2 x) with dq/dx = 1 */
  double want_q = 2 * q * x + q * q;
  double want_i = 12 * x * x; /* (2x)^2 x */
  rc_expect("rev via pointer, custom", __enzyme_autodiff((void *)viaptr, x, 0),
            want_q, 1e-12);
  rc_expect("rev via pointer, body", __enzyme_autodiff((void *)viaptr, x, 1),
            want_i, 1e-12);
  rc_expect("rev custom gradient calls", rev_used, 1, 0);
  rc_expect("fwd via pointer, custom",
            __enzyme_fwddiff((void *)viaptr, x, 1.0, 0), want_q, 1e-12);
  rc_expect("fwd via pointer, body",
            __enzyme_fwddiff((void *)viaptr, x, 1.0, 1), want_i, 1e-12);
  rc_expect("fwd custom derivative calls", fwd_used, 1, 0);
  rc_expect("rev of a forward-only rule's function",
            __enzyme_autodiff((void *)use_cube, x),
            3 * x * x * sin(x) + x * x * x * cos(x), 1e-12);
  rc_expect("forward rule unused in reverse", cube_used, 0, 0);
  rc_expect("rev via pointer, inactive", __enzyme_autodiff((void *)via_fns, x, 0),
            x, 1e-12);
  rc_expect("fwd via pointer, inactive",
            __enzyme_fwddiff((void *)via_fns, x, 1.0, 0), x, 1e-12);
  rc_expect("rev via pointer, active", __enzyme_autodiff((void *)via_fns, x, 1),
            4 * x, 1e-12);
  return rc_result();
}

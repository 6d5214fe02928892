/* remquo and remquof in forward mode: r = x - n y with n = rint(x/y), so
 * dr = dx - n dy (remainder's derivative), and the low bits of n written
 * through the int pointer carry no tangent but must be the primal's.  The
 * functions use the quotient the call wrote (r * q), so a wrong q shows in
 * the tangent too.  The points keep x/y away from the half-integers where
 * n jumps (also across the finite differences' steps), with |n| < 8, where
 * every C library's quotient bits are n itself. */
#include "enzyme.h"
#include "tangent_check.h"

double f_remquo(double x, double y) {
  int q;
  double r = remquo(x, y, &q);
  return r * r + r * (double)q;
}

/* the quotient stored through an argument the caller reads */
double f_remquo_out(double x, double y, int *q) {
  return remquo(x, y, q) * 3.0;
}

float f_remquof(float x, float y) {
  int q;
  float r = remquof(x, y, &q);
  return r * r + r * (float)q;
}

float __enzyme_fwddiff_f2(float (*)(float, float), float, float, float, float)
    asm("__enzyme_fwddiff");

typedef struct line {
  double x, y, vx, vy;
} line;
static double remquo_along(double t, void *ctx) {
  const line *l = ctx;
  return f_remquo(l->x + t * l->vx, l->y + t * l->vy);
}
static float remquof_along(float t, void *ctx) {
  const line *l = ctx;
  return f_remquof((float)l->x + t * (float)l->vx,
                   (float)l->y + t * (float)l->vy);
}

int main(void) {
  static const double pts[][2] = {
      {7.1, 2.1}, {-9.7, 2.5}, {5.0, -1.7}, {2.9, 1.1}, {-0.4, 3.0}};
  static const double dirs[][2] = {{1, 0}, {0, 1}, {0.6, -1.3}};
  for (unsigned i = 0; i < sizeof pts / sizeof *pts; i++) {
    double x = pts[i][0], y = pts[i][1];
    long double n = rintl((long double)x / y);
    long double r = (long double)x - n * y;
    int q;
    (void)remquo(x, y, &q);
    check_int("remquo's quotient is rint(x/y)", q, (long)n);
    for (unsigned d = 0; d < sizeof dirs / sizeof *dirs; d++) {
      line l = {x, y, dirs[d][0], dirs[d][1]};
      /* df = (2r + q) dr, dr = dx - n dy */
      long double want = (2 * r + n) * (l.vx - n * l.vy);
      check_reference("remquo", want, fd_derivative(remquo_along, &l));
      check_tangent_fd("remquo",
                       __enzyme_fwddiff((void *)f_remquo, x, l.vx, y, l.vy),
                       want);

      float fx = (float)x, fy = (float)y;
      long double nf = rintl((long double)fx / fy);
      long double rf = (long double)fx - nf * fy;
      long double wantf = (2 * rf + nf) * (l.vx - nf * l.vy);
      check_reference_float("remquof", wantf,
                            fd_derivative_float(remquof_along, &l));
      check_tangent_float("remquof",
                          __enzyme_fwddiff_f2(f_remquof, fx, (float)l.vx, fy,
                                              (float)l.vy),
                          wantf);
    }
    /* the quotient the program reads back, through a constant pointer
     * and through a duplicated one (written by the derivative call:
     * skipped natively, as tangents are) */
    int got = -100, shadow = -200;
    check_tangent_fd("remquo out, constant quotient",
                     __enzyme_fwddiff((void *)f_remquo_out, x, 1.0, y, 0.5,
                                      enzyme_const, &got),
                     3 * (1 - 0.5L * n));
    tc_tangent("remquo out, constant quotient's value", got, q, 0, 0);
    got = -100;
    check_tangent_fd("remquo out, duplicated quotient",
                     __enzyme_fwddiff((void *)f_remquo_out, x, 0.0, y, 1.0,
                                      enzyme_dup, &got, &shadow),
                     -3 * n);
    tc_tangent("remquo out, duplicated quotient's value", got, q, 0, 0);
  }
  return tc_finish("math_remquo");
}

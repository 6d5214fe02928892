/* A struct-of-arrays particle system: positions and velocities in separate
 * arrays held by one struct, its shadow a struct of the shadow arrays.
 * Leapfrog steps of a spring chain update the arrays in place; the result
 * is the final energy.  Reverse from nonzero shadows (the seeds are the
 * adjoints of the final state), and forward. */
#include "both_modes.h"
typedef struct {
  double *x, *v;
  int n;
} particles;
static double chain(particles *p, double k, int steps) {
  const double dt = 0.02;
  double f[8];
  for (int s = 0; s < steps; s++) {
    for (int i = 0; i < p->n; i++) f[i] = 0;
    for (int i = 0; i + 1 < p->n; i++) {
      double d = p->x[i + 1] - p->x[i] - 1.0;
      f[i] += k * d;
      f[i + 1] -= k * d;
    }
    for (int i = 0; i < p->n; i++) p->v[i] += dt * f[i];
    for (int i = 0; i < p->n; i++) p->x[i] += dt * p->v[i];
  }
  double e = 0;
  for (int i = 0; i < p->n; i++) e += 0.5 * p->v[i] * p->v[i];
  for (int i = 0; i + 1 < p->n; i++) {
    double d = p->x[i + 1] - p->x[i] - 1.0;
    e += 0.5 * k * d * d;
  }
  return e;
}
#define NP 4
#define STEPS 15
/* q = {x[4], v[4], k} */
static long double eval(const long double *q, int with_seeds) {
  double x[NP], v[NP];
  for (int i = 0; i < NP; i++) x[i] = (double)q[i], v[i] = (double)q[NP + i];
  particles p = {x, v, NP};
  long double r = chain(&p, (double)q[2 * NP], STEPS);
  if (with_seeds)
    for (int i = 0; i < NP; i++)
      r += rc_seed_value(i) * x[i] + rc_seed_value(NP + i) * v[i];
  return r;
}
static long double run(const long double *q) { return eval(q, 1); }
static long double value(const long double *q) { return eval(q, 0); }
double __enzyme_autodiff_dk(void *, ...) __asm__("__enzyme_autodiff");
int main(void) {
  static const double x0[NP] = {0.0, 1.1, 1.9, 3.2}, v0[NP] = {0.1, -0.2, 0.05, 0.3};
  const double k0 = 2.5;
  double x[NP], v[NP], dx[NP], dv[NP];
  long double q[2 * NP + 1], got[2 * NP + 1], dir[2 * NP + 1];
  for (int i = 0; i < NP; i++) {
    x[i] = x0[i], v[i] = v0[i], q[i] = x0[i], q[NP + i] = v0[i];
    dx[i] = rc_seed_value(i), dv[i] = rc_seed_value(NP + i);
  }
  q[2 * NP] = k0;
  particles p = {x, v, NP}, dp = {dx, dv, NP};
  double dk = __enzyme_autodiff_dk((void *)chain, enzyme_dup, &p, &dp, k0,
                                   enzyme_const, STEPS);
  for (int i = 0; i < NP; i++) got[i] = dx[i], got[NP + i] = dv[i];
  got[2 * NP] = dk;
  rc_check("soa gradient", run, q, got, 2 * NP + 1);
  /* forward: fresh state, tangents along dir */
  double tx[NP], tv[NP];
  for (int i = 0; i < NP; i++) {
    x[i] = x0[i], v[i] = v0[i];
    dir[i] = tx[i] = 0.2 * (i + 1) - 0.5;
    dir[NP + i] = tv[i] = 0.1 - 0.05 * i;
  }
  dir[2 * NP] = 0.7;
  particles tp = {tx, tv, NP};
  p.x = x, p.v = v;
  double t = __enzyme_fwddiff((void *)chain, enzyme_dup, &p, &tp, k0, 0.7,
                              enzyme_const, STEPS);
  bm_check_tangent("soa forward", value, q, dir, 2 * NP + 1, t, NULL);
  return rc_result();
}

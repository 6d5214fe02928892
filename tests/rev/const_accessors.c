/* Accessors over an enzyme_const object: `at(c, i)` returns a pointer
 * into constant memory.  At -O0 the accessor is a call; the pointer it
 * returns has no shadow (it comes only from the constant argument), so
 * the spring constants read through it get no adjoint, and their memory
 * is left as it was.  (Giving the call a shadow made the primal stand in
 * for it: the reverse pass added the adjoints of k and rest into the
 * springs themselves.) */
#include "rev_check.h"

typedef struct {
  double k, rest;
} spring;
typedef struct {
  spring *springs;
  int n;
} chain;

static const spring *at(const chain *c, int i) { return &c->springs[i]; }
static const spring *last(const chain *c) { return at(c, c->n - 1); }

static double energy(const spring *s, double x0, double x1) {
  double d = x1 - x0 - s->rest;
  return 0.5 * s->k * d * d;
}

static double chain_energy(const chain *c, double *x) {
  double e = 0;
  for (int i = 0; i < c->n; i++)
    e += energy(at(c, i), x[i], x[i + 1]);
  return e + last(c)->k * sin(x[0]);
}

enum { N = 4 };
static spring springs[N] = {{1, 0.5}, {2, 0.25}, {3, 0.5}, {4, 0.75}};
static const chain the_chain = {springs, N};

static long double run(const long double *p) {
  double x[N + 1];
  for (int i = 0; i <= N; i++)
    x[i] = (double)p[i];
  long double r = chain_energy(&the_chain, x);
  for (int i = 0; i <= N; i++)
    r += rc_seed_value(i) * (long double)x[i];
  return r;
}

int main(void) {
  double x[N + 1] = {0, 0.7, 1.1, 1.9, 2.2}, dx[N + 1];
  long double p[N + 1], got[N + 1];
  for (int i = 0; i <= N; i++)
    p[i] = x[i];
  rc_seed(dx, N + 1);
  __enzyme_autodiff((void *)chain_energy, enzyme_const, &the_chain,
                    enzyme_dup, x, dx);
  for (int i = 0; i <= N; i++)
    got[i] = dx[i];
  rc_check("const_accessors", run, p, got, N + 1);
  static const double k0[N] = {1, 2, 3, 4}, rest0[N] = {0.5, 0.25, 0.5, 0.75};
  for (int i = 0; i < N; i++) {
    rc_expect("spring k unchanged", springs[i].k, k0[i], 0);
    rc_expect("spring rest unchanged", springs[i].rest, rest0[i], 0);
  }
  return rc_result();
}

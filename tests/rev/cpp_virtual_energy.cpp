// Virtual energy() terms reached through a mutable global array of
// pointers that main fills at run time (objects on its stack): the calls
// only read the objects, so they need no shadows (their null shadows were
// dereferenced before).
#include "rev_check.h"
#include <cmath>
/* a class hierarchy with virtual energy(), summed over a heterogeneous array */
struct Term {
  virtual ~Term() {}
  virtual double energy(const double *x) const = 0;
};
struct Spring : Term {
  int i, j; double k, rest;
  Spring(int i_, int j_, double k_, double r_) : i(i_), j(j_), k(k_), rest(r_) {}
  double energy(const double *x) const override { double d = x[j] - x[i] - rest; return 0.5 * k * d * d; }
};
struct Gravity : Term {
  int i; double g;
  Gravity(int i_, double g_) : i(i_), g(g_) {}
  double energy(const double *x) const override { return g * x[i]; }
};
struct Morse : Term {
  int i, j; double a;
  Morse(int i_, int j_, double a_) : i(i_), j(j_), a(a_) {}
  double energy(const double *x) const override { double e = 1 - std::exp(-a * (x[j] - x[i] - 1)); return e * e; }
};
static Term *terms[5];
static double total(const double *x) {
  double e = 0;
  for (int t = 0; t < 5; t++) e += terms[t]->energy(x);
  return e;
}
static long double run(const long double *p) {
  double x[4];
  for (int i = 0; i < 4; i++) x[i] = (double)p[i];
  long double r = total(x);
  for (int i = 0; i < 4; i++) r += rc_seed_value(i) * p[i];
  return r;
}
int main() {
  Spring s1(0, 1, 2.0, 1.0), s2(1, 2, 3.0, 0.5);
  Gravity g(3, 9.81);
  Morse m1(2, 3, 1.5), m2(0, 3, 0.7);
  terms[0] = &s1; terms[1] = &g; terms[2] = &s2; terms[3] = &m1; terms[4] = &m2;
  double x[4] = {0.1, 1.3, 1.7, 2.9}, dx[4];
  long double p[4] = {0.1, 1.3, 1.7, 2.9}, got[4];
  rc_seed(dx, 4);
  __enzyme_autodiff((void *)total, enzyme_dup, x, dx);
  for (int i = 0; i < 4; i++) got[i] = dx[i];
  rc_check("cpp_virtual_energy", run, p, got, 4);
  return rc_result();
}

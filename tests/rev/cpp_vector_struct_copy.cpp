// C++: a std::vector of structs mixing doubles, an int and a float,
// copied whole (one llvm.memmove of a run-time byte count, its end pointer
// begin + bytes only compared) and walked by iterator.  Runs at -O0 and
// -O1 (see tests/rev/meson.build); at -O0 the memmove sits in
// std::__copy_move::__copy_m, whose far callers say what the bytes are.
#include <cmath>
#include <vector>
#define RC_OWN_PROTOTYPE
#include "rev_check.h"
extern "C" double __enzyme_autodiff(void *, ...);

struct particle {
  double x, v;
  int id;
  float w;
};

static double energy(const std::vector<particle> *ps) {
  std::vector<particle> local = *ps;
  double e = 0;
  for (auto &p : local) {
    p.x += 0.1 * p.v;
    e += p.w * p.x * p.x + 0.5 * p.v * p.v + std::sin(p.x) * p.id;
  }
  return e;
}

enum { N = 3 };
static const double x0[N] = {1.0, -0.3, 0.7}, v0[N] = {0.5, 1.5, -0.2};

// x and v of each particle, flattened: the energy plus <seed, inputs>
// (the inputs are only read, so each shadow keeps its seed).
static long double run(const long double *p) {
  std::vector<particle> ps(N);
  long double r = 0;
  for (int i = 0; i < N; i++) {
    ps[i] = {(double)p[2 * i], (double)p[2 * i + 1], i + 1, 0.5f + i};
    r += rc_seed_value(2 * i) * p[2 * i] + rc_seed_value(2 * i + 1) * p[2 * i + 1];
  }
  return r + energy(&ps);
}

int main() {
  std::vector<particle> ps(N), dps(N);
  long double p[2 * N], got[2 * N];
  for (int i = 0; i < N; i++) {
    ps[i] = {x0[i], v0[i], i + 1, 0.5f + i};
    dps[i] = {rc_seed_value(2 * i), rc_seed_value(2 * i + 1), 0, 0.0f};
    p[2 * i] = x0[i], p[2 * i + 1] = v0[i];
  }
  __enzyme_autodiff((void *)energy, enzyme_dup, &ps, &dps);
  for (int i = 0; i < N; i++)
    got[2 * i] = dps[i].x, got[2 * i + 1] = dps[i].v;
  rc_check("cpp_vector_struct_copy", run, p, got, 2 * N);
  return rc_result();
}

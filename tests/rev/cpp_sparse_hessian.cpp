// Sparse Hessians the way Enzyme's Sparse programs (ringspring.cpp,
// sqrtspring.cpp, ringspring2Dextenddata.cpp) compute them: forward over
// reverse, one Hessian row per i, the direction d_input an
// __enzyme_todense pointer whose loads are the unit vector e_i
// (ident_load), the gradient's buffer enzyme_dupnoneed (double *)0x1 and
// its tangent an __enzyme_todense pointer whose stores append (row, col,
// value) triplets (sparse_store).  In the ring the input itself is an
// __enzyme_todense pointer too (mod_load: x[N] is x[0]).  The triplets,
// summed per entry, are checked against central finite differences of the
// analytic gradient (long double); the store functions of read-only
// pointers must never run.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#define RC_OWN_PROTOTYPE
#include "rev_check.h"

template <typename Return, typename... T> Return __enzyme_autodiff(void *, T...);
template <typename Return, typename... T> Return __enzyme_fwddiff(void *, T...);
template <typename Return, typename... T> Return __enzyme_todense(T...);

constexpr int kMax = 16;

// outside the anonymous namespace: __enzyme_todense, declared here only,
// takes a pointer to it
struct Triplets {
  int n;
  long row[kMax * kMax * 8], col[kMax * kMax * 8];
  double val[kMax * kMax * 8];
};

namespace {

int never_stores; // stores through read-only todense pointers

__attribute__((always_inline)) double ident_load(int64_t off, size_t i) {
  return (double)(off / (int64_t)sizeof(double) == (int64_t)i);
}
// the ring's x[N] is x[0]: its direction too
__attribute__((always_inline)) double ring_ident_load(int64_t off, size_t i,
                                                      size_t n) {
  int64_t k = off / (int64_t)sizeof(double);
  return (double)((k != (int64_t)n && k == (int64_t)i) ||
                  (k == (int64_t)n && i == 0));
}
__attribute__((always_inline)) void ident_store(double, int64_t, size_t) {
  never_stores++;
}
__attribute__((always_inline)) void ring_ident_store(double, int64_t, size_t,
                                                     size_t) {
  never_stores++;
}
__attribute__((always_inline)) double mod_load(int64_t off, double *x,
                                               size_t n) {
  return x[(off / (int64_t)sizeof(double)) % (int64_t)n];
}
__attribute__((always_inline)) void mod_store(double, int64_t, double *,
                                              size_t) {
  never_stores++;
}
__attribute__((noinline)) void append(long row, long col, double v,
                                      Triplets *t) {
  if (t->n < kMax * kMax * 8) {
    t->row[t->n] = row, t->col[t->n] = col, t->val[t->n] = v;
    t->n++;
  }
}
__attribute__((always_inline)) void sparse_store(double v, int64_t off,
                                                 size_t i, Triplets *t) {
  if (v == 0.0)
    return;
  append((long)i, (long)(off / (int64_t)sizeof(double)), v, t);
}
__attribute__((always_inline)) double sparse_load(int64_t, size_t,
                                                  Triplets *) {
  return 0.0;
}

// ---- sqrtspring: a chain, sum (sqrt(x[i+1] - x[i]) + 1)^2
template <typename T> T chain(size_t n, T *x) {
  T out = 0;
  for (size_t i = 0; i + 1 < n; i++) {
    T d = x[i + 1] - x[i];
    out += (std::sqrt(d) + 1) * (std::sqrt(d) + 1);
  }
  return out;
}
template <typename T> void grad_chain(size_t n, T *x, T *dx) {
  __enzyme_autodiff<void>((void *)chain<T>, enzyme_const, n, enzyme_dup, x,
                          dx);
}
__attribute__((noinline)) void hess_chain(size_t n, double *x, Triplets *t) {
  for (size_t i = 0; i < n; i++) {
    double *d_x =
        __enzyme_todense<double *>((void *)ident_load, (void *)ident_store, i);
    double *d_dx = __enzyme_todense<double *>(
        (void *)sparse_load, (void *)sparse_store, i, t);
    __enzyme_fwddiff<void>((void *)grad_chain<double>, enzyme_const, n,
                           enzyme_dup, x, d_x, enzyme_dupnoneed,
                           (double *)0x1, d_dx);
  }
}
void chain_gradient(const long double *x, int n, long double *g) {
  for (int i = 0; i < n; i++)
    g[i] = 0;
  for (int i = 0; i + 1 < n; i++) {
    long double d = x[i + 1] - x[i], s = sqrtl(d);
    long double c = (s + 1) / s; // d/dd (s + 1)^2
    g[i + 1] += c, g[i] -= c;
  }
}

// ---- ringspring: a ring, sum (sqrt((x[i+1] - x[i])^2) - 1)^2 over
// i < N, x[N] read as x[0] through the input's own todense pointer
template <typename T> T ring(size_t n, T *x) {
  T out = 0;
  for (size_t i = 0; i < n; i++) {
    T sub = (x[i + 1] - x[i]) * (x[i + 1] - x[i]);
    out += (std::sqrt(sub) - 1) * (std::sqrt(sub) - 1);
  }
  return out;
}
template <typename T> void grad_ring(size_t n, T *x, T *dx) {
  __enzyme_autodiff<void>((void *)ring<T>, enzyme_const, n, enzyme_dup, x,
                          dx);
}
__attribute__((noinline)) void hess_ring(size_t n, double *x, Triplets *t) {
  double *in = __enzyme_todense<double *>((void *)mod_load, (void *)mod_store,
                                          x, n);
  for (size_t i = 0; i < n; i++) {
    double *d_x = __enzyme_todense<double *>(
        (void *)ring_ident_load, (void *)ring_ident_store, i, n);
    double *d_dx = __enzyme_todense<double *>(
        (void *)sparse_load, (void *)sparse_store, i, t);
    __enzyme_fwddiff<void>((void *)grad_ring<double>, enzyme_const, n,
                           enzyme_dup, in, d_x, enzyme_dupnoneed,
                           (double *)0x1, d_dx);
  }
}
void ring_gradient(const long double *x, int n, long double *g) {
  for (int i = 0; i < n; i++)
    g[i] = 0;
  for (int i = 0; i < n; i++) {
    int j = (i + 1) % n;
    long double d = x[j] - x[i], r = fabsl(d);
    long double c = 2 * (r - 1) * (d / r);
    g[j] += c, g[i] -= c;
  }
}

// ---- ringspring2Dextenddata: points (x[2i], x[2i+1]), springs of rest
// length 0 from point i to i+1 over i < N, the data extended by a copy
// of point 0 (its own two coordinates)
template <typename T> T ring2d(size_t n, T *pos) {
  T e = 0;
  for (size_t i = 0; i < n; i++) {
    T vx = pos[2 * i], vy = pos[2 * i + 1];
    T wx = pos[2 * i + 2], wy = pos[2 * i + 3];
    e += (wx - vx) * (wx - vx) + (wy - vy) * (wy - vy);
  }
  return e;
}
template <typename T> void grad_ring2d(size_t n, T *x, T *dx) {
  __enzyme_autodiff<void>((void *)ring2d<T>, enzyme_const, n, enzyme_dup, x,
                          dx);
}
__attribute__((noinline)) void hess_ring2d(size_t n, double *x, Triplets *t) {
  for (size_t i = 0; i < 2 * n + 2; i++) {
    double *d_x =
        __enzyme_todense<double *>((void *)ident_load, (void *)ident_store, i);
    double *d_dx = __enzyme_todense<double *>(
        (void *)sparse_load, (void *)sparse_store, i, t);
    __enzyme_fwddiff<void>((void *)grad_ring2d<double>, enzyme_const, n,
                           enzyme_dup, x, d_x, enzyme_dupnoneed,
                           (double *)0x1, d_dx);
  }
}
void ring2d_gradient(const long double *x, int dim, long double *g) {
  int n = (dim - 2) / 2;
  for (int i = 0; i < dim; i++)
    g[i] = 0;
  for (int i = 0; i < n; i++)
    for (int c = 0; c < 2; c++) {
      long double d = x[2 * i + 2 + c] - x[2 * i + c];
      g[2 * i + 2 + c] += 2 * d, g[2 * i + c] -= 2 * d;
    }
}

typedef void (*gradient_fn)(const long double *, int, long double *);

// The triplets summed per entry (columns modulo `wrap`: the ring's x[N]
// is x[0]) against central differences of the gradient, row by row.
void check(const char *name, const Triplets *t, gradient_fn grad,
           const double *x0, int dim, int wrap) {
  static long double h[kMax * 2 + 2][kMax * 2 + 2];
  for (int i = 0; i < dim; i++)
    for (int j = 0; j < dim; j++)
      h[i][j] = 0;
  int bad = 0;
  for (int k = 0; k < t->n; k++) {
    long r = t->row[k], c = t->col[k] % wrap;
    if (r < 0 || r >= dim || c < 0 || c >= dim) {
      bad = 1;
      continue;
    }
    h[r][c] += t->val[k];
  }
  char label[96];
  snprintf(label, sizeof label, "%s: triplets inside the matrix", name);
  rc_expect(label, bad, 0, 0);
  const long double step = 1e-6L;
  for (int i = 0; i < dim; i++) {
    long double up[kMax * 2 + 2], down[kMax * 2 + 2];
    long double gu[kMax * 2 + 2], gd[kMax * 2 + 2];
    for (int j = 0; j < dim; j++)
      up[j] = down[j] = x0[j];
    up[i] += step, down[i] -= step;
    grad(up, dim, gu);
    grad(down, dim, gd);
    for (int j = 0; j < dim; j++) {
      long double want = (gu[j] - gd[j]) / (2 * step);
      snprintf(label, sizeof label, "%s: H[%d][%d]", name, i, j);
      rc_expect(label, h[i][j], want, 1e-6L * (1 + fabsl(want)));
    }
  }
}

Triplets chain_t, ring_t, ring2d_t;

} // namespace

int main() {
  const int n = 8;
  double x[kMax * 2 + 2];
  for (int i = 0; i < n; i++)
    x[i] = (i + 1) * (i + 1); // increasing: the chain's sqrt is defined
  hess_chain(n, x, &chain_t);
  check("chain", &chain_t, chain_gradient, x, n, n + 1);

  for (int i = 0; i < n; i++)
    x[i] = 0.7 * i + 0.3 * std::sin(1.3 * i); // no two neighbours equal
  x[n - 1] = -2.5;
  hess_ring(n, x, &ring_t);
  check("ring", &ring_t, ring_gradient, x, n, n);

  const int points = 6, dim = 2 * points + 2;
  for (int i = 0; i < points; i++) {
    double a = 2 * M_PI * i / points;
    x[2 * i] = std::cos(a) + 0.1 * i, x[2 * i + 1] = std::sin(a);
  }
  x[2 * points] = x[0], x[2 * points + 1] = x[1];
  hess_ring2d(points, x, &ring2d_t);
  check("ring 2-D", &ring2d_t, ring2d_gradient, x, dim, dim + 1);

  rc_expect("store functions of read-only pointers ran", never_stores, 0, 0);
  return rc_result();
}

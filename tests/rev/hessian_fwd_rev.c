/* Hessians as users write them: forward over reverse, __enzyme_fwddiff of
 * a gradient function that itself calls __enzyme_autodiff, gives H v (a
 * Hessian column for v = e_k); reverse over forward, __enzyme_autodiff of
 * a directional derivative written with __enzyme_fwddiff, gives H v too.
 * Three energies: a 2-D ring of springs (sqrt of squared lengths),
 * Rosenbrock's function, a small MLP's squared loss over fixed data.
 * Every column and one general direction are checked against central
 * finite differences of the analytic gradient (long double); the
 * gradient's buffer and its tangent start nonzero, so both the primal's
 * and the tangent's += accumulation are tested.  Forward over reverse runs
 * a second time with the gradient's buffer enzyme_dupnoneed and its primal
 * (double *)0x1, as Enzyme's Sparse programs pass it: the inner gradient's
 * primal `dx[k] +=` is left out and only the tangent is written. */
#include <math.h>
#include <string.h>
#include "rev_check.h"

void __enzyme_fwddiff(void *, ...);
double __enzyme_fwddiff_directional(void *, ...);

#define MAXN 16

/* ---- a ring of springs in 2-D: points (x[2i], x[2i+1]), spring i joins
 * point i to point i+1 (mod NP), rest length REST */
#define NP 5
#define NRING (2 * NP)
#define REST 1.0

static double ring_energy(const double *x, int n) {
  int np = n / 2;
  double e = 0;
  for (int i = 0; i < np; i++) {
    int j = (i + 1) % np;
    double dx = x[2 * j] - x[2 * i], dy = x[2 * j + 1] - x[2 * i + 1];
    double s = sqrt(dx * dx + dy * dy) - REST;
    e += s * s;
  }
  return e;
}

static void ring_gradient_exact(const long double *x, int n, long double *g) {
  int np = n / 2;
  for (int i = 0; i < n; i++)
    g[i] = 0;
  for (int i = 0; i < np; i++) {
    int j = (i + 1) % np;
    long double dx = x[2 * j] - x[2 * i], dy = x[2 * j + 1] - x[2 * i + 1];
    long double r = sqrtl(dx * dx + dy * dy);
    long double c = 2 * (r - REST) / r;
    g[2 * j] += c * dx, g[2 * j + 1] += c * dy;
    g[2 * i] -= c * dx, g[2 * i + 1] -= c * dy;
  }
}

/* ---- Rosenbrock's function in NROS dimensions */
#define NROS 6

static double rosenbrock(const double *x, int n) {
  double e = 0;
  for (int i = 0; i + 1 < n; i++) {
    double a = x[i + 1] - x[i] * x[i], b = 1 - x[i];
    e += 100 * a * a + b * b;
  }
  return e;
}

static void rosenbrock_gradient_exact(const long double *x, int n,
                                      long double *g) {
  for (int i = 0; i < n; i++)
    g[i] = 0;
  for (int i = 0; i + 1 < n; i++) {
    long double a = x[i + 1] - x[i] * x[i];
    g[i] += -400 * a * x[i] - 2 * (1 - x[i]);
    g[i + 1] += 200 * a;
  }
}

/* ---- an MLP with one tanh hidden layer: parameters W (HID x IN), b (HID),
 * w2 (HID), c; squared loss over NDATA fixed samples */
#define IN 2
#define HID 3
#define NDATA 3
#define NMLP (HID * IN + 2 * HID + 1)

static const double data_x[NDATA][IN] = {{0.5, -1.0}, {1.5, 0.25}, {-0.75, 0.8}};
static const double data_y[NDATA] = {0.3, -0.6, 0.9};

static double mlp_loss(const double *p, int n) {
  (void)n;
  const double *w = p, *b = p + HID * IN, *w2 = b + HID, *c = w2 + HID;
  double loss = 0;
  for (int m = 0; m < NDATA; m++) {
    double out = *c;
    for (int h = 0; h < HID; h++) {
      double z = b[h];
      for (int i = 0; i < IN; i++)
        z += w[h * IN + i] * data_x[m][i];
      out += w2[h] * tanh(z);
    }
    double e = out - data_y[m];
    loss += 0.5 * e * e;
  }
  return loss;
}

static void mlp_gradient_exact(const long double *p, int n, long double *g) {
  const long double *w = p, *b = p + HID * IN, *w2 = b + HID, *c = w2 + HID;
  for (int i = 0; i < n; i++)
    g[i] = 0;
  for (int m = 0; m < NDATA; m++) {
    long double a[HID], out = *c;
    for (int h = 0; h < HID; h++) {
      long double z = b[h];
      for (int i = 0; i < IN; i++)
        z += w[h * IN + i] * data_x[m][i];
      a[h] = tanhl(z);
      out += w2[h] * a[h];
    }
    long double e = out - data_y[m];
    g[n - 1] += e;
    for (int h = 0; h < HID; h++) {
      long double dz = e * w2[h] * (1 - a[h] * a[h]);
      g[HID * IN + HID + h] += e * a[h];
      g[HID * IN + h] += dz;
      for (int i = 0; i < IN; i++)
        g[h * IN + i] += dz * data_x[m][i];
    }
  }
}

/* The gradient and Hessian functions of one energy, as a user writes them:
 * grad adds the gradient into dx (its caller zeroes or seeds it), hvp is
 * forward over reverse, dir the directional derivative reverse mode then
 * differentiates. */
#define HESSIAN_FUNCTIONS(f)                                                 \
  static void grad_##f(const double *x, double *dx, int n) {                 \
    __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, n);        \
  }                                                                          \
  static void hvp_##f(const double *x, const double *v, double *dx,          \
                      double *hv, int n) {                                   \
    __enzyme_fwddiff((void *)grad_##f, enzyme_dup, x, v, enzyme_dup, dx, hv, \
                     enzyme_const, n);                                       \
  }                                                                          \
  static void hvp_noneed_##f(const double *x, const double *v, double *hv,   \
                             int n) {                                        \
    __enzyme_fwddiff((void *)grad_##f, enzyme_dup, x, v, enzyme_dupnoneed,   \
                     (double *)0x1, hv, enzyme_const, n);                    \
  }                                                                          \
  static double dir_##f(const double *x, const double *v, int n) {           \
    return __enzyme_fwddiff_directional((void *)f, enzyme_dup, x, v,         \
                                        enzyme_const, n);                    \
  }                                                                          \
  static void rof_##f(const double *x, double *hx, const double *v, int n) { \
    __enzyme_autodiff((void *)dir_##f, enzyme_dup, x, hx, enzyme_const, v,   \
                      enzyme_const, n);                                      \
  }

HESSIAN_FUNCTIONS(ring_energy)
HESSIAN_FUNCTIONS(rosenbrock)
HESSIAN_FUNCTIONS(mlp_loss)

typedef void (*gradient_exact_fn)(const long double *, int, long double *);
typedef void (*hvp_fn)(const double *, const double *, double *, double *,
                       int);
typedef void (*hvp_noneed_fn)(const double *, const double *, double *, int);
typedef void (*rof_fn)(const double *, double *, const double *, int);

/* The finite differences' scalar: v . grad(p), whose gradient is H v
 * (H is symmetric). */
static gradient_exact_fn current_exact;
static int current_n;
static double current_v[MAXN];
static long double directional_gradient(const long double *p) {
  long double g[MAXN], s = 0;
  current_exact(p, current_n, g);
  for (int i = 0; i < current_n; i++)
    s += current_v[i] * g[i];
  return s;
}

static void check_direction(const char *name, hvp_fn hvp,
                            hvp_noneed_fn hvp_noneed, rof_fn rof,
                            gradient_exact_fn exact, const double *x0, int n,
                            const double *v) {
  double x[MAXN], dx[MAXN], hv[MAXN], hx[MAXN];
  long double p[MAXN], g[MAXN], got[MAXN];
  char label[96];
  current_exact = exact, current_n = n;
  for (int i = 0; i < n; i++)
    x[i] = x0[i], p[i] = x0[i], current_v[i] = v[i];
  rc_seed(dx, n);
  for (int i = 0; i < n; i++)
    hv[i] = 2 * rc_seed_value(i + 3);

  hvp(x, v, dx, hv, n);
  for (int i = 0; i < n; i++)
    got[i] = hv[i] - 2 * rc_seed_value(i + 3);
  snprintf(label, sizeof label, "%s: forward over reverse", name);
  rc_check(label, directional_gradient, p, got, n);
  /* the primal still adds the gradient into dx */
  exact(p, n, g);
  for (int i = 0; i < n; i++) {
    snprintf(label, sizeof label, "%s: gradient entry %d", name, i);
    rc_expect(label, dx[i], rc_seed_value(i) + g[i],
              1e-11L * (1 + fabsl(g[i])));
  }

  for (int i = 0; i < n; i++)
    hv[i] = 2 * rc_seed_value(i + 5);
  hvp_noneed(x, v, hv, n);
  for (int i = 0; i < n; i++)
    got[i] = hv[i] - 2 * rc_seed_value(i + 5);
  snprintf(label, sizeof label, "%s: forward over reverse, dupnoneed", name);
  rc_check(label, directional_gradient, p, got, n);

  rc_seed(hx, n);
  rof(x, hx, v, n);
  for (int i = 0; i < n; i++)
    got[i] = hx[i] - rc_seed_value(i);
  snprintf(label, sizeof label, "%s: reverse over forward", name);
  rc_check(label, directional_gradient, p, got, n);
  for (int i = 0; i < n; i++) {
    snprintf(label, sizeof label, "%s: x unchanged %d", name, i);
    rc_expect(label, x[i], x0[i], 0);
  }
}

/* Every column e_k, then one general direction. */
static void check_energy(const char *name, hvp_fn hvp,
                         hvp_noneed_fn hvp_noneed, rof_fn rof,
                         gradient_exact_fn exact, const double *x0, int n) {
  double v[MAXN];
  for (int k = 0; k < n; k++) {
    memset(v, 0, sizeof v);
    v[k] = 1;
    check_direction(name, hvp, hvp_noneed, rof, exact, x0, n, v);
  }
  for (int i = 0; i < n; i++)
    v[i] = 0.5 - 0.3 * (i % 4) + 0.1 * i;
  check_direction(name, hvp, hvp_noneed, rof, exact, x0, n, v);
}

int main(void) {
  double ring[NRING];
  for (int i = 0; i < NP; i++) {
    double t = 6.283185307179586 * i / NP;
    ring[2 * i] = 1.3 * cos(t) + 0.05 * i;
    ring[2 * i + 1] = 0.9 * sin(t) - 0.03 * i * i;
  }
  double ros[NROS] = {-1.2, 1.0, 0.7, -0.4, 1.1, 0.3};
  double mlp[NMLP];
  for (int i = 0; i < NMLP; i++)
    mlp[i] = 0.4 * sin(1.7 * i + 0.3) + 0.1;

  check_energy("ring of springs", hvp_ring_energy, hvp_noneed_ring_energy,
               rof_ring_energy, ring_gradient_exact, ring, NRING);
  check_energy("rosenbrock", hvp_rosenbrock, hvp_noneed_rosenbrock,
               rof_rosenbrock, rosenbrock_gradient_exact, ros, NROS);
  check_energy("mlp loss", hvp_mlp_loss, hvp_noneed_mlp_loss, rof_mlp_loss,
               mlp_gradient_exact, mlp, NMLP);
  return rc_result();
}

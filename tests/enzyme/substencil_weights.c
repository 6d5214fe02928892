/*
 * Enzyme ForwardMode/substencil_weights.c: WENO5-JS, WENO5-Z and TENO5
 * face reconstructions.  All three reduce to the optimal fifth-order stencil
 * on a linear profile; WENO5-JS is smooth (AD agrees with a central
 * difference); WENO5-Z sits exactly on the |beta0 - beta2| kink for a
 * symmetric stencil (AD gives one one-sided slope exactly, a central
 * difference their mean); TENO5's cutoff makes the weights piecewise
 * constant, so inside a branch its gradient is the frozen-weight stencil.
 */
#include "enzyme_compat.h"
#include "rel_error.h"

#define NSTENCIL 5

#define TENO_CT 1.0e-5
#define EPS_TENO 1.0e-40
#define EPS_WENOZ 1.0e-40
#define EPS_WENOJS 1.0e-6

static const double d_opt[3] = {0.1, 0.6, 0.3};

static const double sub_coeff[9] = {
    1.0 / 3.0,  -7.0 / 6.0, 11.0 / 6.0,
    -1.0 / 6.0, 5.0 / 6.0,  1.0 / 3.0,
    1.0 / 3.0,  5.0 / 6.0,  -1.0 / 6.0,
};

static const double optimal[NSTENCIL] = {1.0 / 30.0, -13.0 / 60.0, 47.0 / 60.0,
                                         9.0 / 20.0, -1.0 / 20.0};

void smoothness(const double *v, double *beta) {
  double a0 = v[0] - 2.0 * v[1] + v[2];
  double b0 = v[0] - 4.0 * v[1] + 3.0 * v[2];
  double a1 = v[1] - 2.0 * v[2] + v[3];
  double b1 = v[1] - v[3];
  double a2 = v[2] - 2.0 * v[3] + v[4];
  double b2 = 3.0 * v[2] - 4.0 * v[3] + v[4];

  beta[0] = (13.0 / 12.0) * a0 * a0 + 0.25 * b0 * b0;
  beta[1] = (13.0 / 12.0) * a1 * a1 + 0.25 * b1 * b1;
  beta[2] = (13.0 / 12.0) * a2 * a2 + 0.25 * b2 * b2;
}

void candidates(const double *v, double *f) {
  f[0] = sub_coeff[0] * v[0] + sub_coeff[1] * v[1] + sub_coeff[2] * v[2];
  f[1] = sub_coeff[3] * v[1] + sub_coeff[4] * v[2] + sub_coeff[5] * v[3];
  f[2] = sub_coeff[6] * v[2] + sub_coeff[7] * v[3] + sub_coeff[8] * v[4];
}

double normalise(const double *w, const double *f) {
  return (w[0] * f[0] + w[1] * f[1] + w[2] * f[2]) / (w[0] + w[1] + w[2]);
}

double weno5js(const double *v) {
  double beta[3], f[3], w[3];
  smoothness(v, beta);
  candidates(v, f);
  for (int k = 0; k < 3; k++) {
    double den = beta[k] + EPS_WENOJS;
    w[k] = d_opt[k] / (den * den);
  }
  return normalise(w, f);
}

double weno5z_branch(const double *v, double sign) {
  double beta[3], f[3], w[3];
  smoothness(v, beta);
  candidates(v, f);
  double tau5 = sign * (beta[0] - beta[2]);
  for (int k = 0; k < 3; k++)
    w[k] = d_opt[k] * (1.0 + tau5 / (beta[k] + EPS_WENOZ));
  return normalise(w, f);
}

double weno5z(const double *v) {
  double beta[3], f[3], w[3];
  smoothness(v, beta);
  candidates(v, f);
  double tau5 = fabs(beta[0] - beta[2]);
  for (int k = 0; k < 3; k++)
    w[k] = d_opt[k] * (1.0 + tau5 / (beta[k] + EPS_WENOZ));
  return normalise(w, f);
}

void teno5_cutoff(const double *v, double *delta) {
  double beta[3], g[3];
  smoothness(v, beta);
  double tau5 = fabs(beta[0] - beta[2]);

  double sum = 0.0;
  for (int k = 0; k < 3; k++) {
    double x = 1.0 + tau5 / (beta[k] + EPS_TENO);
    double x3 = x * x * x;
    g[k] = x3 * x3;
    sum += g[k];
  }
  for (int k = 0; k < 3; k++)
    delta[k] = (g[k] / sum < TENO_CT) ? 0.0 : 1.0;
}

double teno5(const double *v) {
  double delta[3], f[3], w[3];
  teno5_cutoff(v, delta);
  candidates(v, f);
  for (int k = 0; k < 3; k++)
    w[k] = delta[k] * d_opt[k];

  double sum = w[0] + w[1] + w[2];
  if (sum < EPS_TENO)
    return f[1];
  return (w[0] * f[0] + w[1] * f[1] + w[2] * f[2]) / sum;
}

#define DEFINE_GRADIENT(NAME, SCHEME)                                          \
  void NAME(const double *v, double *g) {                                      \
    double dv[NSTENCIL];                                                       \
    for (int col = 0; col < NSTENCIL; col++) {                                 \
      for (int i = 0; i < NSTENCIL; i++)                                       \
        dv[i] = 0.0;                                                           \
      dv[col] = 1.0;                                                           \
      g[col] = __enzyme_fwddiff((void *)SCHEME, enzyme_dup, v, dv);            \
    }                                                                          \
  }

DEFINE_GRADIENT(weno5js_gradient, weno5js)
DEFINE_GRADIENT(weno5z_gradient, weno5z)
DEFINE_GRADIENT(teno5_gradient, teno5)

void weno5z_branch_gradient(const double *v, double sign, double *g) {
  double dv[NSTENCIL];
  for (int col = 0; col < NSTENCIL; col++) {
    for (int i = 0; i < NSTENCIL; i++)
      dv[i] = 0.0;
    dv[col] = 1.0;
    g[col] = __enzyme_fwddiff((void *)weno5z_branch, enzyme_dup, v, dv,
                              enzyme_const, sign);
  }
}

typedef double (*Scheme)(const double *);

void fd_gradient(Scheme q, const double *v, double h, double *g) {
  double vp[NSTENCIL], vm[NSTENCIL];
  for (int col = 0; col < NSTENCIL; col++) {
    for (int i = 0; i < NSTENCIL; i++) {
      vp[i] = v[i];
      vm[i] = v[i];
    }
    vp[col] += h;
    vm[col] -= h;
    g[col] = (q(vp) - q(vm)) / (2.0 * h);
  }
}

void teno5_frozen_gradient(const double *v, double *g) {
  double delta[3];
  teno5_cutoff(v, delta);

  double w[3], sum = 0.0;
  for (int k = 0; k < 3; k++) {
    w[k] = delta[k] * d_opt[k];
    sum += w[k];
  }

  for (int j = 0; j < NSTENCIL; j++)
    g[j] = 0.0;
  if (sum < EPS_TENO) {
    g[1] = sub_coeff[3];
    g[2] = sub_coeff[4];
    g[3] = sub_coeff[5];
    return;
  }
  for (int k = 0; k < 3; k++)
    for (int c = 0; c < 3; c++)
      g[k + c] += (w[k] / sum) * sub_coeff[3 * k + c];
}

void step_profile(double s, double *v) {
  for (int j = 0; j < NSTENCIL; j++)
    v[j] = sin(0.7 * (double)j) + (j >= 3 ? s : 0.0);
}

int main(void) {
  double g[NSTENCIL], g2[NSTENCIL], fd[NSTENCIL];

  {
    double linear[NSTENCIL];
    for (int j = 0; j < NSTENCIL; j++)
      linear[j] = 3.0 + 2.0 * (double)j;

    weno5js_gradient(linear, g);
    APPROX_EQ(frechet_rel_error(g, optimal, NSTENCIL), 0.0, 1e-14);
    weno5z_gradient(linear, g);
    APPROX_EQ(frechet_rel_error(g, optimal, NSTENCIL), 0.0, 1e-14);
    teno5_gradient(linear, g);
    APPROX_EQ(frechet_rel_error(g, optimal, NSTENCIL), 0.0, 1e-14);
  }

  {
    double v[NSTENCIL];
    for (int j = 0; j < NSTENCIL; j++)
      v[j] = sin(0.7 * (double)j);

    weno5js_gradient(v, g);
    fd_gradient(weno5js, v, 1e-6, fd);
    APPROX_EQ(frechet_rel_error(fd, g, NSTENCIL), 0.0, 1e-8);
  }

  {
    double v[NSTENCIL] = {1.0, 0.0, 1.0, 0.0, 1.0};
    double beta[3];
    smoothness(v, beta);
    APPROX_EQ(beta[0] - beta[2], 0.0, 0.0);

    double plus[NSTENCIL], minus[NSTENCIL], mean[NSTENCIL];
    weno5z_gradient(v, g);
    weno5z_branch_gradient(v, 1.0, plus);
    weno5z_branch_gradient(v, -1.0, minus);
    for (int j = 0; j < NSTENCIL; j++)
      mean[j] = 0.5 * (plus[j] + minus[j]);

    double jump = 0.0;
    for (int j = 0; j < NSTENCIL; j++) {
      double diff = fabs(plus[j] - minus[j]);
      if (diff > jump)
        jump = diff;
    }
    if (jump < 1e-3)
      ENZYME_COMPAT_FAIL("weno5-z: one-sided slopes agree, no kink to test");

    double to_plus = frechet_rel_error(g, plus, NSTENCIL);
    double to_minus = frechet_rel_error(g, minus, NSTENCIL);
    if (!(to_plus <= 1e-14) && !(to_minus <= 1e-14))
      ENZYME_COMPAT_FAIL("weno5-z: AD matched neither one-sided limit");

    fd_gradient(weno5z, v, 1e-6, fd);
    APPROX_EQ(frechet_rel_error(fd, mean, NSTENCIL), 0.0, 1e-5);
    if (frechet_rel_error(fd, g, NSTENCIL) < 1e-3)
      ENZYME_COMPAT_FAIL("weno5-z: FD agreed with AD at the kink");
  }

  {
    const double amplitudes[] = {0.0, 0.2, 0.35, 0.8, 1.5, 3.0};
    const int n = sizeof(amplitudes) / sizeof(amplitudes[0]);

    for (int i = 0; i < n; i++) {
      double v[NSTENCIL];
      step_profile(amplitudes[i], v);
      teno5_gradient(v, g);
      teno5_frozen_gradient(v, g2);
      APPROX_EQ(frechet_rel_error(g, g2, NSTENCIL), 0.0, 1e-14);
    }
  }

  {
    double lo = 0.20, hi = 1.00;
    double v[NSTENCIL], delta[3];

    step_profile(lo, v);
    teno5_cutoff(v, delta);
    double delta2_lo = delta[2];
    step_profile(hi, v);
    teno5_cutoff(v, delta);
    if (delta2_lo == delta[2])
      ENZYME_COMPAT_FAIL("teno5: no cutoff crossing bracketed");

    for (int it = 0; it < 200; it++) {
      double mid = 0.5 * (lo + hi);
      step_profile(mid, v);
      teno5_cutoff(v, delta);
      if (delta[2] == delta2_lo)
        lo = mid;
      else
        hi = mid;
    }

    double vlo[NSTENCIL], vhi[NSTENCIL];
    step_profile(lo, vlo);
    step_profile(hi, vhi);
    if (fabs(teno5(vhi) - teno5(vlo)) < 1e-3)
      ENZYME_COMPAT_FAIL("teno5: cutoff crossing is not discontinuous");

    teno5_gradient(vlo, g);
    teno5_frozen_gradient(vlo, g2);
    APPROX_EQ(frechet_rel_error(g, g2, NSTENCIL), 0.0, 1e-14);

    fd_gradient(teno5, vlo, 0.05, fd);
    if (frechet_rel_error(fd, g, NSTENCIL) < 0.1)
      ENZYME_COMPAT_FAIL("teno5: straddling FD tracked AD");
  }
  return enzyme_compat_result();
}

/*
 * Compressible Euler physics, the input of Enzyme's euler_homogeneity and
 * flux_consistency tests (enzyme/test/Integration/euler.h), kept as Enzyme
 * defines it: the functions are what gets differentiated.
 *
 * State U = (rho, rho u, rho v, rho w, rho E); stiffened-gas closure
 * p = (gamma - 1)(rho E - rho |u|^2 / 2) - gamma p_inf, ideal when p_inf = 0.
 */
#ifndef TANJIT_TESTS_EULER_H
#define TANJIT_TESTS_EULER_H

#include <math.h>

enum { RHO = 0, RHOU = 1, RHOV = 2, RHOW = 3, RHOE = 4, NVARS = 5 };

typedef struct {
  double gamma;
  double p_inf;
} EulerEos;

double euler_pressure(const double *U, const EulerEos *eos) {
  double inv = 1.0 / U[RHO];
  double ke =
      0.5 * inv * (U[RHOU] * U[RHOU] + U[RHOV] * U[RHOV] + U[RHOW] * U[RHOW]);
  return (eos->gamma - 1.0) * (U[RHOE] - ke) - eos->gamma * eos->p_inf;
}

double euler_sound_speed(const double *U, const EulerEos *eos) {
  double p = euler_pressure(U, eos);
  return sqrt(eos->gamma * (p + eos->p_inf) / U[RHO]);
}

double euler_normal_velocity(const double *U, const double *n) {
  return (U[RHOU] * n[0] + U[RHOV] * n[1] + U[RHOW] * n[2]) / U[RHO];
}

void euler_flux(const double *U, const double *n, const EulerEos *eos,
                double *F) {
  double un = euler_normal_velocity(U, n);
  double p = euler_pressure(U, eos);
  F[RHO] = U[RHO] * un;
  F[RHOU] = U[RHOU] * un + p * n[0];
  F[RHOV] = U[RHOV] * un + p * n[1];
  F[RHOW] = U[RHOW] * un + p * n[2];
  F[RHOE] = (U[RHOE] + p) * un;
}

void euler_from_primitive(double rho, double u, double v, double w, double p,
                          const EulerEos *eos, double *U) {
  U[RHO] = rho;
  U[RHOU] = rho * u;
  U[RHOV] = rho * v;
  U[RHOW] = rho * w;
  U[RHOE] = (p + eos->gamma * eos->p_inf) / (eos->gamma - 1.0) +
            0.5 * rho * (u * u + v * v + w * w);
}

/* Primitive states (rho, u, v, w, p) spanning a hypersonic solver's range. */
#define EULER_NSTATES 4
const double euler_primitives[EULER_NSTATES][5] = {
    {1.225, 50.0, 10.0, -5.0, 101325.0},
    {0.0184, 2400.0, 60.0, 0.0, 1197.0},
    {0.1400, 300.0, -120.0, 45.0, 1.6e5},
    {1.0e-3, 1500.0, 0.0, -200.0, 25.0},
};

/* Unit face normals: axis-aligned, oblique, fully three-dimensional. */
#define EULER_NNORMALS 3
const double euler_normals[EULER_NNORMALS][3] = {
    {1.0, 0.0, 0.0},
    {0.6, -0.8, 0.0},
    {0.4242640687119285, 0.5656854249492380, -0.7071067811865476},
};

#endif

/*
 * Thermally perfect two-species thermodynamics and its Newton temperature
 * inversion, the input of Enzyme's newton_inversion test
 * (enzyme/test/Integration/thermo.h), kept as Enzyme defines it.
 *
 * e_s(T) = R_s (5/2 T + theta_s / (exp(theta_s / T) - 1)); implicit
 * differentiation of e_mix(T, Y) = e gives dT/de = 1 / cv and
 * dT/dY_s = -e_s(T) / cv, whatever path the iteration took.
 */
#ifndef TANJIT_TESTS_THERMO_H
#define TANJIT_TESTS_THERMO_H

#include <math.h>

#define NSPECIES 2

#define THERMO_T_MIN 50.0
#define THERMO_T_MAX 50000.0
#define THERMO_MAX_ITER 50
#define THERMO_REL_TOL 1.0e-6
#define THERMO_CV_FLOOR 1.0e-8

/* N2 and O2: gas constant [J/(kg K)], vibrational temperature [K]. */
const double thermo_R[NSPECIES] = {296.8035, 259.8367};
const double thermo_theta[NSPECIES] = {3395.0, 2239.0};

double thermo_energy_species(int s, double T) {
  double x = thermo_theta[s] / T;
  return thermo_R[s] * (2.5 * T + thermo_theta[s] / (exp(x) - 1.0));
}

double thermo_cv_species(int s, double T) {
  double x = thermo_theta[s] / T;
  double ex = exp(x);
  double den = ex - 1.0;
  return thermo_R[s] * (2.5 + x * x * ex / (den * den));
}

double thermo_energy(double T, const double *Y) {
  double e = 0.0;
  for (int s = 0; s < NSPECIES; s++)
    e += Y[s] * thermo_energy_species(s, T);
  return e;
}

double thermo_cv(double T, const double *Y) {
  double cv = 0.0;
  for (int s = 0; s < NSPECIES; s++)
    cv += Y[s] * thermo_cv_species(s, T);
  return cv;
}

/* Where the convergence test sits relative to the Newton update: the same
 * primal, different tangents (the last step collapses the tangent). */
#define THERMO_TEST_AFTER_UPDATE 0
#define THERMO_TEST_BEFORE_UPDATE 1

double thermo_temperature(double e_target, const double *Y, double T_guess,
                          int test_before_update, int polish) {
  double T = fmax(T_guess, 100.0);

  for (int iter = 0; iter < THERMO_MAX_ITER; iter++) {
    double res = thermo_energy(T, Y) - e_target;
    double cv = thermo_cv(T, Y);
    if (cv < THERMO_CV_FLOOR)
      break;

    double dT = res / cv;
    if (test_before_update && fabs(dT) < THERMO_REL_TOL * T)
      break;

    T -= dT;
    T = fmax(T, THERMO_T_MIN);
    T = fmin(T, THERMO_T_MAX);

    if (!test_before_update && fabs(dT) < THERMO_REL_TOL * T)
      break;
  }

  if (polish) {
    double cv = thermo_cv(T, Y);
    if (cv >= THERMO_CV_FLOOR) {
      T -= (thermo_energy(T, Y) - e_target) / cv;
      T = fmax(T, THERMO_T_MIN);
      T = fmin(T, THERMO_T_MAX);
    }
  }

  return T;
}

#endif

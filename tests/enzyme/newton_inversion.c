/*
 * Enzyme ForwardMode/newton_inversion.c: forward mode through a Newton solve
 * with a data-dependent trip count, early exits and clamps.  The implicit
 * function theorem fixes the answer: dT/de = 1/cv, dT/dY_s = -e_s/cv, and
 * dT/dT_guess = 0 to machine precision.  Testing convergence before the
 * update leaves a measurably stale tangent (gated as an inequality); a
 * polishing step repairs it; on the clamps the tangent is exactly zero.
 */
#include "enzyme_compat.h"
#include "thermo.h"

double dT_denergy(double e_target, const double *Y, double T_guess,
                  int test_before_update, int polish) {
  return __enzyme_fwddiff((void *)thermo_temperature, e_target, 1.0,
                          enzyme_const, Y, enzyme_const, T_guess, enzyme_const,
                          test_before_update, enzyme_const, polish);
}

double dT_dmassfraction(double e_target, const double *Y, double T_guess,
                        int test_before_update, int polish, int s) {
  double dY[NSPECIES];
  for (int i = 0; i < NSPECIES; i++)
    dY[i] = 0.0;
  dY[s] = 1.0;

  return __enzyme_fwddiff((void *)thermo_temperature, e_target, 0.0, enzyme_dup,
                          Y, dY, enzyme_const, T_guess, enzyme_const,
                          test_before_update, enzyme_const, polish);
}

double dT_dguess(double e_target, const double *Y, double T_guess,
                 int test_before_update, int polish) {
  return __enzyme_fwddiff((void *)thermo_temperature, e_target, 0.0,
                          enzyme_const, Y, T_guess, 1.0, enzyme_const,
                          test_before_update, enzyme_const, polish);
}

double rel(double got, double want) { return fabs(got - want) / fabs(want); }

int main(void) {
  const double air[NSPECIES] = {0.767, 0.233};
  const double even[NSPECIES] = {0.5, 0.5};
  const double *mixtures[2] = {air, even};

  const double temperatures[] = {200.0, 300.0, 1000.0, 3000.0, 8000.0, 15000.0};
  const int ntemp = sizeof(temperatures) / sizeof(temperatures[0]);

  const double T_guess = 500.0;

  double worst_stale = 0.0;

  for (int m = 0; m < 2; m++) {
    const double *Y = mixtures[m];

    for (int t = 0; t < ntemp; t++) {
      double T_ref = temperatures[t];
      double e_target = thermo_energy(T_ref, Y);

      double T =
          thermo_temperature(e_target, Y, T_guess, THERMO_TEST_AFTER_UPDATE, 0);
      APPROX_EQ(rel(T, T_ref), 0.0, 1e-12);

      double cv = thermo_cv(T, Y);
      double want = 1.0 / cv;

      double after =
          dT_denergy(e_target, Y, T_guess, THERMO_TEST_AFTER_UPDATE, 0);
      double before =
          dT_denergy(e_target, Y, T_guess, THERMO_TEST_BEFORE_UPDATE, 0);
      double repaired =
          dT_denergy(e_target, Y, T_guess, THERMO_TEST_BEFORE_UPDATE, 1);

      double T_stale = thermo_temperature(e_target, Y, T_guess,
                                          THERMO_TEST_BEFORE_UPDATE, 0);

      APPROX_EQ(rel(after, want), 0.0, 1e-13);
      APPROX_EQ(rel(repaired, want), 0.0, 1e-13);
      APPROX_EQ(rel(T_stale, T_ref), 0.0, 1e-7);

      if (rel(before, want) > worst_stale)
        worst_stale = rel(before, want);

      for (int s = 0; s < NSPECIES; s++) {
        double got = dT_dmassfraction(e_target, Y, T_guess,
                                      THERMO_TEST_AFTER_UPDATE, 0, s);
        APPROX_EQ(rel(got, -thermo_energy_species(s, T) / cv), 0.0, 1e-11);
      }

      double dguess =
          dT_dguess(e_target, Y, T_guess, THERMO_TEST_AFTER_UPDATE, 0);
      APPROX_EQ(dguess, 0.0, 1e-13);
    }
  }

  if (worst_stale < 1.0e-9)
    ENZYME_COMPAT_FAIL("no measurably stale tangent anywhere in the sweep");

  {
    double T =
        thermo_temperature(-1.0e5, air, T_guess, THERMO_TEST_AFTER_UPDATE, 1);
    double dT = dT_denergy(-1.0e5, air, T_guess, THERMO_TEST_AFTER_UPDATE, 1);
    APPROX_EQ(T, THERMO_T_MIN, 0.0);
    APPROX_EQ(dT, 0.0, 0.0);
  }
  {
    double T =
        thermo_temperature(1.0e12, air, T_guess, THERMO_TEST_AFTER_UPDATE, 1);
    double dT = dT_denergy(1.0e12, air, T_guess, THERMO_TEST_AFTER_UPDATE, 1);
    APPROX_EQ(T, THERMO_T_MAX, 0.0);
    APPROX_EQ(dT, 0.0, 0.0);
  }
  return enzyme_compat_result();
}

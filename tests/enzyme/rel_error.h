/*
 * The relative deviation the Enzyme CFD tests (euler_homogeneity,
 * flux_consistency, guarded_normalize, substencil_weights) gate Jacobians
 * with: the largest componentwise |a - b|, measured against the largest |b|
 * (so one near-cancelling component does not dominate), or absolutely when b
 * is all zeros.
 */
#ifndef TANJIT_TESTS_REL_ERROR_H
#define TANJIT_TESTS_REL_ERROR_H

#include <math.h>

static double frechet_rel_error(const double *a, const double *b, int n)
{
  double scale = 0.0;
  for (int i = 0; i < n; i++)
    scale = fabs(b[i]) > scale ? fabs(b[i]) : scale;
  if (scale == 0.0)
    scale = 1.0;
  double worst = 0.0;
  for (int i = 0; i < n; i++) {
    double deviation = fabs(a[i] - b[i]) / scale;
    /* written so that a NaN deviation propagates and fails the gate */
    if (!(deviation <= worst))
      worst = deviation;
  }
  return worst;
}

#endif

/*
 * Enzyme ForwardMode/euler_homogeneity.c: a 5x5 Euler flux Jacobian, built
 * column by column in forward mode, gated by Euler's theorem on homogeneous
 * functions.  For an ideal gas the flux is homogeneous of degree one, so
 * A(U) U == F(U); with a stiffened gas the part -gamma p_inf (0, n, un) is of
 * degree zero, so A(U) U - F(U) == gamma p_inf (0, n, un) exactly.
 */
#include "enzyme_compat.h"
#include "euler.h"
#include "rel_error.h"

void flux_jacobian(const double *U, const double *n, const EulerEos *eos,
                   double *A) {
  double dU[NVARS], F[NVARS], dF[NVARS];

  for (int col = 0; col < NVARS; col++) {
    for (int i = 0; i < NVARS; i++)
      dU[i] = 0.0;
    dU[col] = 1.0;

    __enzyme_fwddiff((void *)euler_flux, enzyme_dup, U, dU, enzyme_const, n,
                     enzyme_const, eos, enzyme_dup, F, dF);

    for (int row = 0; row < NVARS; row++)
      A[row * NVARS + col] = dF[row];
  }
}

void matvec(const double *A, const double *x, double *y) {
  for (int row = 0; row < NVARS; row++) {
    y[row] = 0.0;
    for (int col = 0; col < NVARS; col++)
      y[row] += A[row * NVARS + col] * x[col];
  }
}

int main(void) {
  for (int s = 0; s < EULER_NSTATES; s++) {
    const double *q = euler_primitives[s];

    for (int f = 0; f < EULER_NNORMALS; f++) {
      const double *n = euler_normals[f];

      {
        EulerEos eos = {1.4, 0.0};
        double U[NVARS], F[NVARS], A[NVARS * NVARS], AU[NVARS];

        euler_from_primitive(q[0], q[1], q[2], q[3], q[4], &eos, U);
        euler_flux(U, n, &eos, F);
        flux_jacobian(U, n, &eos, A);
        matvec(A, U, AU);

        APPROX_EQ(frechet_rel_error(AU, F, NVARS), 0.0, 1e-13);
      }

      {
        EulerEos eos = {1.4, 0.5 * q[4]};
        double U[NVARS], F[NVARS], A[NVARS * NVARS], AU[NVARS];
        double deviation[NVARS], expected[NVARS];

        euler_from_primitive(q[0], q[1], q[2], q[3], q[4], &eos, U);
        euler_flux(U, n, &eos, F);
        flux_jacobian(U, n, &eos, A);
        matvec(A, U, AU);

        double gp = eos.gamma * eos.p_inf;
        double un = euler_normal_velocity(U, n);
        expected[RHO] = 0.0;
        expected[RHOU] = gp * n[0];
        expected[RHOV] = gp * n[1];
        expected[RHOW] = gp * n[2];
        expected[RHOE] = gp * un;

        for (int i = 0; i < NVARS; i++)
          deviation[i] = AU[i] - F[i];

        APPROX_EQ(frechet_rel_error(deviation, expected, NVARS), 0.0, 1e-13);
      }
    }
  }
  return enzyme_compat_result();
}

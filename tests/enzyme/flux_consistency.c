/*
 * Enzyme ForwardMode/flux_consistency.c: a consistent numerical flux has
 * Fstar(U, U, n) == F(U, n) for every U, so its two face blocks sum to the
 * physical flux Jacobian, dFstar/dUL + dFstar/dUR == A(U), whichever branch
 * the solver takes.  Rusanov sits on a tie of fmax there; HLL on a
 * supersonic face is fully upwind, so its right block is exactly zero.
 */
#include "enzyme_compat.h"
#include "euler.h"
#include "rel_error.h"

void rusanov_flux(const double *UL, const double *UR, const double *n,
                  const EulerEos *eos, double *F) {
  double FL[NVARS], FR[NVARS];
  euler_flux(UL, n, eos, FL);
  euler_flux(UR, n, eos, FR);

  double lam = fmax(fabs(euler_normal_velocity(UL, n)) +
                        euler_sound_speed(UL, eos),
                    fabs(euler_normal_velocity(UR, n)) +
                        euler_sound_speed(UR, eos));

  for (int i = 0; i < NVARS; i++)
    F[i] = 0.5 * (FL[i] + FR[i]) - 0.5 * lam * (UR[i] - UL[i]);
}

void hll_flux(const double *UL, const double *UR, const double *n,
              const EulerEos *eos, double *F) {
  double FL[NVARS], FR[NVARS];
  euler_flux(UL, n, eos, FL);
  euler_flux(UR, n, eos, FR);

  double unL = euler_normal_velocity(UL, n);
  double unR = euler_normal_velocity(UR, n);
  double cL = euler_sound_speed(UL, eos);
  double cR = euler_sound_speed(UR, eos);

  double sl = fmin(unL - cL, unR - cR);
  double sr = fmax(unL + cL, unR + cR);

  if (sl >= 0.0) {
    for (int i = 0; i < NVARS; i++)
      F[i] = FL[i];
  } else if (sr <= 0.0) {
    for (int i = 0; i < NVARS; i++)
      F[i] = FR[i];
  } else {
    double inv = 1.0 / (sr - sl);
    for (int i = 0; i < NVARS; i++)
      F[i] = (sr * FL[i] - sl * FR[i] + sl * sr * (UR[i] - UL[i])) * inv;
  }
}

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

/* Left block AL (seeding UL) and right block AR (seeding UR) of a flux. */
#define DEFINE_FACE_BLOCKS(NAME, FLUX)                                         \
  void NAME(const double *UL, const double *UR, const double *n,               \
            const EulerEos *eos, double *AL, double *AR) {                     \
    double dUL[NVARS], dUR[NVARS], F[NVARS], dF[NVARS];                        \
    for (int side = 0; side < 2; side++) {                                     \
      for (int col = 0; col < NVARS; col++) {                                  \
        for (int i = 0; i < NVARS; i++) {                                      \
          dUL[i] = 0.0;                                                        \
          dUR[i] = 0.0;                                                        \
        }                                                                      \
        (side == 0 ? dUL : dUR)[col] = 1.0;                                    \
        __enzyme_fwddiff((void *)FLUX, enzyme_dup, UL, dUL, enzyme_dup, UR,    \
                         dUR, enzyme_const, n, enzyme_const, eos, enzyme_dup,  \
                         F, dF);                                               \
        for (int row = 0; row < NVARS; row++)                                  \
          (side == 0 ? AL : AR)[row * NVARS + col] = dF[row];                  \
      }                                                                        \
    }                                                                          \
  }

DEFINE_FACE_BLOCKS(rusanov_face_blocks, rusanov_flux)
DEFINE_FACE_BLOCKS(hll_face_blocks, hll_flux)

int main(void) {
  EulerEos eos = {1.4, 0.0};

  for (int s = 0; s < EULER_NSTATES; s++) {
    const double *q = euler_primitives[s];

    for (int f = 0; f < EULER_NNORMALS; f++) {
      const double *n = euler_normals[f];

      double U[NVARS], A[NVARS * NVARS];
      double AL[NVARS * NVARS], AR[NVARS * NVARS], sum[NVARS * NVARS];
      double Fstar[NVARS], F[NVARS];

      euler_from_primitive(q[0], q[1], q[2], q[3], q[4], &eos, U);
      euler_flux(U, n, &eos, F);
      flux_jacobian(U, n, &eos, A);

      /* The primal must be consistent for the identity to mean anything. */
      rusanov_flux(U, U, n, &eos, Fstar);
      APPROX_EQ(frechet_rel_error(Fstar, F, NVARS), 0.0, 1e-14);
      hll_flux(U, U, n, &eos, Fstar);
      APPROX_EQ(frechet_rel_error(Fstar, F, NVARS), 0.0, 1e-14);

      rusanov_face_blocks(U, U, n, &eos, AL, AR);
      for (int i = 0; i < NVARS * NVARS; i++)
        sum[i] = AL[i] + AR[i];
      APPROX_EQ(frechet_rel_error(sum, A, NVARS * NVARS), 0.0, 1e-13);

      hll_face_blocks(U, U, n, &eos, AL, AR);
      for (int i = 0; i < NVARS * NVARS; i++)
        sum[i] = AL[i] + AR[i];
      APPROX_EQ(frechet_rel_error(sum, A, NVARS * NVARS), 0.0, 1e-13);

      double un = euler_normal_velocity(U, n);
      if (un - euler_sound_speed(U, &eos) > 0.0) {
        for (int i = 0; i < NVARS * NVARS; i++)
          APPROX_EQ(AR[i], 0.0, 0.0);
      }
    }
  }
  return enzyme_compat_result();
}

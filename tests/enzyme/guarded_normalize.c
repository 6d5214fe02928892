/*
 * Enzyme ForwardMode/guarded_normalize.c: normalising a vector that can
 * vanish.  Away from the origin the Jacobian of v / |v| is the projector
 * (I - n n^T) / |v| (symmetric, annihilating n).  At the origin, a guard
 * after the sqrt (sqrt(0) still evaluated, its derivative 0/0) and a guard
 * before it both give an exactly zero tangent, while the branchless
 * fmax(|v|, eps) floor gives I / eps.  A rotated frame built from two guarded
 * normalisations keeps its orthonormality, so the gradients of three
 * identities vanish on every branch.
 */
#include "enzyme_compat.h"
#include "rel_error.h"

#define GUARD_EPS 1.0e-12

void normalize_guard_after(const double *v, double *n) {
  double len = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
  if (len <= GUARD_EPS) {
    n[0] = 1.0;
    n[1] = 0.0;
    n[2] = 0.0;
    return;
  }
  double inv = 1.0 / len;
  n[0] = v[0] * inv;
  n[1] = v[1] * inv;
  n[2] = v[2] * inv;
}

void normalize_guard_before(const double *v, double *n) {
  double sq = v[0] * v[0] + v[1] * v[1] + v[2] * v[2];
  if (sq <= GUARD_EPS * GUARD_EPS) {
    n[0] = 1.0;
    n[1] = 0.0;
    n[2] = 0.0;
    return;
  }
  double inv = 1.0 / sqrt(sq);
  n[0] = v[0] * inv;
  n[1] = v[1] * inv;
  n[2] = v[2] * inv;
}

void normalize_guard_floor(const double *v, double *n) {
  double len = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
  double inv = 1.0 / fmax(len, GUARD_EPS);
  n[0] = v[0] * inv;
  n[1] = v[1] * inv;
  n[2] = v[2] * inv;
}

#define DEFINE_NORMALIZE_JACOBIAN(NAME, FN)                                    \
  void NAME(const double *v, double *J) {                                      \
    double dv[3], n[3], dn[3];                                                 \
    for (int col = 0; col < 3; col++) {                                        \
      for (int i = 0; i < 3; i++)                                              \
        dv[i] = 0.0;                                                           \
      dv[col] = 1.0;                                                           \
      __enzyme_fwddiff((void *)FN, enzyme_dup, v, dv, enzyme_dup, n, dn);      \
      for (int row = 0; row < 3; row++)                                        \
        J[row * 3 + col] = dn[row];                                            \
    }                                                                          \
  }

DEFINE_NORMALIZE_JACOBIAN(jacobian_guard_after, normalize_guard_after)
DEFINE_NORMALIZE_JACOBIAN(jacobian_guard_before, normalize_guard_before)
DEFINE_NORMALIZE_JACOBIAN(jacobian_guard_floor, normalize_guard_floor)

/* (I - n n^T) / |v| */
void projector(const double *v, double *J) {
  double len = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
  double n[3] = {v[0] / len, v[1] / len, v[2] / len};
  for (int row = 0; row < 3; row++)
    for (int col = 0; col < 3; col++)
      J[row * 3 + col] = ((row == col ? 1.0 : 0.0) - n[row] * n[col]) / len;
}

int all_finite(const double *a, int n) {
  for (int i = 0; i < n; i++)
    if (!(a[i] == a[i]) || a[i] > 1e300 || a[i] < -1e300)
      return 0;
  return 1;
}

/* x = (uL, uR); out = (n1, n2, alpha1, alpha2). */
void rotated_frame(const double *x, const double *nf, double *out) {
  double dq[3] = {x[3] - x[0], x[4] - x[1], x[5] - x[2]};
  double len = sqrt(dq[0] * dq[0] + dq[1] * dq[1] + dq[2] * dq[2]);

  if (len <= GUARD_EPS) {
    for (int i = 0; i < 3; i++) {
      out[i] = nf[i];
      out[3 + i] = nf[i];
    }
    out[6] = 0.0;
    out[7] = 1.0;
    return;
  }

  double n1[3] = {dq[0] / len, dq[1] / len, dq[2] / len};
  double a1 = nf[0] * n1[0] + nf[1] * n1[1] + nf[2] * n1[2];

  if (a1 < 0.0) {
    for (int i = 0; i < 3; i++)
      n1[i] = -n1[i];
    a1 = -a1;
  }

  double t[3] = {nf[0] - a1 * n1[0], nf[1] - a1 * n1[1], nf[2] - a1 * n1[2]};
  double tlen = sqrt(t[0] * t[0] + t[1] * t[1] + t[2] * t[2]);

  if (tlen <= GUARD_EPS) {
    for (int i = 0; i < 3; i++) {
      out[i] = n1[i];
      out[3 + i] = nf[i];
    }
    out[6] = 1.0;
    out[7] = 0.0;
    return;
  }

  for (int i = 0; i < 3; i++) {
    out[i] = n1[i];
    out[3 + i] = t[i] / tlen;
  }
  out[6] = a1;
  out[7] = nf[0] * out[3] + nf[1] * out[4] + nf[2] * out[5];
}

double frame_n1_normsq(const double *x, const double *nf) {
  double o[8];
  rotated_frame(x, nf, o);
  return o[0] * o[0] + o[1] * o[1] + o[2] * o[2];
}

double frame_n1_dot_n2(const double *x, const double *nf) {
  double o[8];
  rotated_frame(x, nf, o);
  return o[0] * o[3] + o[1] * o[4] + o[2] * o[5];
}

double frame_alpha_normsq(const double *x, const double *nf) {
  double o[8];
  rotated_frame(x, nf, o);
  return o[6] * o[6] + o[7] * o[7];
}

#define DEFINE_IDENTITY_GRADIENT(NAME, FN)                                     \
  void NAME(const double *x, const double *nf, double *g) {                    \
    double dx[6];                                                              \
    for (int col = 0; col < 6; col++) {                                        \
      for (int i = 0; i < 6; i++)                                              \
        dx[i] = 0.0;                                                           \
      dx[col] = 1.0;                                                           \
      g[col] = __enzyme_fwddiff((void *)FN, enzyme_dup, x, dx, enzyme_const,   \
                                nf);                                           \
    }                                                                          \
  }

DEFINE_IDENTITY_GRADIENT(grad_n1_normsq, frame_n1_normsq)
DEFINE_IDENTITY_GRADIENT(grad_n1_dot_n2, frame_n1_dot_n2)
DEFINE_IDENTITY_GRADIENT(grad_alpha_normsq, frame_alpha_normsq)

/* Every entry finite and exactly `want`. */
static void expect_all(const double *a, int n, double want, double tol,
                       const char *what) {
  if (!all_finite(a, n))
    ENZYME_COMPAT_FAIL(what);
  for (int i = 0; i < n; i++)
    APPROX_EQ(a[i], want, tol);
}

int main(void) {
  double J[9], K[9], want[9];

  {
    const double vectors[3][3] = {
        {3.0, -4.0, 12.0}, {1.0, 0.0, 0.0}, {-0.02, 0.005, 0.031}};

    for (int i = 0; i < 3; i++) {
      const double *v = vectors[i];
      projector(v, want);

      jacobian_guard_after(v, J);
      APPROX_EQ(frechet_rel_error(J, want, 9), 0.0, 1e-14);
      jacobian_guard_before(v, J);
      APPROX_EQ(frechet_rel_error(J, want, 9), 0.0, 1e-14);
      jacobian_guard_floor(v, J);
      APPROX_EQ(frechet_rel_error(J, want, 9), 0.0, 1e-14);

      double len = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
      double n[3] = {v[0] / len, v[1] / len, v[2] / len};
      double scale = 1.0 / len;
      for (int r = 0; r < 3; r++) {
        double row = 0.0, col = 0.0;
        for (int c = 0; c < 3; c++) {
          APPROX_EQ(J[r * 3 + c], J[c * 3 + r], 1e-15 * scale);
          row += J[r * 3 + c] * n[c];
          col += J[c * 3 + r] * n[c];
        }
        APPROX_EQ(row, 0.0, 1e-14 * scale);
        APPROX_EQ(col, 0.0, 1e-14 * scale);
      }
    }
  }

  {
    double origin[3] = {0.0, 0.0, 0.0};

    jacobian_guard_after(origin, J);
    expect_all(J, 9, 0.0, 0.0, "guard-after: non-finite tangent at origin");

    jacobian_guard_before(origin, K);
    expect_all(K, 9, 0.0, 0.0, "guard-before: non-finite tangent at origin");

    jacobian_guard_floor(origin, K);
    if (!all_finite(K, 9))
      ENZYME_COMPAT_FAIL("branchless floor: non-finite tangent at origin");
    for (int row = 0; row < 3; row++)
      for (int col = 0; col < 3; col++)
        APPROX_EQ(K[row * 3 + col], (row == col ? 1.0 / GUARD_EPS : 0.0),
                  1e-3);
  }

  {
    double inside[3] = {0.5 * GUARD_EPS, 0.0, 0.0};
    double outside[3] = {2.0 * GUARD_EPS, 0.0, 0.0};

    jacobian_guard_after(inside, J);
    for (int i = 0; i < 9; i++)
      APPROX_EQ(J[i], 0.0, 0.0);

    jacobian_guard_after(outside, J);
    projector(outside, want);
    APPROX_EQ(frechet_rel_error(J, want, 9), 0.0, 1e-14);
    if (!(fabs(J[4]) > 1e11))
      ENZYME_COMPAT_FAIL("projector not stiff just outside the guard");
  }

  {
    const double nf[3] = {0.6, -0.8, 0.0};
    const double cases[4][6] = {
        {10.0, 3.0, -2.0, 40.0, -9.0, 5.0},
        {10.0, 3.0, -2.0, 10.0, 3.0, -2.0},
        {0.0, 0.0, 0.0, 0.6, -0.8, 0.0},
        {1.0, 1.0, 1.0, 1.0 - 0.6, 1.0 + 0.8, 1.0},
    };

    for (int c = 0; c < 4; c++) {
      const double *x = cases[c];
      double o[8], g[6];

      rotated_frame(x, nf, o);
      APPROX_EQ(frame_n1_normsq(x, nf), 1.0, 1e-14);
      APPROX_EQ(frame_alpha_normsq(x, nf), 1.0, 1e-14);

      grad_n1_normsq(x, nf, g);
      expect_all(g, 6, 0.0, 1e-13, "non-finite d|n1|^2");
      grad_n1_dot_n2(x, nf, g);
      expect_all(g, 6, 0.0, 1e-13, "non-finite d(n1.n2)");
      grad_alpha_normsq(x, nf, g);
      expect_all(g, 6, 0.0, 1e-13, "non-finite d(alpha1^2+alpha2^2)");
    }
  }
  return enzyme_compat_result();
}

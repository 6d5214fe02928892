/* A gravitational n-body velocity update with softening: pairwise loops,
 * sqrt and division of active differences, masses constant. */
#include "enzyme.h"
#include "tangent_check.h"

void __enzyme_fwddiff_void(void *, ...) asm("__enzyme_fwddiff");

#define NB 4
void kick(const double *pos, double *vel, const double *mass, double dt) {
  for (int i = 0; i < NB; i++) {
    double ax = 0, ay = 0;
    for (int j = 0; j < NB; j++) {
      if (i == j)
        continue;
      double dx = pos[2 * j] - pos[2 * i], dy = pos[2 * j + 1] - pos[2 * i + 1];
      double r2 = dx * dx + dy * dy + 0.01;
      double inv = mass[j] / (r2 * sqrt(r2));
      ax += dx * inv;
      ay += dy * inv;
    }
    vel[2 * i] += dt * ax;
    vel[2 * i + 1] += dt * ay;
  }
}

static const double p0[2 * NB] = {0, 0, 1, 0.2, -0.5, 1, 0.3, -1.2};
static const double dp[2 * NB] = {0.1, -0.2, 0.5, 0, 0, 1, -1, 0.3};
static const double v0[2 * NB] = {0, 1, -1, 0, 0.5, 0.5, 0, 0};
static const double m[NB] = {1.0, 0.5, 2.0, 0.75};
static int component;

static double along(double t, void *ctx) {
  (void)ctx;
  double p[2 * NB], v[2 * NB];
  for (int i = 0; i < 2 * NB; i++) {
    p[i] = p0[i] + t * dp[i];
    v[i] = v0[i];
  }
  kick(p, v, m, 0.05);
  return v[component];
}

int main(void) {
  double p[2 * NB], dpos[2 * NB], v[2 * NB], dv[2 * NB] = {0};
  for (int i = 0; i < 2 * NB; i++) {
    p[i] = p0[i];
    dpos[i] = dp[i];
    v[i] = v0[i];
  }
  __enzyme_fwddiff_void((void *)kick, enzyme_dup, p, dpos, enzyme_dup, v, dv,
                        enzyme_const, m, enzyme_const, 0.05);
  for (component = 0; component < 2 * NB; component++)
    check_tangent_fd("dv", dv[component], fd_derivative(along, NULL));
  return tc_finish("nbody_step");
}

/* log-sum-exp and sin*cos over an array: with -fveclib=libmvec at -O3
 * -ffast-math the loops call the vector-ABI variants (_ZGVdN4v_exp ...),
 * whose derivative is the scalar rule on vector values. */
#include "enzyme.h"
#include "tangent_check.h"
#define N 64
double lse(const double *z) { double s = 0; for (int i = 0; i < N; i++) s += exp(z[i]); double c = 0; for (int i = 0; i < N; i++) c += sin(z[i]) * cos(z[i]); return log(s) + c; }
static double Z0[N], dZ[N];
static double along(double t, void *c) { double z[N]; for (int i=0;i<N;i++) z[i] = Z0[i] + t*dZ[i]; return lse(z); }
int main(void) {
  for (int i = 0; i < N; i++) { Z0[i] = sin(0.3*i); dZ[i] = cos(0.7*i); }
  double t = __enzyme_fwddiff((void*)lse, enzyme_dup, Z0, dZ);
  check_tangent_fd("dlse", t, fd_derivative(along, NULL));
  return tc_finish("veclib_libmvec");
}

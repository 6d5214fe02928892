/* enzyme_width 2 through CUDA transfers (runtime API): x goes to the
 * caller's device buffer a (HostToDevice), a to b (DeviceToDevice), b to
 * out (DeviceToHost, then the loss reads out).  Every buffer is the
 * caller's, with one shadow per lane (a's and b's shadows device memory),
 * so the lanes share one augmented pass and each lane's reverse moves its
 * own adjoints through its own shadows.  The lanes' seeds differ on every
 * buffer (a, b and out are overwritten: their seeds pass into x's
 * adjoint), so a lane given another lane's shadows fails its check. */
#include <cuda_runtime_api.h>
#include <cudasim.h>

#include "rev_cuda_setup.h"

extern int enzyme_width;

#define N 4
#define D sizeof(double)
#define LANES 2

double f(const double *x, double *a, double *b, double *out, long n) {
  size_t bytes = (size_t)n * D;
  cudaMemcpy(a, x, bytes, cudaMemcpyHostToDevice);
  cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice);
  cudaMemcpy(out, b, bytes, cudaMemcpyDeviceToHost);
  double s = 0;
  for (long i = 0; i < n; i++)
    s += out[i] * out[i] * out[(i + 1) % n];
  return s;
}

/* The seed of entry i of buffer k (x, a, b, out) in lane l. */
static double lane_seed(int l, int k, int i) {
  return seed_value(i + 3 * k) * (l + 1) + 0.0625 * l;
}

static int lane; /* the lane run() differentiates */

/* f plus <lane's seeds, every buffer after the call> (a, b and out end
 * equal to x). */
static long double run(const long double *p) {
  double x[N], a_host[N];
  for (int i = 0; i < N; i++)
    x[i] = (double)p[i];
  double *a, *b;
  cudaMalloc((void **)&a, N * D);
  cudaMalloc((void **)&b, N * D);
  double out[N];
  long double r = f(x, a, b, out, N);
  cudaMemcpy(a_host, a, N * D, cudaMemcpyDeviceToHost);
  cudaFree(a);
  cudaFree(b);
  for (int i = 0; i < N; i++)
    r += lane_seed(lane, 0, i) * (long double)x[i] +
         (lane_seed(lane, 1, i) + lane_seed(lane, 2, i)) *
             (long double)a_host[i] +
         lane_seed(lane, 3, i) * (long double)out[i];
  return r;
}

int main(void) {
  double x[N] = {0.5, -1.25, 2.0, 0.75}, out[N];
  double dx[LANES][N], dout[LANES][N], host[N];
  double *a, *b, *da[LANES], *db[LANES];
  cudaMalloc((void **)&a, N * D);
  cudaMalloc((void **)&b, N * D);
  for (int l = 0; l < LANES; l++) {
    cudaMalloc((void **)&da[l], N * D);
    cudaMalloc((void **)&db[l], N * D);
    for (int i = 0; i < N; i++) {
      dx[l][i] = lane_seed(l, 0, i);
      dout[l][i] = lane_seed(l, 3, i);
    }
    for (int i = 0; i < N; i++)
      host[i] = lane_seed(l, 1, i);
    cudaMemcpy(da[l], host, N * D, cudaMemcpyHostToDevice);
    for (int i = 0; i < N; i++)
      host[i] = lane_seed(l, 2, i);
    cudaMemcpy(db[l], host, N * D, cudaMemcpyHostToDevice);
  }
  long double p[N];
  for (int i = 0; i < N; i++)
    p[i] = x[i];
  struct cudasim_counters before, after;
  cudasim_get_counters(&before);
  __enzyme_autodiff((void *)f, enzyme_width, LANES, x, dx[0], dx[1], a, da[0],
                    da[1], b, db[0], db[1], out, dout[0], dout[1],
                    enzyme_const, (long)N);
  cudasim_get_counters(&after);
  rcs_expect_clean(&before, &after);
  for (lane = 0; lane < LANES; lane++) {
    rcc_check(lane ? "runtime_width (lane 1)" : "runtime_width (lane 0)", run,
              p, dx[lane], N);
    /* overwritten memory passed its adjoints on: every shadow zero */
    for (int k = 0; k < 2; k++) {
      cudaMemcpy(host, k ? db[lane] : da[lane], N * D,
                 cudaMemcpyDeviceToHost);
      for (int i = 0; i < N; i++)
        rcc_expect_equal("device shadow zero after the gradient", 0,
                         host[i] != 0);
    }
    for (int i = 0; i < N; i++)
      rcc_expect_equal("out's shadow zero after the gradient", 0,
                       dout[lane][i] != 0);
  }
  for (int l = 0; l < LANES; l++) {
    cudaFree(da[l]);
    cudaFree(db[l]);
  }
  cudaFree(a);
  cudaFree(b);
  return rcc_result("runtime_width");
}

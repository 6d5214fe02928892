/* Transfers of structs that mix kinds: an array of items (a double, an
 * int, padding, a pointer into w) staged through device memory (HtoD,
 * DtoD, DtoH) with a run-time length.  Forward mode copies the doubles'
 * and the pointers' shadows, piece by piece (an int's shadow stays), so
 * the loss, which reads through the copied pointers, sees w's tangents:
 *   f = sum_i k_i v_i^2 w_{j(i)} + v_i,   j(i) = 2i mod W
 *   df = sum_i k_i (2 v_i dv_i w_j + v_i^2 dw_j) + dv_i  */
#include <stdint.h>
#include <stdlib.h>

#include <cuda.h>

#include "cuda_check.h"

#define N 4
#define W 3

typedef struct item {
  double v;
  int k;
  double *p;
} item;

double f(const item *in, item *out, long n) {
  size_t bytes = (size_t)n * sizeof(item);
  CUdeviceptr a, b;
  cuMemAlloc(&a, bytes);
  cuMemAlloc(&b, bytes);
  cuMemcpyHtoD(a, in, bytes);
  cuMemcpyDtoD(b, a, bytes);
  cuMemcpyDtoH(out, b, bytes);
  cuMemFree(a);
  cuMemFree(b);
  double s = 0;
  for (long i = 0; i < n; i++)
    s += out[i].k * out[i].v * out[i].v * *out[i].p + out[i].v;
  return s;
}

int main(void) {
  if (cuda_driver_context())
    return 100;
  double w[W] = {1.5, -0.75, 0.25}, dw[W];
  item in[N], din[N], out[N], dout[N];
  for (int i = 0; i < N; i++) {
    in[i].v = 0.5 * i - 0.75, in[i].k = i + 2, in[i].p = &w[(2 * i) % W];
    din[i].k = 1000 + i, din[i].p = &dw[(2 * i) % W];
  }
  double want_f = 0;
  for (int i = 0; i < N; i++)
    want_f += in[i].k * in[i].v * in[i].v * *in[i].p + in[i].v;
  expect("f", 0, f(in, out, N), want_f);
  /* two directions: the doubles of in, then w */
  for (int dir = 0; dir < 2; dir++) {
    for (int i = 0; i < N; i++) {
      din[i].v = dir == 0 ? 0.25 * (i + 1) : 0;
      dout[i].v = 99, dout[i].k = -7, dout[i].p = NULL;
    }
    for (int j = 0; j < W; j++)
      dw[j] = dir == 1 ? 1.0 - 0.5 * j : 0;
    double want = 0;
    for (int i = 0; i < N; i++) {
      double wj = *in[i].p, dwj = dw[(2 * i) % W];
      want += in[i].k * (2 * in[i].v * din[i].v * wj + in[i].v * in[i].v * dwj) +
              din[i].v;
    }
    double got = __enzyme_fwddiff((void *)f, enzyme_dup, in, din, enzyme_dup,
                                  out, dout, enzyme_const, (long)N);
    expect("df", dir, got, want);
    for (int i = 0; i < N; i++) {
      expect("dout.v", i, dout[i].v, din[i].v);
      expect("dout.k (an int's shadow, not copied)", i, dout[i].k, -7);
      expect("dout.p == din.p", i, dout[i].p == din[i].p, 1);
    }
  }
  return finish("driver_structs");
}

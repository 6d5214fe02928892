/*
 * Reverse-mode cuBLAS (src/ad/rev/blas.c over rules/blas.c's cuBLAS
 * interfaces): a stand-in cuBLAS on host arrays with real arithmetic
 * (handle first, scalars by pointer, int enums, _v2's result through a
 * pointer; cublasDdot and cublasDaxpy without _v2 return the dot and take
 * alpha by value, as Enzyme's stand-ins do), and cudaMemset / cudaMalloc /
 * cudaFree on host memory.  f scales x by an active alpha
 * (cublasDscal_v2: x is recovered as x / alpha, the program allocating no
 * device memory), y := A' x (cublasDgemv_v2), C := 1.5 Bm A + 0.5 C
 * (cublasDgemm_v2) and returns y.y (cublasDdot_v2) + C.C (cublasDdot).
 * Every array's shadow starts nonzero: the gradient checked is that of
 * F = f + sum(seed * the arrays' final values), by central differences
 * in long double.  main returns the number of mismatches (and fails if a
 * device allocation is left).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern int enzyme_dup, enzyme_out, enzyme_const;
double __enzyme_autodiff(void *, ...);

#include "cublas_standin.h"

static int live_device_blocks;

NOINLINE int cudaMalloc(void **p, size_t n) {
  *p = malloc(n);
  live_device_blocks++;
  return 0;
}
NOINLINE int cudaFree(void *p) {
  free(p);
  live_device_blocks--;
  return 0;
}
NOINLINE int cudaMemset(void *p, int v, size_t n) {
  memset(p, v, n);
  return 0;
}

static handle the_handle;

/* A 3 x 2, x 3, y 2, Bm 2 x 3, C 2 x 2 */
static double f(double alpha, double *A, double *x, double *y, double *Bm,
                double *C) {
  handle *h = &the_handle;
  double one = 1, zero = 0, ab = 1.5, half = 0.5, r;
  cublasDscal_v2(h, 3, &alpha, x, 1);
  cublasDgemv_v2(h, OP_T, 3, 2, &one, A, 3, x, 1, &zero, y, 1);
  cublasDgemm_v2(h, OP_N, OP_N, 2, 2, 3, &ab, Bm, 2, A, 3, &half, C, 2);
  cublasDdot_v2(h, 2, y, 1, y, 1, &r);
  return r + cublasDdot(h, 4, C, 1, C, 1);
}

enum { NA = 6, NX = 3, NY = 2, NB = 6, NC = 4, NARR = 5 };
static const int lens[NARR] = {NA, NX, NY, NB, NC};
static const double A0[NA] = {1, -2, 0.5, 3, 1.5, -1},
                    X0[NX] = {0.5, 2, -1}, Y0[NY] = {4, -3},
                    B0[NB] = {1, 0.5, -1, 2, 0.25, 1}, C0[NC] = {1, 2, -1, 0.5};
static const double *const init[NARR] = {A0, X0, Y0, B0, C0};
/* the shadows' initial values: the seeds of F */
static double seed(int w, int i) { return 0.125 * (w + 1) - 0.0625 * i; }

/* F at alpha, the arrays' initial values moved: entry i of array w by t
 * (w = NARR: alpha) */
static long double F(int w, int i, double t) {
  double arr[NARR][6], alpha = 1.25;
  for (int k = 0; k < NARR; k++)
    memcpy(arr[k], init[k], sizeof(double) * (size_t)lens[k]);
  if (w == NARR)
    alpha += t;
  else
    arr[w][i] += t;
  long double v = f(alpha, arr[0], arr[1], arr[2], arr[3], arr[4]);
  for (int k = 0; k < NARR; k++)
    for (int j = 0; j < lens[k]; j++)
      v += (long double)seed(k, j) * arr[k][j];
  return v;
}

int main(void) {
  double arr[NARR][6], sh[NARR][6];
  for (int k = 0; k < NARR; k++) {
    memcpy(arr[k], init[k], sizeof(double) * (size_t)lens[k]);
    for (int j = 0; j < lens[k]; j++)
      sh[k][j] = seed(k, j);
  }
  double dalpha = __enzyme_autodiff(
      (void *)f, enzyme_out, 1.25, enzyme_dup, arr[0], sh[0], enzyme_dup,
      arr[1], sh[1], enzyme_dup, arr[2], sh[2], enzyme_dup, arr[3], sh[3],
      enzyme_dup, arr[4], sh[4]);
  int bad = 0;
  for (int w = 0; w <= NARR; w++)
    for (int i = 0; i < (w == NARR ? 1 : lens[w]); i++) {
      double h = 1e-5;
      long double fd = (F(w, i, h) - F(w, i, -h)) / (2.0L * h);
      double got = w == NARR ? dalpha : sh[w][i];
      if (fabsl(fd - got) > 1e-6L * (1 + fabsl(fd))) {
        printf("%s[%d] = %g, finite differences %Lg\n",
               w == NARR ? "dalpha" : (const char *[]){"dA", "dx", "dy", "dB", "dC"}[w],
               i, got, fd);
        bad++;
      }
    }
  if (live_device_blocks != 0) {
    printf("%d device blocks left\n", live_device_blocks);
    bad++;
  }
  printf("%d mismatches\n", bad);
  return bad;
}

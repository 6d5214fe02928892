/*
 * Forward-mode cuBLAS (rules/blas.c's tangents through its cuBLAS
 * interfaces), on the stand-in cuBLAS of cublas_standin.h (host arrays, real
 * arithmetic; handle first, scalars by pointer, int enums; cublasDaxpy
 * and cublasDdot without _v2 take alpha by value and return the dot, as
 * Enzyme's stand-ins do).  f scales x by an active alpha (cublasDscal_v2),
 * y := A' x + alpha/4 y (cublasDgemv_v2), C := 1.5 Bm A + alpha/2 C
 * (cublasDgemm_v2),
 * y += 0.5 x[0:2] (cublasDaxpy), a copy of y (cublasDcopy_v2), and returns
 * y.y + C.C (cublasDdot).  The tangent of f along a direction in alpha and
 * every array, and the arrays' tangents after the call (of their final
 * values), are checked against central differences in long double.  main
 * returns the number of mismatches.  (_v2's dot and nrm2, whose result
 * goes through a pointer, are refused in forward mode: errors.c.)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern int enzyme_dup, enzyme_out, enzyme_const;
double __enzyme_fwddiff(void *, ...);

#include "cublas_standin.h"

static handle the_handle;

/* A 3 x 2, x 3, y 2, Bm 2 x 3, C 2 x 2, Y2 a copy of y */
static double f(double alpha, double *A, double *x, double *y, double *Bm,
                double *C, double *y2) {
  handle *h = &the_handle;
  /* active betas: their tangents scale the old outputs (gemv's length by
   * its CUBLAS_OP_T, gemm's columns) */
  double one = 1, ab = 1.5, by = 0.25 * alpha, bc = 0.5 * alpha;
  cublasDscal_v2(h, 3, &alpha, x, 1);
  cublasDgemv_v2(h, OP_T, 3, 2, &one, A, 3, x, 1, &by, y, 1);
  cublasDgemm_v2(h, OP_N, OP_N, 2, 2, 3, &ab, Bm, 2, A, 3, &bc, C, 2);
  cublasDaxpy(h, 2, 0.5, x, 1, y, 1);
  cublasDcopy_v2(h, 2, y, 1, y2, 1);
  return cublasDdot(h, 2, y, 1, y2, 1) + cublasDdot(h, 4, C, 1, C, 1);
}

enum { NA = 6, NX = 3, NY = 2, NB = 6, NC = 4, NY2 = 2, NARR = 6 };
static const int lens[NARR] = {NA, NX, NY, NB, NC, NY2};
static const double A0[NA] = {1, -2, 0.5, 3, 1.5, -1},
                    X0[NX] = {0.5, 2, -1}, Y0[NY] = {4, -3},
                    B0[NB] = {1, 0.5, -1, 2, 0.25, 1}, C0[NC] = {1, 2, -1, 0.5},
                    Z0[NY2] = {7, 8};
static const double *const init[NARR] = {A0, X0, Y0, B0, C0, Z0};
/* the direction: alpha's, then each array's entries */
static double dir(int w, int i) { return 0.25 * (w + 1) - 0.125 * i; }
static const double dalpha = 0.75;

/* f and the arrays' final values at alpha + t dalpha, arrays + t dir */
static long double run(double t, double out[NARR][6]) {
  double alpha = 1.25 + t * dalpha;
  for (int k = 0; k < NARR; k++)
    for (int j = 0; j < lens[k]; j++)
      out[k][j] = init[k][j] + t * dir(k, j);
  return f(alpha, out[0], out[1], out[2], out[3], out[4], out[5]);
}

int main(void) {
  double arr[NARR][6], sh[NARR][6];
  for (int k = 0; k < NARR; k++) {
    for (int j = 0; j < 6; j++) { /* past the arrays: sentinels, kept */
      arr[k][j] = j < lens[k] ? init[k][j] : 1.0;
      sh[k][j] = j < lens[k] ? dir(k, j) : 99.0;
    }
  }
  double df = __enzyme_fwddiff((void *)f, 1.25, dalpha, enzyme_dup, arr[0],
                               sh[0], enzyme_dup, arr[1], sh[1], enzyme_dup,
                               arr[2], sh[2], enzyme_dup, arr[3], sh[3],
                               enzyme_dup, arr[4], sh[4], enzyme_dup, arr[5],
                               sh[5]);
  double plus[NARR][6], minus[NARR][6], h = 1e-5;
  long double fp = run(h, plus), fm = run(-h, minus);
  int bad = 0;
  long double fd = (fp - fm) / (2.0L * h);
  if (fabsl(fd - df) > 1e-6L * (1 + fabsl(fd))) {
    printf("df = %g, finite differences %Lg\n", df, fd);
    bad++;
  }
  for (int w = 0; w < NARR; w++)
    for (int i = 0; i < lens[w]; i++) {
      long double d = ((long double)plus[w][i] - minus[w][i]) / (2.0L * h);
      if (fabsl(d - sh[w][i]) > 1e-6L * (1 + fabsl(d))) {
        printf("%s'[%d] = %g, finite differences %Lg\n",
               (const char *[]){"A", "x", "y", "B", "C", "y2"}[w], i, sh[w][i],
               d);
        bad++;
      }
    }
  for (int w = 0; w < NARR; w++)
    for (int i = lens[w]; i < 6; i++)
      if (sh[w][i] != 99.0) {
        printf("%s' written past its end at %d: %g\n",
               (const char *[]){"A", "x", "y", "B", "C", "y2"}[w], i, sh[w][i]);
        bad++;
      }
  printf("%d mismatches\n", bad);
  return bad;
}

/*
 * Reverse-mode BLAS in single precision (src/ad/rev/blas.c): cblas_sgemm
 * with A transposed, an active output read back by cblas_sdot, every
 * gradient entry of A, B and the initial C against central differences.
 * main returns the number of mismatches.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

extern int enzyme_dup;
void __enzyme_autodiff(void *, ...);
void cblas_sgemm(int layout, int ta, int tb, int m, int n, int k, float alpha,
                 const float *A, int lda, const float *B, int ldb, float beta,
                 float *C, int ldc);
float cblas_sdot(int n, const float *x, int incx, const float *y, int incy);

static float f(float *A, float *B, float *C) {
  cblas_sgemm(102, 112, 111, 2, 2, 3, 1.5f, A, 3, B, 3, 0.5f, C, 2);
  return cblas_sdot(4, C, 1, C, 1);
}

static const float A0[6] = {1, 2, 3, 4, 5, 6}, B0[6] = {0.5, -1, 2, 1, 0, -2},
                   C0[4] = {1, 2, 3, 4};

/* f at the inputs with entry i of array `which` (0 A, 1 B, 2 C) moved by t */
static float at(int which, int i, float t) {
  float a[6], b[6], c[4];
  memcpy(a, A0, sizeof a), memcpy(b, B0, sizeof b), memcpy(c, C0, sizeof c);
  (which == 0 ? a : which == 1 ? b : c)[i] += t;
  return f(a, b, c);
}

int main(void) {
  float A[6], B[6], C[4], dA[6] = {0}, dB[6] = {0}, dC[4] = {0};
  memcpy(A, A0, sizeof A), memcpy(B, B0, sizeof B), memcpy(C, C0, sizeof C);
  __enzyme_autodiff((void *)f, enzyme_dup, A, dA, enzyme_dup, B, dB,
                    enzyme_dup, C, dC);
  const float *grad[3] = {dA, dB, dC};
  const int len[3] = {6, 6, 4};
  int bad = 0;
  for (int w = 0; w < 3; w++)
    for (int i = 0; i < len[w]; i++) {
      float h = 1e-2f, fd = (at(w, i, h) - at(w, i, -h)) / (2 * h);
      if (fabsf(fd - grad[w][i]) > 1e-2f * (1 + fabsf(fd))) {
        printf("d%c[%d] = %g, finite differences %g\n", "ABC"[w], i,
               grad[w][i], fd);
        bad++;
      }
    }
  printf("%d mismatches\n", bad);
  return bad;
}

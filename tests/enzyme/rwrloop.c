/*
 * Enzyme ForwardMode/rwrloop.c: a loop that reads, then zeroes, each element
 * (and overwrites the constant trip count after the loop); the tangent of
 * sum a^2 with every da = 1 is sum 2 a = 90900.
 */
#include "enzyme_compat.h"

double alldiv(double *__restrict__ a, int *__restrict__ N) {
  double sum = 0;
  for (int i = 0; i < 10; i++) {
    for (int j = 0; j < *N; j++) {
      sum += a[10 * i + j] * a[10 * i + j];
      a[10 * i + j] = 0;
    }
  }
  *N = 7;
  return sum;
}

int main(void) {
  int N = 10;
  double a[N][N];
  for (int i = 0; i < N; i++) {
    for (int j = 0; j < N; j++) {
      a[i][j] = i * 100 + j;
    }
  }

  double d_a[N][N];
  for (int i = 0; i < N; i++) {
    for (int j = 0; j < N; j++) {
      d_a[i][j] = 1;
    }
  }

  double d_start = __enzyme_fwddiff((void *)alldiv, enzyme_dup, (double *)a,
                                    (double *)d_a, enzyme_const, &N);
  APPROX_EQ(d_start, 90900.0, 1e-10);
  APPROX_EQ(N, 7.0, 0.0);
  return enzyme_compat_result();
}

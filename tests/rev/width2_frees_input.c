#include <math.h>
#include <stdio.h>
#include <stdlib.h>
/* Vector reverse mode, width 2, of a function that frees its caller's
 * (malloc'd) x after reading it: the lanes share one augmented pass, which
 * frees x once, and each lane's reverse reads what the tape kept, never
 * x.  Each lane's dx, from its own nonzero seed, against the analytic
 * gradient x[i] cos(x[i]) + sin(x[i]) plus the seed. */
extern int enzyme_width, enzyme_dup;
void __enzyme_autodiff(void *, ...);

enum { N = 3, W = 2 };

__attribute__((noinline)) static double consume(double *x) {
  double s = 0;
  for (int i = 0; i < N; i++)
    s += x[i] * sin(x[i]);
  free(x);
  return s;
}

int main(void) {
  double *x = malloc(N * sizeof *x), v[N] = {0.4, -1.2, 2.1}, dx[W][N];
  for (int i = 0; i < N; i++)
    x[i] = v[i];
  for (int w = 0; w < W; w++)
    for (int i = 0; i < N; i++)
      dx[w][i] = 0.25 * (w + 1) - 0.1 * i;
  __enzyme_autodiff((void *)consume, enzyme_width, W, enzyme_dup, x, dx[0],
                    dx[1]);
  int bad = 0;
  for (int w = 0; w < W; w++)
    for (int i = 0; i < N; i++) {
      long double want = 0.25L * (w + 1) - 0.1L * i +
                         v[i] * cosl(v[i]) + sinl(v[i]);
      if (fabsl(dx[w][i] - want) > 1e-12L * (1 + fabsl(want))) {
        printf("lane %d: dx[%d] = %.15g, want %.15Lg\n", w, i, dx[w][i], want);
        bad++;
      }
    }
  printf("%d mismatches\n", bad);
  return bad;
}

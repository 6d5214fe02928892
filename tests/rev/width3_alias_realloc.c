/* Vector reverse mode, width 3 (-DW=2 or 4 too), of a function that
 * updates its caller's memory in place through two arguments that
 * overlap (y is x + 1), returns early on one branch (both taken), and
 * grows a temporary by realloc: the lanes rerun the primal, each from the
 * memory the call began with (rev/lanes.c path 3).  The primal's results
 * as one call leaves them, and every lane's gradient against central
 * finite differences (long double) from its own nonzero seed. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
extern int enzyme_width, enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
enum { N = 5 };
#ifndef W
#define W 3
#endif
/* writes the caller's memory in place through aliasing args (y may be x+1),
 * an early return, and a realloc'd temporary of its own */
static void f(double *x, double *y, int n) {
  double *t = malloc(2 * sizeof *t);
  t[0] = x[0] * x[1];
  t = realloc(t, n * sizeof *t);
  for (int i = 1; i < n; i++) t[i] = sin(x[i]) * t[i - 1];
  for (int i = 0; i < n - 1; i++) y[i] += t[i] * x[i + 1];
  if (x[0] > 0) { x[0] = t[n - 1] * x[0]; free(t); return; }
  x[1] = t[0] + x[2];
  free(t);
}
static double seed(int w, int i) { return 0.3 * cos(1.0 + i + 0.7 * w) + 0.05 * w; }
static long double run(const double *p, int lane) {
  double b[N + 1]; memcpy(b, p, sizeof b);
  f(b, b + 1, N);
  long double r = 0;
  for (int i = 0; i < N + 1; i++) r += seed(lane, i) * (long double)b[i];
  return r;
}
int main(void) {
  int bad = 0;
  for (int sign = 0; sign < 2; sign++) {
    double v[N + 1], buf[N + 1], d[W][N + 1];
    for (int i = 0; i < N + 1; i++) v[i] = 0.3 + 0.4 * sin(2.0 * i);
    v[0] = sign ? -0.7 : 0.7;
    memcpy(buf, v, sizeof buf);
    for (int w = 0; w < W; w++) for (int i = 0; i < N + 1; i++) d[w][i] = seed(w, i);
#if W == 2
    __enzyme_autodiff((void *)f, enzyme_width, W, enzyme_dup, buf, d[0], d[1], enzyme_dup, buf + 1, d[0] + 1, d[1] + 1, enzyme_const, N);
#elif W == 3
    __enzyme_autodiff((void *)f, enzyme_width, W, enzyme_dup, buf, d[0], d[1], d[2], enzyme_dup, buf + 1, d[0] + 1, d[1] + 1, d[2] + 1, enzyme_const, N);
#else
    __enzyme_autodiff((void *)f, enzyme_width, W, enzyme_dup, buf, d[0], d[1], d[2], d[3], enzyme_dup, buf + 1, d[0] + 1, d[1] + 1, d[2] + 1, d[3] + 1, enzyme_const, N);
#endif
    double want_b[N + 1]; memcpy(want_b, v, sizeof want_b); f(want_b, want_b + 1, N);
    for (int i = 0; i < N + 1; i++) if (fabs(want_b[i] - buf[i]) > 1e-14 * (1 + fabs(want_b[i]))) { printf("primal buf[%d] %.17g want %.17g\n", i, buf[i], want_b[i]); bad++; }
    for (int w = 0; w < W; w++)
      for (int i = 0; i < N + 1; i++) {
        double up[N + 1], dn[N + 1]; memcpy(up, v, sizeof up); memcpy(dn, v, sizeof dn);
        up[i] += 1e-6; dn[i] -= 1e-6;
        long double want = (run(up, w) - run(dn, w)) / (long double)(up[i] - dn[i]);
        if (fabsl(d[w][i] - want) > 1e-6L * (1 + fabsl(want))) { printf("sign %d lane %d d[%d] = %.12g, fd %.12Lg\n", sign, w, i, d[w][i], want); bad++; }
      }
  }
  printf("%d mismatches\n", bad); return bad;
}

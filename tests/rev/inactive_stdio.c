/* printf, puts and snprintf inside the differentiated function, in
 * reverse and forward mode: they are known inactive (registry/inactive.c),
 * kept as primal calls that format the active values (snprintf's
 * characters then counted as an integer), and the gradient and tangents
 * are the arithmetic's alone. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "rev_check.h"
double __enzyme_fwddiff(void *, ...);

enum { N = 5 };

static double model(double *x, int n) {
  char line[64];
  double s = 0;
  for (int i = 0; i < n; i++) {
    int len = snprintf(line, sizeof line, "x[%d] = %.3f", i, x[i]);
    s += x[i] * x[i] * (len > 0 ? 1.0 : 0.0) + sin(x[i]) * x[(i + 1) % n];
  }
  printf("model: %s, sum %g\n", line, s);
  puts(line);
  size_t digits = strlen(line);
  s *= 1.0 + 0.01 * (double)(digits > 8);
  x[0] = x[0] * s; /* an output through the buffer as well */
  return s * x[n - 1];
}

RC_ARRAY_RUN(run_model, model, N)

static long double run_plain(const long double *p) {
  double x[N];
  for (int i = 0; i < N; i++)
    x[i] = (double)p[i];
  return model(x, N);
}

int main(void) {
  const double x0[N] = {0.4, -0.9, 1.3, 0.6, -1.7};
  double x[N], dx[N];
  long double p[N], got[N];
  for (int i = 0; i < N; i++)
    x[i] = x0[i], p[i] = x0[i];
  rc_seed(dx, N);
  __enzyme_autodiff((void *)model, enzyme_dup, x, dx, enzyme_const, N);
  for (int i = 0; i < N; i++)
    got[i] = dx[i];
  rc_check("inactive_stdio reverse", run_model, p, got, N);
  for (int i = 0; i < N; i++) {
    double xi[N], t[N] = {0};
    for (int k = 0; k < N; k++)
      xi[k] = x0[k];
    t[i] = 1;
    got[i] = __enzyme_fwddiff((void *)model, enzyme_dup, xi, t, enzyme_const, N);
  }
  rc_check("inactive_stdio forward", run_plain, p, got, N);
  return rc_result();
}

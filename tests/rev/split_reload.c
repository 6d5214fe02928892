#include <math.h>
#include "rev_check.h"
#include "split_abi.h"
/* Split mode where the caller overwrites the input between the halves (as
 * Enzyme allows: split mode assumes later calls may write the arguments):
 * the function writes no memory, so a whole gradient would reload x in the
 * reverse, but the reverse half must use the values the augmented half
 * read. */
augmented __enzyme_augmentfwd(void *, ...);
void __enzyme_reverse(void *, ...);

enum { N = 4 };

static double f(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += x[i] * x[i] * sin(x[(i + 1) % n]);
  return s;
}

static long double run(const long double *p) {
  double x[N];
  for (int i = 0; i < N; i++)
    x[i] = (double)p[i];
  long double r = f(x, N);
  for (int i = 0; i < N; i++)
    r += rc_seed_value(i) * (long double)x[i];
  return r;
}

int main(void) {
  double x[N] = {0.6, -0.9, 1.3, 0.4}, dx[N];
  long double p[N], got[N];
  for (int i = 0; i < N; i++)
    p[i] = x[i];
  rc_seed(dx, N);
  augmented a = __enzyme_augmentfwd((void *)f, enzyme_dup, x, dx,
                                    enzyme_const, N);
  for (int i = 0; i < N; i++)
    x[i] = 100.0 + i; /* the caller's next use of its buffer */
  __enzyme_reverse((void *)f, enzyme_dup, x, dx, enzyme_const, N, 1.0, a.tape);
  for (int i = 0; i < N; i++)
    got[i] = dx[i];
  rc_check("split_reload", run, p, got, N);
  return rc_result();
}

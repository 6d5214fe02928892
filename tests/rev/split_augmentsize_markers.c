#include <math.h>
#include <stdlib.h>
#include "rev_check.h"
/* __enzyme_augmentsize as Enzyme's users write it: the activity markers
 * alone, no values after them.  The size is the one the form with values
 * gives, and tapes kept in buffers of that size give the gradients; from
 * -O1 test_derivative is inlined into main and kept, so its requests
 * stand in two functions (a size is rewritten before the requests that
 * read it, wherever they are). */
double __enzyme_augmentfwd(void *, ...);
double __enzyme_reverse(void *, ...);
int __enzyme_augmentsize(void *, ...);
extern int enzyme_allocated, enzyme_tape;

enum { N = 4 };

static double tester(double *array) { return array[0] * array[0]; }

/* one marker; the reverse gets the result's adjoint, 1 */
void test_derivative(double *x, double *dx) {
  int size = __enzyme_augmentsize((void *)tester, enzyme_dup);
  void *data = malloc(size);
  __enzyme_augmentfwd((void *)tester, enzyme_allocated, size, enzyme_tape, data, x, dx);
  __enzyme_reverse((void *)tester, enzyme_allocated, size, enzyme_tape, data, x, dx, 1.0);
  free(data);
}

/* as Enzyme's own split-mode tests write it: no result adjoint after the
 * arguments, which Enzyme seeds with 1.0 (the tape by marker, then by
 * position, the only thing after the arguments) */
void test_derivative_default_seed(double *x, double *dx) {
  int size = __enzyme_augmentsize((void *)tester, enzyme_dup);
  void *data = malloc(size);
  __enzyme_augmentfwd((void *)tester, enzyme_allocated, size, enzyme_tape, data, x, dx);
  __enzyme_reverse((void *)tester, enzyme_allocated, size, enzyme_tape, data, x, dx);
  free(data);
}

typedef struct {
  void *tape;
  double result;
} tape_result;
tape_result __enzyme_augmentfwd_tape(void *, ...) __asm__("__enzyme_augmentfwd");

void test_derivative_positional_tape(double *x, double *dx) {
  tape_result t = __enzyme_augmentfwd_tape((void *)tester, x, dx);
  __enzyme_reverse((void *)tester, x, dx, t.tape);
}

static double f(double *x, double k, int n) {
  double e = 0;
  for (int i = 0; i < n; i++) {
    e += sin(k * x[i]) * x[i];
    x[i] *= k;
  }
  return e;
}

static long double run(const long double *p) {
  double x[N];
  for (int i = 0; i < N; i++)
    x[i] = (double)p[i];
  long double r = f(x, (double)p[N], N);
  for (int i = 0; i < N; i++)
    r += rc_seed_value(i) * (long double)x[i];
  return r;
}

int main(void) {
  double in[1] = {3.14}, grad_in[1] = {0.0};
  test_derivative(in, grad_in);
  rc_expect("augmentsize markers tester", grad_in[0], 6.28, 1e-12);
  grad_in[0] = 0.5;
  test_derivative_default_seed(in, grad_in);
  rc_expect("reverse seeded with 1.0 by default", grad_in[0], 0.5 + 6.28, 1e-12);
  grad_in[0] = 0.25;
  test_derivative_positional_tape(in, grad_in);
  rc_expect("reverse seeded with 1.0, tape by position", grad_in[0], 0.25 + 6.28,
            1e-12);

  /* one marker per parameter, as Enzyme's users write it */
  int markers = __enzyme_augmentsize((void *)f, enzyme_dup, enzyme_out, enzyme_const);
  int values = __enzyme_augmentsize((void *)f, enzyme_dup, 0, 0, enzyme_out, 0.0,
                                    enzyme_const, N);
  rc_expect("augmentsize markers == values", markers, values, 0);
  char *tape = malloc(markers);
  double x[N], dx[N], k = 0.7;
  long double p[N + 1], g[N + 1];
  for (int i = 0; i < N; i++)
    p[i] = x[i] = 0.3 + 0.2 * i;
  p[N] = k;
  rc_seed(dx, N);
  double y[N];
  for (int i = 0; i < N; i++)
    y[i] = x[i];
  double want = f(y, k, N);
  double e = __enzyme_augmentfwd((void *)f, enzyme_dup, x, dx, enzyme_out, k,
                                 enzyme_const, N, enzyme_allocated, markers,
                                 enzyme_tape, tape);
  double dk = __enzyme_reverse((void *)f, enzyme_dup, x, dx, enzyme_out, k,
                               enzyme_const, N, 1.0, enzyme_allocated, markers,
                               enzyme_tape, tape);
  free(tape);
  rc_expect("augmentsize markers primal", e, want, 1e-12);
  for (int i = 0; i < N; i++)
    g[i] = dx[i];
  g[N] = dk;
  rc_check("augmentsize markers f", run, p, g, N + 1);
  return rc_result();
}

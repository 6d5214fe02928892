#include <string.h>
#include "rev_check.h"
/* Arrays of structs with an int between two double arrays, copied
 * element by element (`p[i] = q[i]`, a struct copy) and whole (memcpy),
 * in the caller's memory (duplicated) and on the stack, where the
 * function reads only some members (the others' bytes known only from the
 * element GEP's struct type at -O0): type analysis must see the int as an
 * integer and the doubles as floats in every element. */
struct rec {
  double a[3];
  int k;
  double b[3];
};
#define M 2
#define NX (M * 6)
static double f(struct rec *q, struct rec *p, int n) {
  for (int i = 0; i < n; i++)
    p[i] = q[i];
  struct rec w[4];
  memcpy(w, p, (size_t)n * sizeof *p);
  double s = 0;
  for (int i = 0; i < n; i++)
    s += w[i].a[1] * w[i].b[2] + w[i].a[0] * w[(i + 1) % n].b[0];
  return s;
}
/* q's doubles flattened: element i's a[0..2], then b[0..2] */
static void unflatten(struct rec *q, const double *x) {
  for (int i = 0; i < M; i++) {
    q[i].k = i + 2;
    for (int j = 0; j < 3; j++)
      q[i].a[j] = x[6 * i + j], q[i].b[j] = x[6 * i + 3 + j];
  }
}
/* p is overwritten with q's values: its seed (dp) is consumed, as the
 * adjoint of its final values, into q's gradient; q is only read */
static long double run_f(const long double *x) {
  double xd[NX];
  for (int i = 0; i < NX; i++)
    xd[i] = (double)x[i];
  struct rec q[M], p[M];
  unflatten(q, xd);
  long double r = f(q, p, M);
  for (int i = 0; i < NX; i++)
    r += 2 * rc_seed_value(i) * x[i]; /* q's seed stays, p's is added */
  return r;
}
int main(void) {
  double x0[NX], seed[NX];
  for (int i = 0; i < NX; i++)
    x0[i] = 0.3 + 0.17 * i - (i % 3) * 0.4;
  rc_seed(seed, NX);
  struct rec q[M], dq[M], p[M], dp[M];
  unflatten(q, x0);
  unflatten(dq, seed);
  unflatten(dp, seed);
  __enzyme_autodiff((void *)f, enzyme_dup, q, dq, enzyme_dup, p, dp,
                    enzyme_const, M);
  long double px[NX], got[NX];
  for (int i = 0; i < M; i++)
    for (int j = 0; j < 3; j++) {
      got[6 * i + j] = dq[i].a[j], got[6 * i + 3 + j] = dq[i].b[j];
      rc_expect("dp consumed", dp[i].a[j] + dp[i].b[j], 0, 0);
    }
  for (int i = 0; i < NX; i++)
    px[i] = x0[i];
  rc_check("struct_array_int_middle", run_f, px, got, NX);
  for (int i = 0; i < M; i++)
    rc_expect("k copied", p[i].k, i + 2, 0);
  return rc_result();
}

#include "rev_check.h"
/* A struct whose bytes mix a double, an int, a float, a double array and
 * a pointer into active memory, copied whole: by assignment, as a by-value
 * argument (byval: 40 bytes) and as a returned struct (sret).  At -O0
 * clang moves it with one llvm.memcpy each time: the float bytes' adjoints
 * go back through every copy, the pointer's shadow forward. */
struct rec {
  double x;
  int n;
  float w;
  double y[2];
  const double *scale;
};

__attribute__((noinline)) static double score(struct rec r) {
  double s = r.x * r.y[0] * r.w;
  for (int i = 0; i < r.n; i++)
    s += r.y[1] * r.x * *r.scale;
  return s;
}

__attribute__((noinline)) static struct rec twist(struct rec r, double t) {
  struct rec o = r;
  o.x = r.x * t + r.y[1];
  o.y[0] = r.y[0] * r.w;
  o.w = (float)(r.w * 0.5);
  return o;
}

static double mixed_struct_copy(double *x, int n) {
  struct rec m = {x[0], n - 3, (float)x[1], {x[2], x[3]}, &x[4]};
  struct rec q;
  q = m; /* assignment */
  q.x *= 2;
  struct rec t = twist(q, x[1]); /* byval in, sret out */
  x[3] = t.y[0] + t.w;
  return score(t) + score(m) * t.x + q.y[1];
}

RC_ARRAY_RUN(run_mixed, mixed_struct_copy, 5)

int main(void) {
  double x0[5] = {1.5, 0.75, 2.0, 3.0, -0.5}, x[5], dx[5];
  long double p[5], got[5];
  for (int i = 0; i < 5; i++)
    x[i] = x0[i], p[i] = x0[i];
  rc_seed(dx, 5);
  __enzyme_autodiff((void *)mixed_struct_copy, enzyme_dup, x, dx,
                    enzyme_const, 5);
  for (int i = 0; i < 5; i++)
    got[i] = dx[i];
  /* the float member rounds: finite differences see float round-off */
  rc_check_tol("mixed_struct_copy", run_mixed, p, got, 5, 1e-4L, 1e-4L);
  return rc_result();
}

/*
 * A "closed" library for the custom-rule tests: functions with no IR that a
 * session reaches only through tanjit_add_library or an ejlstr$ rename, and
 * their hand-written forward derivatives in the signature tanjit.h documents.
 * Counters let a test see which of primal and derivative actually ran.
 */
#include <math.h>

typedef struct {
  double primal, tangent;
} closed_dual;

static int square_calls, cube_calls, cube_pair_calls;

double closed_square(double x) {
  square_calls++;
  return x * x;
}
double closed_square_fwd(double x, double dx) { return 2.0 * x * dx; }

/* cube's pair rule returns a primal deliberately off by one, so a test can
 * tell that the primal came from the rule, not from closed_cube. */
double closed_cube(double x) {
  cube_calls++;
  return x * x * x;
}
closed_dual closed_cube_fwd_pair(double x, double dx) {
  cube_pair_calls++;
  closed_dual r = {x * x * x + 1.0, 3.0 * x * x * dx};
  return r;
}

/* scale(p, n) multiplies n doubles in place by 3: the pointer-argument
 * case.  The tangent-only rule updates the shadow beside the kept primal
 * call; the RETURNS_PRIMAL rule does both (the primal call is not made). */
void closed_scale(double *p, long n) {
  for (long i = 0; i < n; i++)
    p[i] *= 3.0;
}
void closed_scale_fwd(double *p, double *dp, long n) {
  (void)p;
  for (long i = 0; i < n; i++)
    dp[i] *= 3.0;
}
void closed_scale_fwd_all(double *p, double *dp, long n) {
  for (long i = 0; i < n; i++) {
    p[i] *= 3.0;
    dp[i] *= 3.0;
  }
}

/* A stand-in for log that has no IR: __enzyme_function_like names it "log". */
double closed_log(double x) { return log(x); }

int closed_square_calls(void) { return square_calls; }
int closed_cube_calls(void) { return cube_calls; }
int closed_cube_pair_calls(void) { return cube_pair_calls; }

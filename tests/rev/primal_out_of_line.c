#include "rev_check.h"
/* The augmented pass computes the primal's values as the primal compiled
 * on its own does, also where fast-math's `reassoc` (here by pragma;
 * Enzyme's integrateconst.cpp at -ffast-math) lets LLVM regroup products.
 * euler counts its steps by comparing (n + 1) dt with t, dt = t/3: at
 * t = 8.1 the last bit of dt decides.  main passes t = i * 0.1; out of
 * line dt is (i * 0.1) * (1/3), 3 steps.  Were the pair inlined into
 * main, the backend could fold the two constants into i * (0.1/3), one
 * ulp off, and take 2 steps: x = 5.0176 for 1 - 0.4t = -2.24, and a
 * gradient exact for that primal (1.792) but not for euler as the program
 * calls it (-6.02112).  So the request's calls of the pair stay out of
 * line (rev/cache.c, keep_out_of_line).  Each gradient is checked against
 * the analytic derivative for the step count of euler called out of line,
 * from a nonzero shadow. */
#pragma clang fp reassociate(on)

static int euler_steps;

double euler(double t, const double *start) {
  double dt = t * (1.0 / 3.0);
  double rate = 0.4 * t; /* 1.2 dt */
  double x = *start;
  int n = 0;
  while (n * dt + dt - t <= 0x1p-52) {
    x -= rate * x;
    n++;
  }
  euler_steps = n;
  return x;
}

/* the reference: euler through a pointer the compiler cannot see through */
static double (*volatile euler_out_of_line)(double, const double *) = euler;

int main(void) {
  for (int i = 1; i <= 100; i++) {
    double t = i * 0.1;
    double start = 1.0, dstart = 0.25; /* a nonzero shadow: += */
    euler_out_of_line(t, &start);
    int n = euler_steps;
    double dt = __enzyme_autodiff((void *)euler, enzyme_out, t, enzyme_dup,
                                  &start, &dstart);
    rc_expect("primal_out_of_line: augmented pass step count", euler_steps,
              n, 0);
    /* x = start (1 - 0.4 t)^n: dx/dt = -0.4 n (1 - 0.4 t)^(n - 1),
     * dx/dstart = (1 - 0.4 t)^n */
    long double base = 1.0L - 0.4L * t;
    long double want_t = -0.4L * n * powl(base, n - 1);
    long double want_start = 0.25L + powl(base, n);
    rc_expect("primal_out_of_line: d/dt", dt, want_t,
              1e-9L * (1 + fabsl(want_t)));
    rc_expect("primal_out_of_line: d/dstart", dstart, want_start,
              1e-9L * (1 + fabsl(want_start)));
  }
  return rc_result();
}

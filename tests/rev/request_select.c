/*
 * Requests chosen at run time between functions: from -O1 clang merges
 * the branches' __enzyme_autodiff (or __enzyme_fwddiff) calls into one
 * whose function is a select of them (nested for three), which tanjit
 * splits back into one request per function (src/ad/request_select.c).
 * Markers stay markers (loads of the globals), the other operands are
 * values; exactly one derivative runs.  Checked against the analytic
 * derivatives, from nonzero shadows.
 */
#include <math.h>
#include <stdio.h>

extern int enzyme_dup, enzyme_const, enzyme_out;
void __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

static double sq(const double *x, int k) { return k * x[0] * x[0]; }
static double cu(const double *x, int k) { return k * x[0] * x[0] * x[0]; }
static double qu(const double *x, int k) { return k * pow(x[0], 4); }

static int failures;

static void expect(const char *what, int o, double got, double want) {
  if (!(fabs(got - want) <= 1e-12 * (1 + fabs(want)))) {
    printf("MISMATCH %s %d: got %.17g, expected %.17g\n", what, o, got, want);
    failures++;
  }
}

__attribute__((noinline)) static void gradient(int o, double *x, double *g,
                                               int k) {
  if (o == 0)
    __enzyme_autodiff((void *)sq, enzyme_dup, x, g, enzyme_const, k);
  else if (o == 1)
    __enzyme_autodiff((void *)cu, enzyme_dup, x, g, enzyme_const, k);
  else
    __enzyme_autodiff((void *)qu, enzyme_dup, x, g, enzyme_const, k);
}

__attribute__((noinline)) static double tangent(int o, double *x, double *dx,
                                                int k) {
  return o == 0 ? __enzyme_fwddiff((void *)sq, enzyme_dup, x, dx,
                                   enzyme_const, k)
                : __enzyme_fwddiff((void *)cu, enzyme_dup, x, dx,
                                   enzyme_const, k);
}

int main(int argc, char **argv) {
  (void)argv;
  int k = argc + 2; /* 3, unknown to the compiler */
  for (int o = 0; o < 3; o++) {
    double x[1] = {1.5}, g[1] = {0.25};
    gradient(o, x, g, k);
    double want = o == 0 ? 2 * k * 1.5 : o == 1 ? 3 * k * 1.5 * 1.5
                                                 : 4 * k * 1.5 * 1.5 * 1.5;
    expect("gradient", o, g[0], 0.25 + want);
    if (o < 2) {
      double dx[1] = {-0.5};
      expect("tangent", o, tangent(o, x, dx, k), -0.5 * want);
    }
  }
  if (failures)
    return 1;
  printf("ok\n");
  return 0;
}

#include <math.h>
#include <stdlib.h>
#include "rev_check.h"
/* Custom gradients whose reverse reads its primal inputs through its
 * pointer arguments (Enzyme's customcombined.c style), where that memory
 * is gone or changed by the time the reverse runs: a stack local of the
 * differentiated function (its frame has returned), the same in a callee
 * called in a loop whose local is overwritten each iteration, and a heap
 * block freed (and its memory reused) before the reverse.  The reverse
 * must see each call's inputs (rev/custom_inputs.c copies them). */

__attribute__((noinline)) void square_(const double *src, double *dest) {
  *dest = *src * *src;
}
void *aug_square_(const double *src, double *d_src, double *dest,
                  double *d_dest) {
  *dest = *src * *src;
  return NULL;
}
void rev_square_(const double *src, double *d_src, double *dest,
                 double *d_dest, void *tape) {
  (void)dest, (void)tape;
  *d_src += 2 * *src * *d_dest;
  *d_dest = 0;
}
void *__enzyme_register_gradient_square[3] = {
    (void *)square_, (void *)aug_square_, (void *)rev_square_};

/* a stack local, then a big local array over the frame */
static double on_stack(double x) {
  double a = x * 3, y;
  square_(&a, &y);
  double big[64];
  for (int i = 0; i < 64; i++)
    big[i] = y + i;
  return big[63] * x;
}

/* a callee's local, overwritten at every iteration of its caller */
__attribute__((noinline)) static double step(double x, int k) {
  double a[2] = {x * (k + 1), x - k}, y;
  square_(&a[1], &y);
  a[1] = 1e300; /* after the call: the reverse must see x - k */
  return y + a[0];
}
static double in_callee(double x) {
  double s = 0;
  for (int k = 0; k < 3; k++)
    s += step(x * s + x, k);
  return s;
}

/* a heap block freed after the call, its memory reused */
static double on_heap(double x) {
  double *a = malloc(sizeof *a), y;
  *a = x * 3;
  square_(a, &y);
  free(a);
  double *junk = malloc(sizeof *junk);
  *junk = 1e300;
  double r = y * x + *junk * 0;
  free(junk);
  return r;
}

static long double run_stack(const long double *p) {
  return on_stack((double)p[0]);
}
static long double run_callee(const long double *p) {
  return in_callee((double)p[0]);
}
static long double run_heap(const long double *p) {
  return on_heap((double)p[0]);
}

int main(void) {
  long double p[1] = {0.7}, got[1];
  got[0] = __enzyme_autodiff((void *)on_stack, (double)p[0]);
  rc_check("custom_inputs stack", run_stack, p, got, 1);
  got[0] = __enzyme_autodiff((void *)in_callee, (double)p[0]);
  rc_check("custom_inputs callee loop", run_callee, p, got, 1);
  got[0] = __enzyme_autodiff((void *)on_heap, (double)p[0]);
  rc_check("custom_inputs heap", run_heap, p, got, 1);
  return rc_result();
}

/* One function, log_terms, requested directly with an enzyme_const log
 * buffer it never reads (taken, as in fwd_const_scratch.c) and also
 * called from total, differentiated too, which reads the buffer back
 * after the call.  The derivative made for the direct request must not
 * serve the call: total's loads from the constant buffer carry no tangent,
 * so the sum it returns would get a tangent missing every term.  The call
 * gets a derivative of its own (the cache key tells a request's own
 * derivative from a callee's), which refuses the store, naming it.  The
 * direct request asks for the primal too, so that its derivative has the
 * very signature the call's would have but for that key. */
extern int enzyme_const, enzyme_dup, enzyme_primal_return;
double __enzyme_fwddiff(void *, ...);
typedef struct {
  double primal, tangent;
} with_primal;
with_primal __enzyme_fwddiff_with_primal(void *, ...) __asm__("__enzyme_fwddiff");
__attribute__((noinline)) static double log_terms(const double *x,
                                                  double *log_out, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    log_out[i] = x[i] * x[i];
    s += x[i];
  }
  return s;
}
static double total(const double *x, double *log_out, int n) {
  double s = log_terms(x, log_out, n);
  for (int i = 0; i < n; i++)
    s += log_out[i]; /* read back after the call */
  return s;
}
int main(void) {
  double x[3] = {1, 2, 3}, dx[3] = {1, 1, 1}, log_out[3];
  with_primal a = __enzyme_fwddiff_with_primal(
      (void *)log_terms, enzyme_primal_return, enzyme_dup, x, dx,
      enzyme_const, log_out, enzyme_const, 3);
  double b = __enzyme_fwddiff((void *)total, enzyme_dup, x, dx, enzyme_const,
                              log_out, enzyme_const, 3);
  /* tangents 3 and 3 + 2 * (1 + 2 + 3); primal 1 + 2 + 3 */
  return a.primal != 6.0 || a.tangent + b != 18.0;
}

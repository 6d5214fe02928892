/* Driver API, synchronous, transfers of mixed bytes: an array of structs
 * (a double, an int, padding, a pointer to active memory) staged through
 * device memory (HtoD, DtoD, DtoH) with a run-time length, so the layout
 * repeats per element.  The doubles' adjoints come back through the
 * reverse of each transfer, segment by segment; the pointers' shadows
 * travel with them in the augmented pass (the loss reads through the
 * copied pointers, so w's gradient needs them); the ints, which scale the
 * loss, get no adjoint.  out is seeded too: its doubles are overwritten,
 * so their seeds pass to in's and out's shadow ends zero there. */
#include <stdlib.h>

#include <cuda.h>
#include <cudasim.h>

#include "rev_cuda_mixed.h"
#include "rev_cuda_setup.h"

double f(const item *in, item *out, long n) {
  size_t bytes = (size_t)n * sizeof(item);
  CUdeviceptr a, b;
  cuMemAlloc(&a, bytes);
  cuMemAlloc(&b, bytes);
  cuMemcpyHtoD(a, in, bytes);
  cuMemcpyDtoD(b, a, bytes);
  cuMemcpyDtoH(out, b, bytes);
  double s = rcm_loss(out, n);
  cuMemFree(a);
  cuMemFree(b);
  return s;
}

static long double run(const long double *p) {
  return rcm_run(p, f);
}

int main(void) {
  if (rcs_driver_context())
    return 100;
  rcm_state st;
  rcm_setup(&st);
  struct cudasim_counters before, after;
  cudasim_get_counters(&before);
  __enzyme_autodiff((void *)f, enzyme_dup, st.in, st.din, enzyme_dup, st.out,
                    st.dout, enzyme_const, (long)RCM_N);
  cudasim_get_counters(&after);
  rcm_check("driver_mixed", &st, run);
  rcs_expect_clean(&before, &after);
  return rcc_result("driver_mixed");
}

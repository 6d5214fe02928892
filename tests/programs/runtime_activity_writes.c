/* Run-time activity for what calls and atomics write: an enzyme_const
 * buffer reached through a pointer read from memory (a closure or tuple of
 * Const and Duplicated arrays, picked by an index) must receive the primal's
 * results only.  sincos and modf write through out-parameters, an atomic
 * add updates in place, a struct of {pointer, length} passed by value
 * carries the pointer into a callee, realloc grows a constant block, and
 * posix_memalign allocates into a constant slot. */
#define _GNU_SOURCE
#include <stdlib.h>

#include "enzyme.h"
#include "tangent_check.h"

void sincos(double, double *, double *);

typedef struct {
  double *data;
  long n;
} array;

/* slots[k] is the array to write: 0 the constant one, 1 the duplicated */
double trig_into(double x, double *cst, double *dup, int k) {
  double *slots[2] = {cst, dup};
  double *out = slots[k];
  sincos(x * x, &out[0], &out[1]);
  double whole;
  double frac = modf(3.0 + x, &whole);
  out[2] = whole;
  return frac;
}

double atomic_into(double x, double *cst, double *dup, int k) {
  double *slots[2] = {cst, dup};
  __atomic_fetch_add(&slots[k][0], x * x, __ATOMIC_RELAXED);
  return x;
}

__attribute__((noinline)) void scale_array(array a, double s) {
  for (long i = 0; i < a.n; i++)
    a.data[i] *= s;
}
double by_value(double x, double *cst, double *dup, int k) {
  array slots[2] = {{cst, 2}, {dup, 2}};
  array a = slots[k];
  scale_array(a, x);
  return x;
}

/* The block to grow is kept in constant memory: realloc must not grow a
 * shadow that is the block itself (a double free). */
double grown(double x, double **cst_holder, double **dup_holder, int k) {
  double **slots[2] = {cst_holder, dup_holder};
  double *q = realloc(*slots[k], 4 * sizeof *q);
  *slots[k] = q;
  q[1] = x * x;
  return q[0] + x;
}

double aligned_into(double x, void **cst_slot, void **dup_slot, int k) {
  void **slots[2] = {cst_slot, dup_slot};
  if (posix_memalign(slots[k], 64, 4 * sizeof(double)))
    return 0;
  double *p = *slots[k];
  p[0] = x * x;
  return 3 * x;
}

/* The results come back through the memory written, not the return value
 * (which would read inactive memory: zero tangents under run-time activity,
 * or the tangent itself where clang forwards a store to a load). */
int main(void) {
  double x = 0.6, s2 = sinl(0.36L), c2 = cosl(0.36L);
  for (int k = 0; k < 2; k++) {
    double cst[3] = {-1, -1, -1}, dup[3] = {-1, -1, -1}, ddup[3] = {0, 0, 0};
    check_tangent("modf's fraction",
                  __enzyme_fwddiff((void *)trig_into, x, 1.0, enzyme_const, cst,
                                   enzyme_dup, dup, ddup, enzyme_const, k),
                  1.0);
    double *written = k ? dup : cst;
    check_primal_out("sin written", written[0], s2);
    check_primal_out("cos written", written[1], c2);
    check_primal_out("whole part written", written[2], 3.0);
    check_primal_out("untouched", (k ? cst : dup)[0], -1);
    check_tangent("d sin", ddup[0], k ? 2 * x * c2 : 0);
    check_tangent("d cos", ddup[1], k ? -2 * x * s2 : 0);

    double a[1] = {1.0}, b[1] = {1.0}, db[1] = {0};
    check_tangent("atomic add",
                  __enzyme_fwddiff((void *)atomic_into, x, 1.0, enzyme_const, a,
                                   enzyme_dup, b, db, enzyme_const, k),
                  1.0);
    check_primal_out("added", (k ? b : a)[0], 1.0 + x * x);
    check_primal_out("not added", (k ? a : b)[0], 1.0);
    check_tangent("d added", db[0], k ? 2 * x : 0);

    double v[2] = {1, 2}, w[2] = {1, 2}, dw[2] = {0.5, 0};
    check_tangent("struct by value",
                  __enzyme_fwddiff((void *)by_value, x, 1.0, enzyme_const, v,
                                   enzyme_dup, w, dw, enzyme_const, k),
                  1.0);
    check_primal_out("scaled 0", (k ? w : v)[0], x);
    check_primal_out("scaled 1", (k ? w : v)[1], 2 * x);
    check_tangent("d scaled 0", dw[0], k ? 1 + 0.5 * x : 0.5);
    check_tangent("d scaled 1", dw[1], k ? 2.0 : 0);
  }

  /* realloc of a block kept in constant memory: the shadow must not be the
   * block grown again (a double free) */
  double *block = malloc(2 * sizeof *block), *unused = NULL, *dunused = NULL;
  block[0] = 5;
  check_tangent("realloc of a block in const memory",
                __enzyme_fwddiff((void *)grown, x, 1.0, enzyme_const, &block,
                                 enzyme_dup, &unused, &dunused, enzyme_const, 0),
                1.0);
  check_primal_out("grown block", block[0] + block[1], 5 + x * x);
  free(block);

  /* posix_memalign into a constant slot makes no shadow block (it would
   * overwrite the primal's address and leak); into a duplicated one it
   * does, and the tangent lands there */
  for (int k = 0; k < 2; k++) {
    void *slot = NULL, *other = NULL, *dother = NULL;
    check_tangent("posix_memalign",
                  __enzyme_fwddiff((void *)aligned_into, x, 1.0, enzyme_const,
                                   &slot, enzyme_dup, &other, &dother,
                                   enzyme_const, k),
                  3.0);
    void *got = k ? other : slot;
    check_int("aligned", got && ((unsigned long)got % 64) == 0, 1);
    check_primal_out("x^2 stored", *(double *)got, x * x);
    check_int("shadow block made", dother != NULL, k);
    if (k)
      check_tangent("d x^2 stored in the shadow", *(double *)dother, 2 * x);
    free(slot);
    free(other);
    free(dother);
  }
  return tc_finish("runtime_activity_writes");
}

/*
 * An OpenMP reduction's atomic method (clang -fopenmp): the code clang
 * emits for `__kmpc_reduce[_nowait]` returning 2.  Both modes replace the
 * reduction by its lock (rev/openmp.c, fwd/openmp.c), so those blocks
 * never run, but they are differentiated with the rest of the region.
 */
#ifndef TANJIT_AD_ANALYSIS_OMP_REDUCTION_H
#define TANJIT_AD_ANALYSIS_OMP_REDUCTION_H

#include "ad/core/context.h"

/* The first instruction of reduce_call's atomic method that is a
 * compare-and-swap (cmpxchg, or an atomicrmw other than a float fadd or
 * fsub) on an active value or memory, into *where: 1 when there is one,
 * 0 when none (or the result picks no atomic method), -1 out of memory. */
int ad_omp_reduction_atomic_cas(const ad_fn_ctx *fc, LLVMValueRef reduce_call,
                                LLVMValueRef *where);

#endif

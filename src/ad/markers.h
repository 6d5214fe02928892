/* The markers requests take (markers.c): one table for every request kind. */
#ifndef TANJIT_AD_MARKERS_H
#define TANJIT_AD_MARKERS_H

#include <stddef.h>

#include <llvm-c/Core.h>

typedef enum ad_marker {
  AD_MARK_NONE, /* not a marker: a value */
  AD_MARK_DUP,
  AD_MARK_CONST,
  AD_MARK_DUPNONEED,
  AD_MARK_WIDTH, /* enzyme_width N: forward, reverse and batch requests */
  AD_MARK_PRIMAL_RETURN,
  /* the result's activity and whether the primal is wanted, as Enzyme's
   * C++ header (<enzyme/enzyme>) passes them, by address, ahead of the
   * arguments */
  AD_MARK_DUP_RETURN,
  AD_MARK_CONST_RETURN,
  AD_MARK_ACTIVE_RETURN,
  AD_MARK_NORET,
  /* enzyme_runtime_activity: a duplicated argument's shadow may be the
   * argument itself at run time, meaning its memory is inactive */
  AD_MARK_RUNTIME_ACTIVITY,
  AD_MARK_OUT, /* reverse mode: an active scalar whose adjoint is returned */
  /* Enzyme's C++ header: every argument with its marker first, then this,
   * then the shadows of the duplicated ones in order */
  AD_MARK_INTERLEAVE,
  /* split reverse mode: where the tape goes (enzyme_tape p) and the bytes
   * the caller gives it there (enzyme_allocated N); each takes a value */
  AD_MARK_TAPE,
  AD_MARK_ALLOCATED,
  /* __enzyme_batch (batch.c): one value for every lane, one per lane, a
   * buffer and its stride */
  AD_MARK_SCALAR,
  AD_MARK_VECTOR,
  AD_MARK_BUFFER,
  AD_MARK_UNKNOWN /* another enzyme_ name: no marker of this request kind */
} ad_marker;

/* Which requests read a marker. */
enum { AD_MARKERS_DIFF = 1, /* __enzyme_fwddiff, __enzyme_autodiff, split */
       AD_MARKERS_BATCH = 2 };

/* The marker operand `v` is for requests of kind `kinds` (AD_MARKERS_*):
 * a load of (or the address of) a global enzyme_..., or
 * `metadata !"enzyme_..."`.  Its name as written goes to *name and *len
 * (NULL and 0 when v is neither). */
ad_marker ad_marker_of(LLVMValueRef v, unsigned kinds, const char **name,
                       size_t *len);

#endif

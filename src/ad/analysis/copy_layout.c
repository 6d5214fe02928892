/*
 * Type classification from LLVM types alone (which types can carry a
 * derivative, Enzyme's default activity for unmarked request arguments),
 * and the copy-layout query, which asks the byte-level type analysis
 * (typeanalysis.c) about the function holding the copy.
 */
#include <stdlib.h>

#include "ad/analysis/types.h"
#include "ad/core/context.h"
#include "ad/core/diag.h"

/* The analysis of the function being differentiated runs once, on its
 * first copy, and is kept in the context (fc->types) for the others. */
int ad_copy_layout_of(ad_fn_ctx *fc, LLVMValueRef call, LLVMValueRef dst,
                      LLVMValueRef src, LLVMValueRef len, ad_copy_layout *out) {
  out->segs = NULL;
  out->n = 0;
  out->period = 0;
  LLVMValueRef fn = LLVMGetBasicBlockParent(LLVMGetInstructionParent(call));
  int cacheable = fn == fc->primal_fn;
  ad_types *t = cacheable ? fc->types : NULL;
  if (!t)
    t = ad_types_analyze(fc->mc->engine, fc->mc->mod, fc->mc->td, fn);
  if (cacheable)
    fc->types = t;
  int rc = t ? ad_types_copy_layout(t, dst, src, len, out) : -1;
  if (!cacheable)
    ad_types_free(t);
  if (rc != 0) {
    ad_copy_layout_free(out);
    return ad_fail_code(fc->mc, TANJIT_ERR_NO_MEMORY, call, "out of memory");
  }
  return 0;
}

void ad_copy_layout_free(ad_copy_layout *l) {
  free(l->segs);
  l->segs = NULL;
  l->n = 0;
}


/*
 * Type classification from LLVM types alone (which types can carry a
 * derivative, Enzyme's default activity for unmarked request arguments),
 * and the copy-layout query, which asks the byte-level type analysis
 * (typeanalysis.c) about the function holding the copy.
 */
#include <stdlib.h>

#include "ad/engine.h"
#include "ad/typeanalysis.h"

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

int ad_type_is_float_scalar(LLVMTypeRef t) {
  switch (LLVMGetTypeKind(t)) {
  case LLVMHalfTypeKind:
  case LLVMBFloatTypeKind:
  case LLVMFloatTypeKind:
  case LLVMDoubleTypeKind:
  case LLVMX86_FP80TypeKind:
  case LLVMFP128TypeKind:
  case LLVMPPC_FP128TypeKind:
    return 1;
  default:
    return 0;
  }
}

int ad_type_is_float(LLVMTypeRef t) {
  if (LLVMGetTypeKind(t) == LLVMVectorTypeKind ||
      LLVMGetTypeKind(t) == LLVMScalableVectorTypeKind)
    t = LLVMGetElementType(t);
  return ad_type_is_float_scalar(t);
}

int ad_type_is_pointerish(LLVMTypeRef t) {
  if (LLVMGetTypeKind(t) == LLVMVectorTypeKind)
    t = LLVMGetElementType(t);
  return LLVMGetTypeKind(t) == LLVMPointerTypeKind;
}

static int can_carry_depth(LLVMTypeRef t, int depth) {
  if (depth > 16)
    return 0;
  if (ad_type_is_float(t) || ad_type_is_pointerish(t))
    return 1;
  switch (LLVMGetTypeKind(t)) {
  case LLVMArrayTypeKind:
    return can_carry_depth(LLVMGetElementType(t), depth + 1);
  case LLVMStructTypeKind: {
    unsigned n = LLVMCountStructElementTypes(t);
    for (unsigned i = 0; i < n; i++)
      if (can_carry_depth(LLVMStructGetTypeAtIndex(t, i), depth + 1))
        return 1;
    return 0;
  }
  default:
    return 0;
  }
}

int ad_type_can_carry(LLVMTypeRef t) { return can_carry_depth(t, 0); }

ad_arg_activity ad_type_default_activity(LLVMTypeRef t) {
  /* Enzyme's whatType (LLVM >= 18, opaque pointers): pointers and floats
   * are DUP_ARG in forward mode, integers CONSTANT, aggregates DUP_ARG when
   * a member is. */
  return ad_type_can_carry(t) ? AD_ARG_DUP : AD_ARG_CONST;
}

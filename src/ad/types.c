/*
 * Type classification.  This is the seed of type analysis: today it decides
 * from LLVM types alone (which types can carry a derivative, Enzyme's default
 * activity for unmarked request arguments); a byte-level analysis of memory
 * (float / int / pointer per offset) belongs here when it grows.
 */
#include <stdlib.h>

#include "ad/engine.h"

int ad_copy_layout_of(ad_fn_ctx *fc, LLVMValueRef call, LLVMValueRef dst,
                      LLVMValueRef src, LLVMValueRef len, ad_copy_layout *out) {
  (void)fc, (void)call, (void)dst, (void)src, (void)len;
  out->period = 0;
  out->n = 1;
  out->segs = calloc(1, sizeof *out->segs);
  if (!out->segs)
    return -1;
  out->segs[0].offset = 0;
  out->segs[0].size = ~0ull; /* the whole copy */
  out->segs[0].kind = AD_BYTES_UNKNOWN;
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

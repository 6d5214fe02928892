/* Classes of LLVM types: which can carry a derivative. */
#include "ad/ir/ir.h"

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

static int holds_pointer_depth(LLVMTypeRef t, int depth) {
  if (ad_type_is_pointerish(t))
    return 1;
  if (depth > 8)
    return 0;
  switch (LLVMGetTypeKind(t)) {
  case LLVMArrayTypeKind:
    return holds_pointer_depth(LLVMGetElementType(t), depth + 1);
  case LLVMStructTypeKind:
    for (unsigned i = 0; i < LLVMCountStructElementTypes(t); i++)
      if (holds_pointer_depth(LLVMStructGetTypeAtIndex(t, i), depth + 1))
        return 1;
    return 0;
  default:
    return 0;
  }
}

int ad_type_holds_pointer(LLVMTypeRef t) { return holds_pointer_depth(t, 0); }

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

/* A call's argument that is a null (or undef/poison) pointer: the callee
 * can never dereference it, so every access through the parameter lies on
 * a path that does not run with this argument (C's `if (out) *out = x;`
 * called as f(x, 0)).  Callers give such an argument a null shadow and
 * the parameter a duplicated activity: a constant parameter would make
 * the callee refuse its stores of active values, and the shadow null is
 * as unreachable as the primal. */
#include "ad/ir/ir.h"

int ad_is_null_pointer_argument(LLVMValueRef call, LLVMValueRef fn,
                                LLVMValueRef a) {
  LLVMTypeRef t = LLVMTypeOf(a);
  if (LLVMGetTypeKind(t) != LLVMPointerTypeKind)
    return 0;
  if (!LLVMIsAConstantPointerNull(a) && !LLVMIsUndef(a))
    return 0;
  /* only address space 0's null is never valid memory, and only where the
   * callee does not declare it valid (freestanding or kernel code) */
  if (LLVMGetPointerAddressSpace(t) != 0)
    return 0;
  /* code the engine made (a nested request's derivative, its helpers with
   * their tape or shadow slots passed null) is left as emitted: active-
   * global discovery ran before it existed and cannot have seen what a
   * shadow there demands */
  LLVMValueRef caller = LLVMGetBasicBlockParent(LLVMGetInstructionParent(call));
  if ((fn && ad_is_generated_function(fn)) || ad_is_generated_function(caller))
    return 0;
  unsigned valid = LLVMGetEnumAttributeKindForName("null_pointer_is_valid", 21);
  return !(fn && valid &&
           LLVMGetEnumAttributeAtIndex(fn, LLVMAttributeFunctionIndex, valid));
}

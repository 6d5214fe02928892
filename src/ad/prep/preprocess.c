/*
 * Preprocessing before differentiation, as Enzyme does on the functions it
 * differentiates: promote stack slots to SSA values (SROA); then sign-bit
 * masks on a float's bits become the float operations they are (signbits.c).
 *
 * Why: clang -O0 keeps every local, pointers included, in a stack slot.  A
 * constant pointer (an enzyme_const argument, a table) stored in a slot that
 * also becomes active (the slot's address flows to a call with active
 * arguments) would give the slot's shadow a copy of the primal pointer, and
 * the derivative would read primal values as tangents.  With the slots
 * promoted, the pointer is an SSA value again and activity analysis sees it
 * is constant; -O0 code then differentiates as -O1..-O3 code does.
 *
 * clang marks -O0 functions optnone, which every pass skips; the attribute
 * is dropped from the functions of a module that requests derivatives (the
 * session's own pipeline still decides how the result is optimized).
 */
#include <llvm-c/Transforms/PassBuilder.h>

#include "ad/prep/prep.h"

int ad_preprocess_module(LLVMModuleRef m, tanjit_error **err) {
  unsigned optnone = LLVMGetEnumAttributeKindForName("optnone", 7);
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
    if (!LLVMIsDeclaration(f) &&
        LLVMGetEnumAttributeAtIndex(f, LLVMAttributeFunctionIndex, optnone))
      LLVMRemoveEnumAttributeAtIndex(f, LLVMAttributeFunctionIndex, optnone);
  LLVMPassBuilderOptionsRef opts = LLVMCreatePassBuilderOptions();
  LLVMErrorRef e = LLVMRunPasses(m, "function(sroa<modify-cfg>)", NULL, opts);
  LLVMDisposePassBuilderOptions(opts);
  if (e)
    return tj_fail_llvm(err, TANJIT_ERR_INTERNAL, e,
                        "preparing the module for differentiation");
  /* After SROA, which turns unions and memcpy through stack slots into the
   * bitcasts the rewrite looks for. */
  ad_rewrite_sign_bit_operations(m);
  return 0;
}

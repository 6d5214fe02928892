/* Enzyme's default activity for an unmarked request argument. */
#include "ad/analysis/activity.h"
#include "ad/core/context.h"
#include "ad/ir/ir.h"

ad_arg_activity ad_type_default_activity(LLVMTypeRef t) {
  /* Enzyme's whatType (LLVM >= 18, opaque pointers): pointers and floats
   * are DUP_ARG in forward mode, integers CONSTANT, aggregates DUP_ARG when
   * a member is. */
  return ad_type_can_carry(t) ? AD_ARG_DUP : AD_ARG_CONST;
}

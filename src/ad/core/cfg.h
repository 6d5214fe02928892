/* Block orders of a function's control-flow graph (core/cfg.c). */
#ifndef TANJIT_AD_CORE_CFG_H
#define TANJIT_AD_CORE_CFG_H

#include <stddef.h>

#include <llvm-c/Core.h>

/* The blocks of `fn` reachable from its entry, in reverse post-order
 * (every block after its dominators), their number in *count.  NULL on
 * out of memory; the caller frees the array. */
LLVMBasicBlockRef *ad_reverse_post_order(LLVMValueRef fn, size_t *count);

#endif

/*
 * The CUDA family's rows and helpers as reverse mode (rev/cuda.c) reads
 * them: what a row says about its call (which operands are the
 * destination, source, size, kind and stream, and where each side lives),
 * and the helpers forward mode emits with (declared next to the call, so
 * under its calling convention and `ejlstr$...$lib` rename).
 */
#ifndef TANJIT_AD_RULES_CUDA_H
#define TANJIT_AD_RULES_CUDA_H

#include <llvm-c/Core.h>

#include "ad/core/context.h"

struct ad_call_rule;

typedef enum ad_cuda_api { AD_CUDA_DRIVER, AD_CUDA_RUNTIME } ad_cuda_api;

/* Where one side of a call lives (what reading, writing or zeroing it
 * takes). */
typedef enum ad_cuda_space {
  AD_CUDA_NOWHERE = 0, /* the call has no such side */
  AD_CUDA_HOST,
  AD_CUDA_DEVICE,
  AD_CUDA_UNIFIED, /* either: unified addressing decides at run time */
  AD_CUDA_BY_KIND  /* the cudaMemcpyKind operand says */
} ad_cuda_space;

/* What a row's emitter does. */
typedef enum ad_cuda_op {
  AD_CUDA_OP_COPY,
  AD_CUDA_OP_ALLOC,
  AD_CUDA_OP_FREE,
  AD_CUDA_OP_SET,
  AD_CUDA_OP_INACTIVE
} ad_cuda_op;

/* A row's data.  Operand indices; -1: none.  alloc: dst is the
 * out-parameter, len the size (with a pitch: the height, so the size is
 * pitch * len), pitch the out-parameter receiving a pitched allocation's
 * row pitch; free and set: dst is the address. */
typedef struct ad_cuda_rule_data {
  ad_cuda_api api;
  ad_cuda_space dest, source;
  signed char dst, src, len, kind, stream, pitch;
} ad_cuda_rule_data;

/* cudaMemcpyKind values (cuda_runtime_api.h). */
enum {
  AD_CUDA_KIND_HTOH = 0,
  AD_CUDA_KIND_HTOD = 1,
  AD_CUDA_KIND_DTOH = 2,
  AD_CUDA_KIND_DTOD = 3,
  AD_CUDA_KIND_DEFAULT = 4
};

/* The row's data when `rule` is a row of the CUDA family (*op what it
 * does), else NULL. */
const ad_cuda_rule_data *ad_cuda_rule_data_of(const struct ad_call_rule *rule,
                                              ad_cuda_op *op);
/* Where the destination (source: the source) of a transfer lives, given
 * the call's kind operand (NULL when the row has none): a kind that is not
 * a constant, or cudaMemcpyDefault, is AD_CUDA_UNIFIED. */
ad_cuda_space ad_cuda_space_of(const ad_cuda_rule_data *d, LLVMValueRef kind,
                               int source);
/* The status type the API returns (CUresult / cudaError_t). */
LLVMTypeRef ad_cuda_status_type(ad_fn_ctx *fc, LLVMValueRef call);
/* Calls helper `name` of type (params) -> ret at fc->b, declared next to
 * `call` (NULL: a plain C library function): its convention, its rename,
 * its !dbg.  Arguments are converted to the parameter types (pointers and
 * integers holding addresses).  NULL (error in fc) on out of memory. */
LLVMValueRef ad_cuda_call_helper(ad_fn_ctx *fc, LLVMValueRef call,
                                 const char *name, LLVMTypeRef ret,
                                 LLVMTypeRef *params, LLVMValueRef *args,
                                 unsigned n);
/* Zeroes `n` bytes of device memory at `dst` at fc->b with the memset of
 * the API and size type of `call` (cuMemsetD8 for 32-bit sizes,
 * cuMemsetD8_v2, cudaMemset; on `stream` when not NULL: cuMemsetD8Async,
 * cudaMemsetAsync).  Returns the memset call, or NULL (error in fc). */
LLVMValueRef ad_cuda_zero_device(ad_fn_ctx *fc, const ad_cuda_rule_data *d,
                                 LLVMValueRef call, LLVMValueRef stream,
                                 LLVMValueRef dst, LLVMValueRef n);
/* The forward rule of allocation `call` (a row with AD_CUDA_OP_ALLOC) at
 * width 1: the same call on the out-parameter's shadow slot, the shadow
 * zeroed.  *shadow receives the shadow allocation's address where it was
 * made and 0 (null) where it was not (no shadow slot, the slot its own
 * shadow, a failed primal or shadow allocation).  0 or -1. */
int ad_cuda_emit_alloc_shadow(ad_fn_ctx *fc, const struct ad_call_rule *rule,
                              LLVMValueRef call, LLVMValueRef clone,
                              LLVMValueRef *shadow);

/* Transfer `call`'s forward rule (a row with AD_CUDA_OP_COPY) with the
 * float bytes left alone (ad_copy_non_float_shadows): reverse mode's
 * augmented pass of a transfer mixing floats with pointers or integers,
 * whose float shadows hold adjoints the reverse moves.  0 or -1. */
int ad_cuda_emit_non_float_copy(ad_fn_ctx *fc, const struct ad_call_rule *rule,
                                LLVMValueRef call, LLVMValueRef clone);

#endif

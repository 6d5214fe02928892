/*
 * The "inactive" family: functions and intrinsics with no derivative effect
 * (printing, lifetime markers, ...), whose primal call is simply kept.
 * Data only: the dispatcher never runs an inactive rule's emitter.
 */
#include <stddef.h>

#include "ad/core/context.h"
#include "ad/ir/ir.h"
#include "ad/registry/registry.h"

static int emit_nothing(ad_fn_ctx *fc, const ad_call_rule *r, LLVMValueRef call,
                        LLVMValueRef clone) {
  (void)fc;
  (void)r;
  (void)call;
  (void)clone;
  return 0;
}

#define INACTIVE(n) {.name = n, .emit = emit_nothing, .inactive = 1}
static const ad_call_rule inactive_rules[] = {
    INACTIVE("printf"),
    INACTIVE("fprintf"),
    INACTIVE("puts"),
    INACTIVE("putchar"),
    INACTIVE("fputs"),
    INACTIVE("fputc"),
    INACTIVE("fflush"),
    INACTIVE("fwrite"),
    INACTIVE("abort"),
    INACTIVE("exit"),
    INACTIVE("__assert_fail"),
    INACTIVE("llvm.lifetime.start"),
    INACTIVE("llvm.lifetime.end"),
    INACTIVE("llvm.assume"),
    INACTIVE("llvm.experimental.noalias.scope.decl"),
    INACTIVE("llvm.stacksave"),
    INACTIVE("llvm.stackrestore"),
    INACTIVE("llvm.invariant.start"),
    INACTIVE("llvm.invariant.end"),
    INACTIVE("llvm.prefetch"),
    INACTIVE("llvm.var.annotation"),
    INACTIVE("llvm.donothing"),
    INACTIVE("llvm.trap"),
    INACTIVE("llvm.debugtrap"),
    INACTIVE("llvm.sideeffect"),
    INACTIVE("llvm.is.fpclass"),
    /* Julia's GC bookkeeping: roots and safepoints move no values */
    INACTIVE("llvm.julia.gc_preserve_begin"),
    INACTIVE("llvm.julia.gc_preserve_end"),
    INACTIVE("julia.safepoint"),
    INACTIVE("julia.get_pgcstack"),
};

const ad_call_rule *ad_inactive_lookup(const char *name) {
  for (size_t i = 0; i < sizeof inactive_rules / sizeof *inactive_rules; i++)
    if (ad_name_matches(name, inactive_rules[i].name))
      return &inactive_rules[i];
  return NULL;
}

/*
 * Activity analysis: which primal values may carry a derivative.  A small
 * fixpoint, monotone (values only become active):
 *  - forward: duplicated arguments are active; an instruction is active when
 *    an operand that flows into its value is active (a load when its pointer
 *    is); conversions to/from integers (fptosi, sitofp, ...) and comparisons
 *    never are.
 *  - demand: memory that receives an active value must have a shadow, so the
 *    pointer stored through is "demanded": demand walks back through GEPs,
 *    casts, PHIs and selects to the allocation (alloca, malloc-like call)
 *    and makes it active; a pointer loaded from memory demands that memory.
 *    A pointer stored into active memory, or returned with its shadow, is
 *    demanded as well, so shadow memory never holds a primal pointer.
 *  - calls: a call with an active argument is active and demands its pointer
 *    arguments (the callee may write active data through them).
 * A demanded mutable global becomes active module-wide (it gets shadow
 * globals).  Undemandable roots (constant pointer arguments, external
 * globals) stay inactive;
 * storing an active value through them is an error at emission.
 */
#include "ad/engine.h"

typedef struct activity_state {
  ad_fn_ctx *fc;
  int changed;
  int oom;
} activity_state;

int ad_is_active(const ad_fn_ctx *fc, LLVMValueRef v) {
  if (!v)
    return 0;
  if (ad_map_get(&fc->active, v))
    return 1;
  if (!LLVMIsConstant(v) || !ad_type_is_pointerish(LLVMTypeOf(v)))
    return 0;
  LLVMValueRef root = ad_pointer_root(v);
  return LLVMIsAGlobalVariable(root) &&
         ad_map_get(&fc->mc->active_globals, root) != NULL;
}

static void mark(activity_state *st, LLVMValueRef v) {
  if (ad_is_active(st->fc, v))
    return;
  if (ad_map_put(&st->fc->active, v, (void *)1) != 0)
    st->oom = 1;
  st->changed = 1;
}

LLVMValueRef ad_pointer_root(LLVMValueRef p) {
  for (int depth = 0; depth < 256 && p; depth++) {
    if (LLVMIsAGetElementPtrInst(p) || LLVMIsABitCastInst(p) ||
        LLVMIsAAddrSpaceCastInst(p) || LLVMIsAFreezeInst(p))
      p = LLVMGetOperand(p, 0);
    else if (LLVMIsAConstantExpr(p) &&
             (LLVMGetConstOpcode(p) == LLVMGetElementPtr ||
              LLVMGetConstOpcode(p) == LLVMBitCast ||
              LLVMGetConstOpcode(p) == LLVMAddrSpaceCast))
      p = LLVMGetOperand(p, 0);
    else
      break;
  }
  return p;
}

static void demand(activity_state *st, LLVMValueRef p, int depth);

static void demand_operands(activity_state *st, LLVMValueRef inst,
                            unsigned from, unsigned to, int depth) {
  for (unsigned k = from; k < to; k++)
    demand(st, LLVMGetOperand(inst, k), depth + 1);
}

static void demand(activity_state *st, LLVMValueRef p, int depth) {
  ad_fn_ctx *fc = st->fc;
  if (!p || depth > 200 || ad_is_active(fc, p))
    return;
  if (LLVMIsConstant(p)) {
    LLVMValueRef root = ad_pointer_root(p);
    if (ad_global_can_shadow(root) && !LLVMIsGlobalConstant(root)) {
      if (ad_map_put(&fc->mc->active_globals, root, (void *)1) != 0)
        st->oom = 1;
      st->changed = 1;
    }
    return;
  }
  if (!LLVMIsAInstruction(p))
    return; /* arguments: a constant argument has no shadow to give */
  switch (LLVMGetInstructionOpcode(p)) {
  case LLVMAlloca:
    mark(st, p);
    break;
  case LLVMGetElementPtr:
  case LLVMBitCast:
  case LLVMAddrSpaceCast:
  case LLVMFreeze:
  case LLVMIntToPtr:
  case LLVMPtrToInt:
    demand(st, LLVMGetOperand(p, 0), depth + 1);
    break;
  case LLVMPHI:
    demand_operands(st, p, 0, LLVMCountIncoming(p), depth);
    break;
  case LLVMSelect:
    demand_operands(st, p, 1, 3, depth);
    break;
  case LLVMLoad:
    demand(st, LLVMGetOperand(p, 0), depth + 1);
    break;
  case LLVMCall: {
    const ad_call_rule *r = ad_find_call_rule(fc->mc->engine, p);
    if (r && r->returns_allocation)
      mark(st, p);
    break;
  }
  default:
    break;
  }
}

static int any_operand_active(ad_fn_ctx *fc, LLVMValueRef inst, unsigned from,
                              unsigned to) {
  for (unsigned k = from; k < to; k++)
    if (ad_is_active(fc, LLVMGetOperand(inst, k)))
      return 1;
  return 0;
}

static void visit_call(activity_state *st, LLVMValueRef call) {
  ad_fn_ctx *fc = st->fc;
  unsigned nargs = LLVMGetNumArgOperands(call);
  const ad_call_rule *r = ad_find_call_rule(fc->mc->engine, call);
  if (r && r->inactive)
    return;
  int any = any_operand_active(fc, call, 0, nargs);
  /* A function pointer whose shadow exists makes the call active too. */
  if (ad_is_active(fc, LLVMGetCalledValue(call)))
    any = 1;
  if (!any)
    return;
  LLVMTypeRef rt = LLVMTypeOf(call);
  if (LLVMGetTypeKind(rt) != LLVMVoidTypeKind)
    mark(st, call);
  if (!r || r->writes_pointer_args)
    for (unsigned k = 0; k < nargs; k++) {
      LLVMValueRef a = LLVMGetOperand(call, k);
      if (ad_type_is_pointerish(LLVMTypeOf(a)))
        demand(st, a, 0);
    }
}

static void visit(activity_state *st, LLVMValueRef inst) {
  ad_fn_ctx *fc = st->fc;
  LLVMOpcode op = LLVMGetInstructionOpcode(inst);
  unsigned nops = (unsigned)LLVMGetNumOperands(inst);
  switch (op) {
  case LLVMICmp:
  case LLVMFCmp:
  case LLVMFPToSI:
  case LLVMFPToUI:
  case LLVMSIToFP:
  case LLVMUIToFP:
  case LLVMRet:
  case LLVMBr:
  case LLVMSwitch:
  case LLVMUnreachable:
  case LLVMFence:
  case LLVMAlloca:
  case LLVMAtomicCmpXchg:
    break;
  case LLVMStore: {
    LLVMValueRef v = LLVMGetOperand(inst, 0), p = LLVMGetOperand(inst, 1);
    if (ad_is_active(fc, v))
      demand(st, p, 0);
    if (ad_is_active(fc, p) && ad_type_is_pointerish(LLVMTypeOf(v)))
      demand(st, v, 0);
    break;
  }
  case LLVMAtomicRMW:
    if (ad_is_active(fc, LLVMGetOperand(inst, 1)))
      demand(st, LLVMGetOperand(inst, 0), 0);
    if (ad_is_active(fc, LLVMGetOperand(inst, 0)))
      mark(st, inst);
    break;
  case LLVMCall:
    visit_call(st, inst);
    break;
  case LLVMLoad:
  case LLVMGetElementPtr:
  case LLVMExtractElement:
  case LLVMExtractValue:
    if (ad_is_active(fc, LLVMGetOperand(inst, 0)))
      mark(st, inst);
    break;
  case LLVMSelect:
    if (any_operand_active(fc, inst, 1, 3)) {
      mark(st, inst);
      if (ad_type_is_pointerish(LLVMTypeOf(inst)))
        demand_operands(st, inst, 1, 3, 0);
    }
    break;
  case LLVMPHI:
    if (any_operand_active(fc, inst, 0, LLVMCountIncoming(inst))) {
      mark(st, inst);
      if (ad_type_is_pointerish(LLVMTypeOf(inst)))
        demand_operands(st, inst, 0, LLVMCountIncoming(inst), 0);
    }
    break;
  case LLVMInsertElement:
  case LLVMShuffleVector:
  case LLVMInsertValue:
    if (any_operand_active(fc, inst, 0, 2))
      mark(st, inst);
    break;
  default:
    /* arithmetic, casts, freeze: active with any active operand */
    if (any_operand_active(fc, inst, 0, nops))
      mark(st, inst);
    break;
  }
}

int ad_activity_analyze(ad_fn_ctx *fc) {
  activity_state st = {fc, 0, 0};
  LLVMValueRef fn = fc->primal_fn;
  for (unsigned i = 0; i < fc->sig->nparams; i++)
    if (fc->sig->activity[i] != AD_ARG_CONST)
      mark(&st, LLVMGetParam(fn, i));
  int rounds = 0;
  do {
    st.changed = 0;
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb;
         bb = LLVMGetNextBasicBlock(bb))
      for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
           i = LLVMGetNextInstruction(i)) {
        visit(&st, i);
        if (LLVMGetInstructionOpcode(i) == LLVMRet &&
            LLVMGetNumOperands(i) == 1 &&
            (fc->sig->ret == AD_RET_TANGENT || fc->sig->ret == AD_RET_BOTH) &&
            ad_type_is_pointerish(LLVMTypeOf(LLVMGetOperand(i, 0))))
          demand(&st, LLVMGetOperand(i, 0), 0);
      }
    rounds++;
  } while (st.changed && !st.oom && rounds < 10000);
  if (st.oom)
    return ad_fail_code(fc->mc, TANJIT_ERR_NO_MEMORY, NULL, "out of memory");
  return 0;
}

/*
 * How the engine reads IR, in one place: which opcodes form a class that
 * the analyses and the rules must treat alike, and which casts a value is
 * looked at through.  Activity analysis, type analysis (analysis/) and
 * the instruction rules (rules/inst.c) each once kept
 * their own lists; when one list gained an opcode the others did not, an
 * instruction could be active with no rule for its tangent, or carry a
 * tangent that type analysis had ruled out.
 */
#include <stdint.h>
#include <string.h>

#include <llvm/Config/llvm-config.h>

#include "ad/ad.h"
#include "ad/ir/ir.h"
#include "common/strbuf.h"

ad_opclass ad_opcode_class(LLVMOpcode op) {
  switch (op) {
  case LLVMBr:
  case LLVMSwitch:
  case LLVMUnreachable:
  case LLVMFence:
    return AD_OP_CONTROL;
  case LLVMICmp:
  case LLVMFCmp:
    return AD_OP_COMPARE;
  case LLVMFPToSI:
  case LLVMFPToUI:
    return AD_OP_FLOAT_TO_INT;
  case LLVMSIToFP:
  case LLVMUIToFP:
    return AD_OP_INT_TO_FLOAT;
  case LLVMAdd:
  case LLVMSub:
  case LLVMAnd:
  case LLVMOr:
  case LLVMXor:
    return AD_OP_INT_OFFSET;
  case LLVMMul:
  case LLVMUDiv:
  case LLVMSDiv:
  case LLVMURem:
  case LLVMSRem:
  case LLVMShl:
  case LLVMLShr:
  case LLVMAShr:
    return AD_OP_INT_NUMBER;
  default:
    return AD_OP_OTHER;
  }
}

int ad_opclass_is_int_arith(ad_opclass c) {
  return c == AD_OP_INT_OFFSET || c == AD_OP_INT_NUMBER;
}

int ad_opclass_has_no_tangent(ad_opclass c) {
  return c == AD_OP_CONTROL || c == AD_OP_COMPARE ||
         c == AD_OP_FLOAT_TO_INT || c == AD_OP_INT_TO_FLOAT;
}

/* Whether `op` is a cast that ad_strip_casts looks through under `what`. */
static int strippable(LLVMOpcode op, unsigned what) {
  switch (op) {
  case LLVMBitCast:
  case LLVMAddrSpaceCast:
    return 1;
  case LLVMPtrToInt:
  case LLVMIntToPtr:
    return (what & AD_STRIP_INT_CASTS) != 0;
  case LLVMGetElementPtr:
    return (what & AD_STRIP_GEPS) != 0;
  case LLVMFreeze:
    return (what & AD_STRIP_FREEZE) != 0;
  default:
    return 0;
  }
}

static int slot_stores_walk(LLVMValueRef addr,
                            int (*stored)(void *ctx, LLVMValueRef v),
                            void *ctx, int depth) {
  if (depth > 64)
    return 1;
  for (LLVMUseRef u = LLVMGetFirstUse(addr); u; u = LLVMGetNextUse(u)) {
    LLVMValueRef user = LLVMGetUser(u);
    if (!LLVMIsAInstruction(user))
      return 1;
    switch (LLVMGetInstructionOpcode(user)) {
    case LLVMLoad:
      break;
    case LLVMStore:
      if (LLVMGetOperand(user, 1) != addr ||
          stored(ctx, LLVMGetOperand(user, 0)))
        return 1;
      break;
    case LLVMGetElementPtr:
    case LLVMBitCast:
    case LLVMAddrSpaceCast:
      if (LLVMGetOperand(user, 0) != addr ||
          slot_stores_walk(user, stored, ctx, depth + 1))
        return 1;
      break;
    case LLVMCall: {
      LLVMValueRef fn = ad_called_function(user);
      size_t len = 0;
      const char *name = fn ? LLVMGetValueName2(fn, &len) : "";
      if (strncmp(name, "llvm.lifetime.", 14) != 0 &&
          strncmp(name, "llvm.dbg.", 9) != 0)
        return 1;
      break;
    }
    default:
      return 1;
    }
  }
  return 0;
}

int ad_slot_stores_any(LLVMValueRef addr, int (*stored)(void *ctx, LLVMValueRef v),
                       void *ctx) {
  return slot_stores_walk(addr, stored, ctx, 0);
}

LLVMValueRef ad_strip_casts(LLVMValueRef v, unsigned what) {
  /* bounded: unreachable code may define an instruction by itself */
  for (int depth = 0; depth < 256 && v; depth++) {
    LLVMOpcode op;
    if (LLVMIsAConstantExpr(v))
      op = LLVMGetConstOpcode(v);
    else if ((what & AD_STRIP_INSTRUCTIONS) && LLVMIsAInstruction(v))
      op = LLVMGetInstructionOpcode(v);
    else
      break;
    if (!strippable(op, what))
      break;
    v = LLVMGetOperand(v, 0);
  }
  return v;
}

int ad_function_address_taken(LLVMValueRef f) {
  for (LLVMUseRef u = LLVMGetFirstUse(f); u; u = LLVMGetNextUse(u)) {
    LLVMValueRef user = LLVMGetUser(u);
    if ((!LLVMIsACallInst(user) && !LLVMIsAInvokeInst(user)) ||
        LLVMGetCalledValue(user) != f)
      return 1;
    /* called, and perhaps passed as an argument of that call too: f(f) */
    unsigned n = LLVMGetNumArgOperands(user);
    for (unsigned k = 0; k < n; k++)
      if (LLVMGetOperand(user, k) == f)
        return 1;
  }
  return 0;
}

LLVMValueRef ad_address_constant(LLVMContextRef ctx, const void *p) {
  return LLVMConstIntToPtr(
      LLVMConstInt(LLVMInt64TypeInContext(ctx), (uintptr_t)p, 0),
      LLVMPointerTypeInContext(ctx, 0));
}

static const char generated_mark[] = "tanjit-generated";

LLVMValueRef ad_add_generated_function(LLVMModuleRef m, const char *name,
                                       LLVMTypeRef fn_type) {
  LLVMValueRef fn = LLVMAddFunction(m, name, fn_type);
  LLVMAttributeRef a = LLVMCreateStringAttribute(
      LLVMGetModuleContext(m), generated_mark, sizeof generated_mark - 1, "",
      0);
  LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex, a);
  return fn;
}

int ad_is_generated_function(LLVMValueRef fn) {
  return fn && LLVMIsAFunction(fn) &&
         LLVMGetStringAttributeAtIndex(fn, LLVMAttributeFunctionIndex,
                                       generated_mark,
                                       sizeof generated_mark - 1) != NULL;
}

static const char tape_access_mark[] = "tanjit.tape";

static unsigned tape_access_kind(LLVMValueRef inst) {
  return LLVMGetMDKindIDInContext(LLVMGetTypeContext(LLVMTypeOf(inst)),
                                  tape_access_mark,
                                  sizeof tape_access_mark - 1);
}

LLVMValueRef ad_mark_tape_access(LLVMValueRef inst) {
  LLVMContextRef c = LLVMGetTypeContext(LLVMTypeOf(inst));
  LLVMSetMetadata(inst, tape_access_kind(inst),
                  LLVMMetadataAsValue(c, LLVMMDNodeInContext2(c, NULL, 0)));
  return inst;
}

int ad_is_tape_access(LLVMValueRef inst) {
  return (LLVMIsALoadInst(inst) || LLVMIsAStoreInst(inst)) &&
         LLVMGetMetadata(inst, tape_access_kind(inst)) != NULL;
}

void ad_name_after(LLVMValueRef v, LLVMValueRef from, const char *suffix) {
  size_t n;
  const char *name = LLVMGetValueName2(from, &n);
  if (!n)
    return;
  strbuf sb;
  sb_init(&sb);
  sb_appendn(&sb, name, n);
  sb_append(&sb, suffix);
  if (sb.data)
    LLVMSetValueName2(v, sb.data, sb.len);
  sb_free(&sb);
}

int ad_name_matches(const char *name, const char *pattern) {
  size_t n = strlen(pattern);
  if (strncmp(name, pattern, n) != 0)
    return 0;
  if (name[n] == 0)
    return 1;
  return strncmp(pattern, "llvm.", 5) == 0 && name[n] == '.';
}

LLVMValueRef ad_called_function(LLVMValueRef call) {
  LLVMValueRef v = ad_strip_casts(LLVMGetCalledValue(call), 0);
  return v && LLVMIsAFunction(v) ? v : NULL;
}

int ad_call_never_returns(LLVMValueRef call) {
  unsigned kind = LLVMGetEnumAttributeKindForName("noreturn", 8);
  LLVMValueRef fn = ad_called_function(call);
  if (LLVMGetCallSiteEnumAttribute(call, LLVMAttributeFunctionIndex, kind) ||
      (fn && LLVMGetEnumAttributeAtIndex(fn, LLVMAttributeFunctionIndex, kind)))
    return 1;
  if (!LLVMIsACallInst(call))
    return 0;
  LLVMValueRef next = LLVMGetNextInstruction(call);
  while (next && LLVMIsADbgInfoIntrinsic(next))
    next = LLVMGetNextInstruction(next);
  return next && LLVMGetInstructionOpcode(next) == LLVMUnreachable;
}

int ad_reads_variadic_arguments(LLVMValueRef fn) {
  if (!LLVMIsFunctionVarArg(LLVMGlobalGetValueType(fn)))
    return 0;
  if (LLVMCountBasicBlocks(fn) == 0)
    return 1;
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb;
       bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
         i = LLVMGetNextInstruction(i)) {
      if (!LLVMIsACallInst(i))
        continue;
      if (LLVMIsTailCall(i) && LLVMGetTailCallKind(i) == LLVMTailCallKindMustTail)
        return 1;
      LLVMValueRef callee = LLVMGetCalledValue(i);
      size_t n;
      const char *name = LLVMIsAFunction(callee) ? LLVMGetValueName2(callee, &n)
                                                  : NULL;
      if (name && strncmp(name, "llvm.va_start", 13) == 0)
        return 1;
    }
  return 0;
}

int ad_may_be_indirect_target(LLVMValueRef call, LLVMValueRef f) {
  return LLVMGlobalGetValueType(f) == LLVMGetCalledFunctionType(call) &&
         LLVMCountBasicBlocks(f) > 0 && ad_function_address_taken(f);
}

enum { WRAPPER_MAX_PARAMS = 64 };

int ad_may_be_declared_indirect_target(LLVMValueRef call, LLVMValueRef f) {
  LLVMTypeRef ft = LLVMGlobalGetValueType(f);
  /* a wrapper cannot pass on variadic arguments */
  return ft == LLVMGetCalledFunctionType(call) && !LLVMIsFunctionVarArg(ft) &&
         LLVMCountParamTypes(ft) <= WRAPPER_MAX_PARAMS &&
         LLVMCountBasicBlocks(f) == 0 && LLVMGetIntrinsicID(f) == 0 &&
         ad_function_address_taken(f);
}

LLVMValueRef ad_direct_call_wrapper(LLVMModuleRef m, LLVMValueRef f) {
  size_t n;
  const char *name = LLVMGetValueName2(f, &n);
  strbuf sb;
  sb_init(&sb);
  sb_append(&sb, "tanjit.direct.");
  sb_appendn(&sb, name, n);
  if (!sb.data)
    return NULL;
  LLVMTypeRef ft = LLVMGlobalGetValueType(f);
  LLVMValueRef w;
  LLVMBuilderRef b = ad_get_or_define_internal(m, sb.data, ft, &w);
  sb_free(&sb);
  if (!b)
    return w;
  LLVMSetFunctionCallConv(w, LLVMGetFunctionCallConv(f));
  unsigned np = LLVMCountParams(w);
  LLVMValueRef args[WRAPPER_MAX_PARAMS];
  if (np > WRAPPER_MAX_PARAMS)
    np = WRAPPER_MAX_PARAMS; /* not a candidate (above) */
  for (unsigned i = 0; i < np; i++)
    args[i] = LLVMGetParam(w, i);
  int is_void = LLVMGetTypeKind(LLVMGetReturnType(ft)) == LLVMVoidTypeKind;
  LLVMValueRef r = LLVMBuildCall2(b, ft, f, args, np, is_void ? "" : "r");
  LLVMSetInstructionCallConv(r, LLVMGetFunctionCallConv(f));
  if (is_void)
    LLVMBuildRetVoid(b);
  else
    LLVMBuildRet(b, r);
  LLVMDisposeBuilder(b);
  return w;
}

/* LLVM 22 keeps a switch's case values apart from its operands (which
 * are the condition and the destinations); LLVM-C reads them since then.
 * Before, case k's value is operand 2k (after the condition and the
 * default).  The engine's one LLVM version fork (src/jit/llvm_compat.h
 * has the session's). */
LLVMValueRef ad_switch_case_value(LLVMValueRef sw, unsigned k) {
#if LLVM_VERSION_MAJOR >= 22
  return LLVMGetSwitchCaseValue(sw, k);
#else
  return LLVMGetOperand(sw, 2 * k);
#endif
}

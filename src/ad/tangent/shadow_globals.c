/*
 * Shadow globals: the `<name>_shadow` globals analysis/globals.c decided
 * on, made lazily once the set of active globals is final
 * (analysis/global_discovery.c), so
 * every table sees the same set.  See analysis/globals.c for which globals
 * get one and what they hold.
 */
#include <stdlib.h>
#include <string.h>

#include "common/alloc.h"
#include "ad/analysis/globals.h"
#include "ad/core/context.h"
#include "ad/core/diag.h"
#include "ad/core/map.h"
#include "ad/ir/ir.h"
#include "ad/tangent/tangent.h"
#include "common/strbuf.h"

void ad_global_shadows_init(ad_global_shadows *s) {
  ad_map_init(&s->by_global_lane);
}

void ad_global_shadows_free(ad_global_shadows *s) {
  ad_map_free(&s->by_global_lane);
}

static LLVMValueRef shadow_const(ad_module_ctx *mc, LLVMValueRef c, int depth,
                                 unsigned lane);

static LLVMValueRef shadow_global(ad_module_ctx *mc, LLVMValueRef g, int depth,
                                  unsigned lane) {
  if (!ad_global_can_shadow(g))
    return g;
  int constant = LLVMIsGlobalConstant(g);
  if (!constant && !ad_map_get(&mc->globals->set, g))
    return g;
  /* Read-only zeros serve every lane, unless the table points to active
   * globals: then lane k points to their lane-k shadows. */
  if (constant && !ad_global_is_active(mc, g))
    lane = 0;
  /* The key: g's address plus the lane.  A GlobalVariable object spans
   * more than 64 bytes, so keys of different globals never meet; keys are
   * never dereferenced. */
  const void *key = (const char *)g + lane;
  LLVMValueRef s = ad_map_get(&mc->shadows->by_global_lane, key);
  if (!s) {
    strbuf sb;
    sb_init(&sb);
    if (lane)
      sb_printf(&sb, "%s_shadow%u", ad_value_name(g), lane);
    else
      sb_printf(&sb, "%s_shadow", ad_value_name(g));
    if (!sb.data)
      return g;
    LLVMTypeRef t = LLVMGlobalGetValueType(g);
    /* LLVM makes the name unique if a global already has it */
    s = LLVMAddGlobal(mc->mod, t, sb.data);
    sb_free(&sb);
    if (ad_map_put(&mc->shadows->by_global_lane, key, s) != 0 ||
        ad_note_made_shadow(mc, s, g) != 0)
      return g;
    LLVMSetLinkage(s, LLVMInternalLinkage);
    LLVMSetGlobalConstant(s, constant);
    LLVMSetAlignment(s, LLVMGetAlignment(g));
    /* placeholder first: a self-referencing initializer terminates */
    LLVMSetInitializer(s, LLVMConstNull(t));
    LLVMSetInitializer(s,
                       shadow_const(mc, LLVMGetInitializer(g), depth + 1, lane));
  }
  return s;
}

static int has_pointer_or_int(LLVMTypeRef t, int depth) {
  if (depth > 16)
    return 1;
  switch (LLVMGetTypeKind(t)) {
  case LLVMPointerTypeKind:
  case LLVMIntegerTypeKind:
    return 1;
  case LLVMVectorTypeKind:
  case LLVMArrayTypeKind:
    return has_pointer_or_int(LLVMGetElementType(t), depth + 1);
  case LLVMStructTypeKind:
    for (unsigned i = 0; i < LLVMCountStructElementTypes(t); i++)
      if (has_pointer_or_int(LLVMStructGetTypeAtIndex(t, i), depth + 1))
        return 1;
    return 0;
  default:
    return 0;
  }
}

static LLVMValueRef shadow_const(ad_module_ctx *mc, LLVMValueRef c, int depth,
                                 unsigned lane) {
  LLVMTypeRef t = LLVMTypeOf(c);
  if (depth > 64)
    return c;
  if (LLVMIsAGlobalVariable(c))
    return shadow_global(mc, c, depth, lane);
  if (LLVMIsAFunction(c) || LLVMIsAConstantPointerNull(c) || LLVMIsUndef(c) ||
      LLVMIsAConstantInt(c))
    return c;
  if (LLVMIsAConstantFP(c) || !has_pointer_or_int(t, 0))
    return LLVMConstNull(t);
  if (LLVMIsAConstantAggregateZero(c))
    return c;
  if (LLVMIsAConstantExpr(c)) {
    LLVMOpcode op = LLVMGetConstOpcode(c);
    LLVMValueRef base = LLVMGetOperand(c, 0);
    LLVMValueRef sb = shadow_const(mc, base, depth + 1, lane);
    if (sb == base)
      return c;
    /* the same address arithmetic on the shadow */
    switch (op) {
    case LLVMGetElementPtr: {
      unsigned n = (unsigned)LLVMGetNumOperands(c) - 1;
      LLVMValueRef idx[32];
      if (n > 32)
        return c;
      for (unsigned i = 0; i < n; i++)
        idx[i] = LLVMGetOperand(c, i + 1);
      return LLVMConstGEP2(LLVMGetGEPSourceElementType(c), sb, idx, n);
    }
    case LLVMAddrSpaceCast:
      return LLVMConstAddrSpaceCast(sb, t);
    case LLVMPtrToInt:
      return LLVMConstPtrToInt(sb, t);
    case LLVMIntToPtr:
      return LLVMConstIntToPtr(sb, t);
    case LLVMBitCast:
      return LLVMConstBitCast(sb, t);
    default:
      return c;
    }
  }
  LLVMTypeKind k = LLVMGetTypeKind(t);
  if (k != LLVMArrayTypeKind && k != LLVMStructTypeKind &&
      k != LLVMVectorTypeKind)
    return c;
  unsigned n = k == LLVMStructTypeKind ? LLVMCountStructElementTypes(t)
               : k == LLVMArrayTypeKind ? (unsigned)LLVMGetArrayLength2(t)
                                        : LLVMGetVectorSize(t);
  LLVMValueRef *elems = tj_malloc((n ? n : 1) * sizeof *elems);
  if (!elems)
    return c;
  for (unsigned i = 0; i < n; i++) {
    LLVMValueRef e = LLVMGetAggregateElement(c, i);
    elems[i] = e ? shadow_const(mc, e, depth + 1, lane) : NULL;
    if (!elems[i]) {
      free(elems);
      return c;
    }
  }
  LLVMValueRef r;
  if (k == LLVMStructTypeKind)
    r = LLVMConstNamedStruct(t, elems, n);
  else if (k == LLVMArrayTypeKind)
    r = LLVMConstArray2(LLVMGetElementType(t), elems, n);
  else
    r = LLVMConstVector(elems, n);
  free(elems);
  return r;
}

LLVMValueRef ad_constant_shadow(ad_module_ctx *mc, LLVMValueRef c,
                                unsigned lane) {
  return shadow_const(mc, c, 0, lane);
}

/* Whether shadow_const(c) is c itself, decided as shadow_const decides it
 * but without making anything: a global stands for itself unless it has a
 * shadow global (an active mutable one, or any constant one). */
static int is_own_shadow(ad_module_ctx *mc, LLVMValueRef c, int depth) {
  if (depth > 64)
    return 1;
  if (LLVMIsAGlobalVariable(c))
    return !ad_global_can_shadow(c) ||
           (!LLVMIsGlobalConstant(c) && !ad_map_get(&mc->globals->set, c));
  if (LLVMIsAFunction(c) || LLVMIsAConstantPointerNull(c) || LLVMIsUndef(c) ||
      LLVMIsAConstantInt(c))
    return 1;
  LLVMTypeRef t = LLVMTypeOf(c);
  if (LLVMIsAConstantFP(c) || !has_pointer_or_int(t, 0))
    return LLVMConstNull(t) == c;
  if (LLVMIsAConstantAggregateZero(c))
    return 1;
  if (LLVMIsAConstantExpr(c)) {
    if (is_own_shadow(mc, LLVMGetOperand(c, 0), depth + 1))
      return 1;
    switch (LLVMGetConstOpcode(c)) {
    case LLVMGetElementPtr:
      return LLVMGetNumOperands(c) - 1 > 32; /* left as it is */
    case LLVMAddrSpaceCast:
    case LLVMPtrToInt:
    case LLVMIntToPtr:
    case LLVMBitCast:
      return 0;
    default:
      return 1;
    }
  }
  LLVMTypeKind k = LLVMGetTypeKind(t);
  if (k != LLVMArrayTypeKind && k != LLVMStructTypeKind &&
      k != LLVMVectorTypeKind)
    return 1;
  unsigned n = k == LLVMStructTypeKind ? LLVMCountStructElementTypes(t)
               : k == LLVMArrayTypeKind ? (unsigned)LLVMGetArrayLength2(t)
                                        : LLVMGetVectorSize(t);
  /* an element that cannot be read leaves c as it is */
  for (unsigned i = 0; i < n; i++)
    if (!LLVMGetAggregateElement(c, i))
      return 1;
  for (unsigned i = 0; i < n; i++)
    if (!is_own_shadow(mc, LLVMGetAggregateElement(c, i), depth + 1))
      return 0;
  return 1;
}

int ad_constant_is_own_shadow(ad_module_ctx *mc, LLVMValueRef c) {
  return is_own_shadow(mc, c, 0);
}

/*
 * The shadows of mutable globals start every request from their initial
 * tangents.  Enzyme gives an unannotated mutable global a shadow local to
 * the derivative call, zeroed on entry, so a tangent written into it by
 * one request is never seen by the next; tanjit's shadow globals live as
 * long as the module (derivatives of callees share them), so each request
 * first restores them: one call, before the derivative's, to a reset
 * function whose body is written once every derivative of the module
 * exists (ad_finish_shadow_reset), since only then is the set of shadow
 * globals known.  The reset itself is inactive: a nested request inside a
 * differentiated function keeps it as a primal call.
 */
static const char reset_name[] = "tanjit.reset_shadow_globals";

void ad_emit_shadow_reset(ad_module_ctx *mc, LLVMBuilderRef b) {
  if (mc->globals->set.count == 0)
    return;
  LLVMValueRef fn = LLVMGetNamedFunction(mc->mod, reset_name);
  LLVMTypeRef ft =
      LLVMFunctionType(LLVMVoidTypeInContext(mc->llctx), NULL, 0, 0);
  if (!fn) {
    fn = ad_add_generated_function(mc->mod, reset_name, ft);
    LLVMSetLinkage(fn, LLVMInternalLinkage);
    LLVMAddAttributeAtIndex(
        fn, LLVMAttributeFunctionIndex,
        LLVMCreateStringAttribute(mc->llctx, "enzyme_inactive", 15, "", 0));
  }
  LLVMBuildCall2(b, ft, fn, NULL, 0, "");
}

void ad_finish_shadow_reset(ad_module_ctx *mc) {
  LLVMValueRef fn = LLVMGetNamedFunction(mc->mod, reset_name);
  if (!fn || LLVMCountBasicBlocks(fn) != 0)
    return;
  LLVMBuilderRef b = LLVMCreateBuilderInContext(mc->llctx);
  LLVMPositionBuilderAtEnd(b,
                           LLVMAppendBasicBlockInContext(mc->llctx, fn, ""));
  LLVMTypeRef i8 = LLVMInt8TypeInContext(mc->llctx);
  LLVMTypeRef i64 = LLVMInt64TypeInContext(mc->llctx);
  /* Which globals are shadows comes from the map; the order of the resets
   * from the module, so that the same input emits the same reset (the map's
   * order is its keys' addresses, which differ from run to run). */
  ad_map is_shadow;
  ad_map_init(&is_shadow);
  for (size_t i = 0; i < mc->shadows->by_global_lane.cap; i++) {
    LLVMValueRef s = mc->shadows->by_global_lane.keys[i]
                         ? mc->shadows->by_global_lane.vals[i]
                         : NULL;
    if (s && ad_map_put(&is_shadow, s, s) != 0) {
      ad_map_free(&is_shadow);
      LLVMDisposeBuilder(b);
      ad_fail_code(mc, TANJIT_ERR_NO_MEMORY, fn, "out of memory");
      return;
    }
  }
  for (LLVMValueRef s = LLVMGetFirstGlobal(mc->mod); s;
       s = LLVMGetNextGlobal(s)) {
    if (!ad_map_get(&is_shadow, s) || LLVMIsGlobalConstant(s))
      continue;
    LLVMValueRef init = LLVMGetInitializer(s);
    LLVMTypeRef t = LLVMGlobalGetValueType(s);
    if (LLVMIsNull(init)) {
      LLVMValueRef size = LLVMConstInt(i64, LLVMABISizeOfType(mc->td, t), 0);
      LLVMBuildMemSet(b, s, LLVMConstInt(i8, 0, 0), size, LLVMGetAlignment(s));
    } else {
      /* pointers to other shadows (or integers) among the zeros */
      LLVMSetAlignment(LLVMBuildStore(b, init, s), LLVMGetAlignment(s));
    }
  }
  ad_map_free(&is_shadow);
  LLVMBuildRetVoid(b);
  LLVMDisposeBuilder(b);
}

/*
 * Sign-bit arithmetic on a float's bits, rewritten as the float operation it
 * is, before differentiation.
 *
 * C code takes absolute values, negates and copies signs through the bits
 * (a union or memcpy to uint64_t, then & ~(1 << 63), ^ (1 << 63), or the
 * two halves of copysign or'ed together).  As integer operations on float
 * bytes these have no derivative, and type analysis sees the bytes used as
 * both a float and an integer; Enzyme recognises the same masks.  Each is
 * bit for bit the LLVM intrinsic or instruction it is replaced by:
 *
 *   and (bitcast f), ~S             ->  bitcast (llvm.fabs f)
 *   xor (bitcast f), S              ->  bitcast (fneg f)
 *   xor (bitcast f), (and (bitcast g), S)
 *                                   ->  bitcast (select (copysign(1, g) < 0),
 *                                                       (fneg f), f)
 *   or  (bitcast f), S              ->  bitcast (fneg (llvm.fabs f))
 *   or  P, (and (bitcast g), S)     ->  bitcast (llvm.copysign p, g)
 *        where P is and (bitcast f), ~S, bitcast (llvm.fabs f) or a
 *        constant with the sign bit clear, p its float; in an `or disjoint`
 *        with P any bitcast f, the flipsign below (exact there)
 *
 * S is the sign bit of the float type whose width the integer has (half,
 * float, double; vectors of them with splat masks).  Only integers that are
 * a float's bits by a bitcast are rewritten (and, next to a float magnitude
 * in copysign, a sign loaded from memory as an integer): a mask on integer
 * data stays an integer operation.
 */
#include <string.h>
#include <llvm-c/DebugInfo.h>

#include "ad/prep/prep.h"

/* The float type an integer (vector) of this width is the bits of. */
static LLVMTypeRef float_for_bits(LLVMTypeRef t) {
  LLVMContextRef ctx = LLVMGetTypeContext(t);
  int vector = LLVMGetTypeKind(t) == LLVMVectorTypeKind;
  LLVMTypeRef el = vector ? LLVMGetElementType(t) : t;
  if (LLVMGetTypeKind(el) != LLVMIntegerTypeKind)
    return NULL;
  LLVMTypeRef f;
  switch (LLVMGetIntTypeWidth(el)) {
  case 16: f = LLVMHalfTypeInContext(ctx); break;
  case 32: f = LLVMFloatTypeInContext(ctx); break;
  case 64: f = LLVMDoubleTypeInContext(ctx); break;
  default: return NULL;
  }
  return vector ? LLVMVectorType(f, LLVMGetVectorSize(t)) : f;
}

/* Whether constant c is the sign mask S (inverted: ~S) in every lane. */
static int is_sign_mask(LLVMValueRef c, int inverted) {
  if (!c || !LLVMIsConstant(c))
    return 0;
  LLVMTypeRef t = LLVMTypeOf(c);
  if (LLVMGetTypeKind(t) == LLVMVectorTypeKind) {
    unsigned n = LLVMGetVectorSize(t);
    for (unsigned i = 0; i < n; i++)
      if (!is_sign_mask(LLVMGetAggregateElement(c, i), inverted))
        return 0;
    return n > 0;
  }
  if (!LLVMIsAConstantInt(c))
    return 0;
  unsigned bits = LLVMGetIntTypeWidth(t);
  if (bits != 16 && bits != 32 && bits != 64)
    return 0; /* no float of that width; wider ones do not fit the shifts */
  unsigned long long sign = 1ULL << (bits - 1);
  unsigned long long all = bits == 64 ? ~0ULL : (1ULL << bits) - 1;
  unsigned long long want = inverted ? all & ~sign : sign;
  return (LLVMConstIntGetZExtValue(c) & all) == want;
}

/* f when v is `bitcast f` of a float (vector) of v's width, else NULL. */
static LLVMValueRef float_behind(LLVMValueRef v) {
  if (!LLVMIsABitCastInst(v) && !(LLVMIsAConstantExpr(v) &&
                                  LLVMGetConstOpcode(v) == LLVMBitCast))
    return NULL;
  LLVMValueRef f = LLVMGetOperand(v, 0);
  LLVMTypeRef want = float_for_bits(LLVMTypeOf(v));
  return want && LLVMTypeOf(f) == want ? f : NULL;
}

/* A plain load of a float-width integer, read again as that float right
 * after it (same address and alignment); the integer becomes a bitcast of
 * it.  NULL if v is no such load.  Moves the builder. */
static LLVMValueRef reload_as_float(LLVMBuilderRef b, LLVMValueRef v) {
  LLVMTypeRef ft = float_for_bits(LLVMTypeOf(v));
  if (!ft || !LLVMIsALoadInst(v) || LLVMGetVolatile(v) ||
      LLVMGetOrdering(v) != LLVMAtomicOrderingNotAtomic)
    return NULL;
  LLVMValueRef at = LLVMGetNextInstruction(v);
  LLVMPositionBuilderBefore(b, at);
  LLVMValueRef f = LLVMBuildLoad2(b, ft, LLVMGetOperand(v, 0), "");
  LLVMSetAlignment(f, LLVMGetAlignment(v));
  LLVMValueRef bits = LLVMBuildBitCast(b, f, LLVMTypeOf(v), "");
  LLVMReplaceAllUsesWith(v, bits);
  LLVMInstructionEraseFromParent(v);
  return f;
}

/* The operand of binary `i` that is a sign mask, as its index, or -1. */
static int mask_operand(LLVMValueRef i, int inverted) {
  for (int k = 0; k < 2; k++)
    if (is_sign_mask(LLVMGetOperand(i, (unsigned)k), inverted))
      return k;
  return -1;
}

static LLVMValueRef intrinsic(LLVMBuilderRef b, LLVMModuleRef m,
                              const char *name, LLVMValueRef *args,
                              unsigned n) {
  unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
  LLVMTypeRef t = LLVMTypeOf(args[0]);
  LLVMValueRef fn = LLVMGetIntrinsicDeclaration(m, id, &t, 1);
  LLVMTypeRef ft =
      LLVMIntrinsicGetType(LLVMGetModuleContext(m), id, &t, 1);
  return LLVMBuildCall2(b, ft, fn, args, n, "");
}

/* p when v's sign bit is known clear and v is the bits of float p (which
 * may be built: and (bitcast f), ~S gives fabs f). */
static LLVMValueRef nonnegative_float(LLVMBuilderRef b, LLVMModuleRef m,
                                      LLVMValueRef v) {
  /* a constant magnitude: copysign(3.0, x) folds to or (and x, S), 3.0 */
  LLVMTypeRef ft = float_for_bits(LLVMTypeOf(v));
  if (ft && LLVMIsAConstantInt(v) &&
      !(LLVMConstIntGetZExtValue(v) >> (LLVMGetIntTypeWidth(LLVMTypeOf(v)) - 1)))
    return LLVMConstBitCast(v, ft);
  LLVMValueRef f = float_behind(v);
  if (f && LLVMIsACallInst(f)) {
    LLVMValueRef callee = LLVMGetCalledValue(f);
    size_t n;
    const char *name = LLVMIsAFunction(callee) ? LLVMGetValueName2(callee, &n) : "";
    if (strncmp(name, "llvm.fabs.", 10) == 0)
      return f;
  }
  if (!LLVMIsAInstruction(v) || LLVMGetInstructionOpcode(v) != LLVMAnd)
    return NULL;
  int k = mask_operand(v, 1);
  LLVMValueRef g = k < 0 ? NULL : float_behind(LLVMGetOperand(v, (unsigned)!k));
  return g ? intrinsic(b, m, "llvm.fabs", &g, 1) : NULL;
}

/* f, negated where g's sign bit is set (whatever g is: NaN, -0). */
static LLVMValueRef flipped(LLVMBuilderRef b, LLVMModuleRef m, LLVMValueRef f,
                            LLVMValueRef g) {
  LLVMTypeRef t = LLVMTypeOf(f);
  LLVMValueRef args[2] = {LLVMConstReal(t, 1.0), g};
  LLVMValueRef unit = intrinsic(b, m, "llvm.copysign", args, 2);
  LLVMValueRef negative =
      LLVMBuildFCmp(b, LLVMRealOLT, unit, LLVMConstReal(t, 0.0), "");
  return LLVMBuildSelect(b, negative, LLVMBuildFNeg(b, f, ""), f, "");
}

/* xor (bitcast f), (and (bitcast g), S): flipsign(f, g), f negated where g
 * is negative (Julia's Base.flipsign), as select(copysign(1, g) < 0, -f, f),
 * which reads g's sign bit whatever g is (NaN, -0). */
static LLVMValueRef flipsign(LLVMBuilderRef b, LLVMModuleRef m, LLVMValueRef i) {
  for (int k = 0; k < 2; k++) {
    LLVMValueRef sign = LLVMGetOperand(i, (unsigned)k);
    LLVMValueRef f = float_behind(LLVMGetOperand(i, (unsigned)!k));
    if (!f || !LLVMIsAInstruction(sign) ||
        LLVMGetInstructionOpcode(sign) != LLVMAnd)
      continue;
    int j = mask_operand(sign, 0);
    if (j < 0)
      continue;
    LLVMValueRef source = LLVMGetOperand(sign, (unsigned)!j);
    LLVMValueRef g = float_behind(source);
    if (!g && (g = reload_as_float(b, source)))
      LLVMPositionBuilderBefore(b, i);
    if (!g)
      continue;
    return flipped(b, m, f, g);
  }
  return NULL;
}

/* The float value `i` computes, built before i, or NULL if it is no sign
 * operation on a float's bits. */
static LLVMValueRef as_float_operation(LLVMBuilderRef b, LLVMModuleRef m,
                                       LLVMValueRef i) {
  LLVMOpcode op = LLVMGetInstructionOpcode(i);
  int k;
  LLVMValueRef f;
  switch (op) {
  case LLVMAnd:
    k = mask_operand(i, 1);
    f = k < 0 ? NULL : float_behind(LLVMGetOperand(i, (unsigned)!k));
    return f ? intrinsic(b, m, "llvm.fabs", &f, 1) : NULL;
  case LLVMXor:
    k = mask_operand(i, 0);
    if (k >= 0) {
      f = float_behind(LLVMGetOperand(i, (unsigned)!k));
      return f ? LLVMBuildFNeg(b, f, "") : NULL;
    }
    return flipsign(b, m, i);
  case LLVMOr:
    k = mask_operand(i, 0);
    if (k >= 0) {
      f = float_behind(LLVMGetOperand(i, (unsigned)!k));
      return f ? LLVMBuildFNeg(b, intrinsic(b, m, "llvm.fabs", &f, 1), "")
               : NULL;
    }
    for (k = 0; k < 2; k++) {
      LLVMValueRef sign = LLVMGetOperand(i, (unsigned)k);
      if (!LLVMIsAInstruction(sign) ||
          LLVMGetInstructionOpcode(sign) != LLVMAnd)
        continue;
      int j = mask_operand(sign, 0);
      if (j < 0)
        continue;
      LLVMValueRef source = LLVMGetOperand(sign, (unsigned)!j);
      LLVMValueRef magnitude = LLVMGetOperand(i, (unsigned)!k);
      LLVMValueRef p = nonnegative_float(b, m, magnitude);
      /* `or disjoint` with a sign that may be set (clang -ffast-math knows
       * x*x is not negative and drops its fabs): where the sign is set the
       * magnitude's is clear, or the result is poison, so the result is
       * the magnitude negated there and itself elsewhere: a flipsign,
       * exact also where the magnitude is negative and the sign is not */
      int flip = 0;
      if (!p && LLVMGetIsDisjoint(i) && (p = float_behind(magnitude)))
        flip = 1;
      if (!p)
        continue;
      /* Next to a float magnitude, a sign loaded as an integer (clang -O1
       * loads a double's bits straight from memory) is a float's too. */
      LLVMValueRef g = float_behind(source);
      if (!g && (g = reload_as_float(b, source)))
        LLVMPositionBuilderBefore(b, i);
      if (!g)
        continue;
      if (flip)
        return flipped(b, m, p, g);
      LLVMValueRef args[2] = {p, g};
      return intrinsic(b, m, "llvm.copysign", args, 2);
    }
    return NULL;
  default:
    return NULL;
  }
}

/* Stores of `bits` (a bitcast of float f) store f instead: clang stores
 * the result of a bit trick as an integer into what the source declares a
 * float, and the integer view would look like an integer use of float
 * bytes to type analysis. */
static void store_as_float(LLVMBuilderRef b, LLVMValueRef bits, LLVMValueRef f,
                           LLVMValueRef *next) {
  unsigned tbaa = LLVMGetMDKindIDInContext(LLVMGetTypeContext(LLVMTypeOf(f)),
                                           "tbaa", 4);
  LLVMUseRef u = LLVMGetFirstUse(bits);
  while (u) {
    LLVMValueRef st = LLVMGetUser(u);
    u = LLVMGetNextUse(u);
    if (!LLVMIsAStoreInst(st) || LLVMGetOperand(st, 0) != bits ||
        LLVMGetOrdering(st) != LLVMAtomicOrderingNotAtomic)
      continue;
    LLVMPositionBuilderBefore(b, st);
    LLVMValueRef now = LLVMBuildStore(b, f, LLVMGetOperand(st, 1));
    LLVMSetAlignment(now, LLVMGetAlignment(st));
    LLVMSetVolatile(now, LLVMGetVolatile(st));
    LLVMSetMetadata(now, tbaa, LLVMGetMetadata(st, tbaa));
    if (st == *next) /* the caller's walk goes on after it */
      *next = LLVMGetNextInstruction(st);
    LLVMInstructionEraseFromParent(st);
  }
  if (!LLVMGetFirstUse(bits))
    LLVMInstructionEraseFromParent(bits);
}

void ad_rewrite_sign_bit_operations(LLVMModuleRef m) {
  LLVMBuilderRef b = LLVMCreateBuilderInContext(LLVMGetModuleContext(m));
  for (LLVMValueRef fn = LLVMGetFirstFunction(m); fn; fn = LLVMGetNextFunction(fn))
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb;
         bb = LLVMGetNextBasicBlock(bb))
      for (LLVMValueRef i = LLVMGetFirstInstruction(bb), next; i; i = next) {
        next = LLVMGetNextInstruction(i);
        LLVMOpcode op = LLVMGetInstructionOpcode(i);
        if (op != LLVMAnd && op != LLVMXor && op != LLVMOr)
          continue;
        LLVMPositionBuilderBefore(b, i);
        /* errors about the new instructions keep the source line */
        LLVMSetCurrentDebugLocation2(b, LLVMInstructionGetDebugLoc(i));
        LLVMValueRef f = as_float_operation(b, m, i);
        if (!f)
          continue;
        LLVMValueRef bits = LLVMBuildBitCast(b, f, LLVMTypeOf(i), "");
        LLVMValueRef ops[2] = {LLVMGetOperand(i, 0), LLVMGetOperand(i, 1)};
        LLVMReplaceAllUsesWith(i, bits);
        LLVMInstructionEraseFromParent(i);
        store_as_float(b, bits, f, &next);
        /* the masks copysign was made of: dead now, and an integer view of
         * float bits that type analysis would report */
        for (int k = 0; k < 2; k++)
          if (LLVMIsAInstruction(ops[k]) && !LLVMGetFirstUse(ops[k]) &&
              LLVMGetInstructionOpcode(ops[k]) == LLVMAnd && ops[k] != next)
            LLVMInstructionEraseFromParent(ops[k]);
      }
  LLVMDisposeBuilder(b);
}

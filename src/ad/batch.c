/*
 * Batch requests: `__enzyme_batch(fn, enzyme_width, N, args...)` evaluates
 * fn at N points at once and returns the N results (Enzyme's BatchMode).
 * There is no derivative here: a batch is N primal evaluations, so the
 * request becomes N calls of fn, lane by lane, which the optimizer may
 * interleave or vectorize.  That is what Enzyme's batched clone computes
 * (one copy of each instruction per lane), without a second body.
 *
 * Arguments, as Enzyme's HandleBatch reads them, parameter by parameter:
 * - `enzyme_scalar, v`: one value shared by every lane;
 * - `enzyme_vector, v1 .. vN`: one value per lane;
 * - `enzyme_buffer, stride, p`: lane k gets p + k * stride bytes;
 * - unmarked: a vector (N values) when N > 1, else a scalar.
 * `enzyme_width N` may appear anywhere and is required.  The result is an
 * [N x T] of the lanes' results, stored into the request's declared result
 * by layout (a struct of N doubles, returned directly or through an sret
 * pointer first among the operands); a void fn gives nothing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <llvm-c/DebugInfo.h>

#include "common/alloc.h"
#include "ad/ad.h"
#include "ad/core/context.h"
#include "ad/core/diag.h"
#include "ad/fwd/fwd.h"
#include "ad/ir/ir.h"
#include "ad/markers.h"
#include "ad/request.h"
#include "ad/tangent/tangent.h"

/* The marker an operand is, its name into *name for errors. */
static ad_marker marker_of(LLVMValueRef v, const char **name, size_t *len) {
  return ad_marker_of(v, AD_MARKERS_BATCH, name, len);
}

/* Converts an operand as passed (variadic promotion: float -> double,
 * char/short -> int) to the parameter type; NULL where no conversion
 * keeps the value. */
static LLVMValueRef coerce(LLVMBuilderRef b, LLVMTypeRef want, LLVMValueRef v) {
  LLVMTypeRef have = LLVMTypeOf(v);
  LLVMTypeKind hk = LLVMGetTypeKind(have), wk = LLVMGetTypeKind(want);
  if (have == want)
    return v;
  if (ad_type_is_float_scalar(have) && ad_type_is_float_scalar(want))
    return LLVMBuildFPCast(b, v, want, "");
  if (hk == LLVMIntegerTypeKind && wk == LLVMIntegerTypeKind)
    return LLVMBuildIntCast2(b, v, want, 1, "");
  if (hk == LLVMPointerTypeKind && wk == LLVMPointerTypeKind)
    return LLVMBuildPointerCast(b, v, want, "");
  if (hk == LLVMIntegerTypeKind && wk == LLVMPointerTypeKind)
    return LLVMBuildIntToPtr(b, v, want, "");
  if (hk == LLVMPointerTypeKind && wk == LLVMIntegerTypeKind)
    return LLVMBuildPtrToInt(b, v, want, "");
  return NULL;
}

typedef struct batch {
  ad_module_ctx *mc;
  LLVMValueRef call, fn;
  unsigned nargs, width;
} batch;

static char *type_text(LLVMTypeRef t) {
  char *s = LLVMPrintTypeToString(t);
  char *c = s ? tj_strdup(s) : NULL;
  LLVMDisposeMessage(s);
  return c;
}

/* Operand i as parameter p's type, or an error naming both. */
static LLVMValueRef operand_as(batch *r, LLVMBuilderRef b, unsigned i,
                               LLVMTypeRef want, unsigned p, int *rc) {
  LLVMValueRef operand = LLVMGetOperand(r->call, i);
  LLVMValueRef v = coerce(b, want, operand);
  if (!v) {
    char *have = type_text(LLVMTypeOf(operand)), *w = type_text(want);
    *rc = ad_fail(r->mc, r->call,
                  "__enzyme_batch of %s: argument %u for parameter %u has "
                  "type %s, expected %s",
                  ad_value_name(r->fn), i, p + 1, have ? have : "?",
                  w ? w : "?");
    free(have);
    free(w);
  }
  return v;
}

/* Reads enzyme_width N (required; anywhere in the arguments). */
static int read_width(batch *r, unsigned first) {
  for (unsigned i = first; i < r->nargs; i++) {
    const char *name;
    size_t len;
    if (marker_of(LLVMGetOperand(r->call, i), &name, &len) != AD_MARK_WIDTH)
      continue;
    LLVMValueRef w = i + 1 < r->nargs ? LLVMGetOperand(r->call, i + 1) : NULL;
    if (!w || !LLVMIsAConstantInt(w) ||
        LLVMGetIntTypeWidth(LLVMTypeOf(w)) > 64)
      return ad_fail(r->mc, r->call,
                     "__enzyme_batch of %s: enzyme_width must be followed by "
                     "a constant integer",
                     ad_value_name(r->fn));
    long long n = LLVMConstIntGetSExtValue(w);
    if (n < 1 || n > AD_MAX_WIDTH)
      return ad_fail(r->mc, r->call,
                     "__enzyme_batch of %s: enzyme_width %lld is out of range "
                     "(1..%d)",
                     ad_value_name(r->fn), n, AD_MAX_WIDTH);
    r->width = (unsigned)n;
    return 0;
  }
  return ad_fail(r->mc, r->call,
                 "__enzyme_batch of %s: no enzyme_width N among the arguments "
                 "(a batch request names its number of lanes)",
                 ad_value_name(r->fn));
}

/* The argument of each lane for every parameter: lanes[p * width + k].
 * 0, or -1 with the error set. */
static int read_lanes(batch *r, LLVMBuilderRef b, unsigned first,
                      LLVMTypeRef *pt, unsigned np, LLVMValueRef *lanes) {
  LLVMTypeRef i8 = LLVMInt8TypeInContext(r->mc->llctx);
  unsigned i = first;
  int rc = 0;
  for (unsigned p = 0; p < np && rc == 0; p++) {
    ad_marker m = AD_MARK_NONE;
    const char *name;
    size_t len;
    for (;;) {
      if (i >= r->nargs)
        return ad_fail(r->mc, r->call,
                       "__enzyme_batch of %s: too few arguments (the value "
                       "for parameter %u of %u is missing)",
                       ad_value_name(r->fn), p + 1, np);
      m = marker_of(LLVMGetOperand(r->call, i), &name, &len);
      if (m != AD_MARK_WIDTH)
        break;
      i += 2;
    }
    if (m == AD_MARK_UNKNOWN)
      return ad_fail(r->mc, r->call,
                     "__enzyme_batch of %s: marker %.*s at argument %u is not "
                     "a batch marker (enzyme_scalar, enzyme_vector, "
                     "enzyme_buffer, enzyme_width)",
                     ad_value_name(r->fn), (int)(len < 60 ? len : 60), name, i);
    if (m != AD_MARK_NONE)
      i++;
    if (m == AD_MARK_NONE)
      m = r->width > 1 ? AD_MARK_VECTOR : AD_MARK_SCALAR;
    LLVMValueRef *out = lanes + (size_t)p * r->width;
    if (m == AD_MARK_BUFFER) {
      /* the stride in bytes, then one pointer */
      if (i + 1 >= r->nargs ||
          LLVMGetTypeKind(LLVMTypeOf(LLVMGetOperand(r->call, i))) !=
              LLVMIntegerTypeKind ||
          LLVMGetTypeKind(pt[p]) != LLVMPointerTypeKind)
        return ad_fail(r->mc, r->call,
                       "__enzyme_batch of %s: enzyme_buffer (parameter %u) "
                       "takes an integer stride in bytes, then a pointer, for "
                       "a pointer parameter",
                       ad_value_name(r->fn), p + 1);
      LLVMValueRef stride = LLVMGetOperand(r->call, i);
      LLVMValueRef base = operand_as(r, b, i + 1, pt[p], p, &rc);
      if (!base)
        return rc;
      for (unsigned k = 0; k < r->width; k++) {
        LLVMValueRef off = LLVMBuildMul(
            b, stride, LLVMConstInt(LLVMTypeOf(stride), k, 0), "");
        out[k] = k ? LLVMBuildGEP2(b, i8, base, &off, 1, "batch.lane") : base;
      }
      i += 2;
      continue;
    }
    unsigned count = m == AD_MARK_VECTOR ? r->width : 1;
    for (unsigned k = 0; k < count && rc == 0; k++, i++) {
      if (i >= r->nargs)
        return ad_fail(r->mc, r->call,
                       "__enzyme_batch of %s: parameter %u takes %u values "
                       "(one per lane), value %u is missing",
                       ad_value_name(r->fn), p + 1, r->width, k + 1);
      if (marker_of(LLVMGetOperand(r->call, i), &name, &len) != AD_MARK_NONE)
        return ad_fail(r->mc, r->call,
                       "__enzyme_batch of %s: parameter %u takes %u values "
                       "(one per lane), but value %u is a marker",
                       ad_value_name(r->fn), p + 1, r->width, k + 1);
      out[k] = operand_as(r, b, i, pt[p], p, &rc);
    }
    for (unsigned k = count; k < r->width && rc == 0; k++)
      out[k] = out[0];
  }
  while (rc == 0 && i < r->nargs) {
    const char *name;
    size_t len;
    if (marker_of(LLVMGetOperand(r->call, i), &name, &len) == AD_MARK_WIDTH) {
      i += 2;
      continue;
    }
    rc = ad_fail(r->mc, r->call,
                 "__enzyme_batch of %s: too many arguments (%s takes %u "
                 "parameter%s; argument %u is extra)",
                 ad_value_name(r->fn), ad_value_name(r->fn), np,
                 np == 1 ? "" : "s", i);
  }
  return rc;
}

/* The ABI attributes of fn's parameters and result that a call site must
 * repeat (a by-value struct, a hidden result pointer, extensions). */
static void copy_abi_attrs(LLVMValueRef fn, LLVMValueRef call, unsigned np) {
  static const char *const kinds[] = {"byval", "sret",  "align", "zeroext",
                                      "signext", "inreg", "noundef"};
  for (unsigned idx = 0; idx <= np; idx++) {
    unsigned at = idx == 0 ? LLVMAttributeReturnIndex : idx;
    for (size_t a = 0; a < sizeof kinds / sizeof *kinds; a++) {
      unsigned kind = LLVMGetEnumAttributeKindForName(kinds[a], strlen(kinds[a]));
      LLVMAttributeRef attr = kind ? LLVMGetEnumAttributeAtIndex(fn, at, kind) : NULL;
      if (attr)
        LLVMAddCallSiteAttribute(call, at, attr);
    }
  }
}

/* The lanes' results as the request's declared result: into *sret, or as
 * `want` (through memory when the types differ but the bytes agree). */
static int deliver(batch *r, LLVMBuilderRef b, LLVMValueRef lanes_value,
                   LLVMValueRef sret, LLVMValueRef *out) {
  LLVMTypeRef have = LLVMTypeOf(lanes_value);
  LLVMTypeRef want = LLVMTypeOf(r->call);
  *out = NULL;
  if (sret) {
    LLVMBuildStore(b, lanes_value, sret);
    return 0;
  }
  if (LLVMGetTypeKind(want) == LLVMVoidTypeKind)
    return 0;
  if (have == want) {
    *out = lanes_value;
    return 0;
  }
  unsigned long long hs = LLVMStoreSizeOfType(r->mc->td, have);
  unsigned long long ws = LLVMStoreSizeOfType(r->mc->td, want);
  if (hs != ws) {
    char *a = type_text(have), *c = type_text(want);
    int rc = ad_fail(r->mc, r->call,
                     "__enzyme_batch of %s returns %s (the result of each of "
                     "its %u lanes), but the call is declared to return %s: "
                     "declare the request with a result of that layout",
                     ad_value_name(r->fn), a ? a : "?", r->width, c ? c : "?");
    free(a);
    free(c);
    return rc;
  }
  LLVMValueRef slot = ad_entry_alloca(
      LLVMGetBasicBlockParent(LLVMGetInstructionParent(r->call)),
      LLVMABISizeOfType(r->mc->td, have) >= LLVMABISizeOfType(r->mc->td, want)
          ? have
          : want,
      "batch.result");
  LLVMBuildStore(b, lanes_value, slot);
  *out = LLVMBuildLoad2(b, want, slot, "");
  return 0;
}

int ad_rewrite_batch(ad_module_ctx *mc, LLVMValueRef call) {
  if (LLVMIsAInvokeInst(call)) /* C++ exceptions (fwd/exceptions.c) */
    return ad_rewrite_through_invoke(mc, call, ad_rewrite_batch);
  ad_request_head h;
  if (ad_request_head_read(mc, call, "__enzyme_batch", &h) != 0)
    return -1;
  batch r = {mc, call, h.fn, h.nargs, 1};
  unsigned fi = h.fn_at;
  LLVMValueRef sret = h.sret;
  if (!LLVMIsAFunction(r.fn)) {
    char *t = ad_value_text(LLVMGetOperand(call, fi));
    int rc = ad_fail(mc, call,
                     "the first argument of __enzyme_batch must be a "
                     "function, not `%s`",
                     t ? t : "?");
    free(t);
    return rc;
  }
  if (read_width(&r, fi + 1) != 0)
    return -1;
  LLVMTypeRef ft = LLVMGlobalGetValueType(r.fn);
  if (LLVMIsFunctionVarArg(ft))
    return ad_fail(mc, call, "__enzyme_batch of variadic function %s",
                   ad_value_name(r.fn));
  unsigned np = LLVMCountParamTypes(ft);
  LLVMTypeRef *pt = tj_malloc((np ? np : 1) * sizeof *pt);
  LLVMValueRef *lanes = tj_malloc(((size_t)np * r.width + 1) * sizeof *lanes);
  LLVMValueRef *args = tj_malloc((np ? np : 1) * sizeof *args);
  LLVMBuilderRef b = LLVMCreateBuilderInContext(mc->llctx);
  int rc = 0;
  if (!pt || !lanes || !args) {
    rc = ad_fail_code(mc, TANJIT_ERR_NO_MEMORY, call, "out of memory");
    goto out;
  }
  LLVMGetParamTypes(ft, pt);
  LLVMPositionBuilderBefore(b, call);
  if (LLVMInstructionGetDebugLoc(call))
    LLVMSetCurrentDebugLocation2(b, LLVMInstructionGetDebugLoc(call));
  if ((rc = read_lanes(&r, b, fi + 1, pt, np, lanes)) != 0)
    goto out;

  LLVMTypeRef rt = LLVMGetReturnType(ft);
  int has_result = LLVMGetTypeKind(rt) != LLVMVoidTypeKind;
  LLVMValueRef result = has_result && r.width > 1
                            ? LLVMGetPoison(LLVMArrayType2(rt, r.width))
                            : NULL;
  for (unsigned k = 0; k < r.width; k++) {
    for (unsigned p = 0; p < np; p++)
      args[p] = lanes[(size_t)p * r.width + k];
    LLVMValueRef c = LLVMBuildCall2(b, ft, r.fn, args, np,
                                    has_result ? "batch" : "");
    LLVMSetInstructionCallConv(c, LLVMGetFunctionCallConv(r.fn));
    copy_abi_attrs(r.fn, c, np);
    if (LLVMInstructionGetDebugLoc(call))
      LLVMInstructionSetDebugLoc(c, LLVMInstructionGetDebugLoc(call));
    if (has_result)
      result = r.width > 1 ? LLVMBuildInsertValue(b, result, c, k, "") : c;
  }
  if (!has_result && LLVMGetFirstUse(call) &&
      LLVMGetTypeKind(LLVMTypeOf(call)) != LLVMVoidTypeKind) {
    rc = ad_fail(mc, call,
                 "__enzyme_batch of %s: the function returns nothing, but the "
                 "request's result is used",
                 ad_value_name(r.fn));
    goto out;
  }
  if (has_result) {
    LLVMValueRef v;
    if ((rc = deliver(&r, b, result, sret, &v)) != 0)
      goto out;
    if (v)
      LLVMReplaceAllUsesWith(call, v);
  }
  if (LLVMGetFirstUse(call))
    LLVMReplaceAllUsesWith(call, LLVMGetPoison(LLVMTypeOf(call)));
  /* the marker loads go with the others' (engine.c) */
  LLVMInstructionEraseFromParent(call);
out:
  LLVMDisposeBuilder(b);
  free(pt);
  free(lanes);
  free(args);
  return rc;
}

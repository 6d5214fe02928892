/*
 * __enzyme_todense<T*>(load_fn, store_fn, extra...), lowered after the
 * requests are rewritten, as Enzyme's LowerSparsification does.  The call
 * returns a pointer that is not memory: every load of a T at byte offset
 * `off` from it becomes load_fn(off, extra...), every store of v becomes
 * store_fn(v, off, extra...).  Enzyme's Sparse programs pass such
 * pointers as a request's arguments and shadows, so their loads and
 * stores sit in the derivatives, not beside the call:
 *
 *  1. inline: from each call, the pointer is followed through GEPs, casts,
 *     selects and PHIs into the parameters of the defined functions it is
 *     passed to (the derivatives, their callees); those are made
 *     alwaysinline and LLVM's always-inline pass puts their bodies into
 *     the caller, so every access sits in the function of the call;
 *  2. lower: the call is replaced by a null pointer, so the GEPs, casts,
 *     selects and PHIs built on it compute the byte offset (their
 *     no-wrap flags dropped: they now move a null pointer), and each load
 *     and store through them becomes a call of the user's function with
 *     that offset.  A vector load or store (clang -O2's SLP vectorizer)
 *     is one call per element.
 *  Any other use (a call not inlined, the pointer stored as a value, a
 *  memcpy, integer arithmetic on its address) is an error naming it.
 *
 * Why here (prep/, a module pass on IR, LLVM-C and the always-inline pass
 * only): it needs none of the engine's state, only the rewritten module,
 * and it is a rewrite of IR, not a reading of it (ir/).  engine.c runs it
 * last and reports its failure with the instruction it names.
 * Enzyme's -enzyme-auto-sparsity (loops over the dense Hessian turned into
 * loops over the stored entries) is an optimization not done here: the
 * plain lowering gives the same values in O(N^2) calls.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/DebugInfo.h>
#include <llvm-c/Transforms/PassBuilder.h>

#include "ad/ir/ir.h"
#include "ad/prep/prep.h"
#include "common/alloc.h"
#include "common/hashmap.h"
#include "common/strbuf.h"

static const char *const todense_names[] = {"__enzyme_todense",
                                            "__enzyme_post_sparse_todense"};

int ad_is_todense_function(LLVMValueRef f) {
  /* a definition is the program's own function, whatever its name */
  if (!LLVMIsDeclaration(f))
    return 0;
  size_t n;
  const char *name = LLVMGetValueName2(f, &n);
  for (size_t i = 0; i < sizeof todense_names / sizeof *todense_names; i++)
    if (name && strstr(name, todense_names[i]))
      return 1;
  return 0;
}

static LLVMValueRef todense_callee(LLVMValueRef call) {
  if (!LLVMIsACallInst(call))
    return NULL;
  LLVMValueRef f = ad_called_function(call);
  return f && ad_is_todense_function(f) ? f : NULL;
}

typedef struct value_list {
  LLVMValueRef *v;
  size_t n, cap;
} value_list;

static int list_push(value_list *l, LLVMValueRef v) {
  LLVMValueRef *g = tj_grow(l->v, &l->cap, l->n + 1, sizeof *g, 32);
  if (!g)
    return -1;
  l->v = g;
  l->v[l->n++] = v;
  return 0;
}

static int fail(ad_todense_failure *f, LLVMValueRef where, const char *fmt,
                ...) TJ_PRINTF(3, 4);
static int fail(ad_todense_failure *f, LLVMValueRef where, const char *fmt,
                ...) {
  strbuf sb;
  sb_init(&sb);
  va_list ap;
  va_start(ap, fmt);
  sb_vprintf(&sb, fmt, ap);
  va_end(ap);
  f->where = where;
  f->message = sb.failed ? NULL : sb_take(&sb);
  sb_free(&sb);
  return -1;
}

/* The printed instruction, leading blanks off and cut at 300 characters
 * (a message, not a dump). */
static char *text_of(LLVMValueRef v) {
  char *s = LLVMPrintValueToString(v);
  const char *from = s + strspn(s, " ");
  size_t n = strlen(from);
  char *copy = tj_strndup(from, n > 300 ? 300 : n);
  LLVMDisposeMessage(s);
  return copy;
}

/* The moves of a pointer that keep it the same todense pointer. */
static int moves_pointer(LLVMValueRef user, LLVMValueRef v) {
  if (!LLVMIsAInstruction(user))
    return 0;
  switch (LLVMGetInstructionOpcode(user)) {
  case LLVMGetElementPtr:
    return LLVMGetOperand(user, 0) == v;
  case LLVMBitCast:
  case LLVMAddrSpaceCast:
  case LLVMPHI:
  case LLVMFreeze:
    return 1;
  case LLVMSelect:
    return LLVMGetOperand(user, 0) != v;
  default:
    return 0;
  }
}

/* ---- 1. inline what the pointers are passed to ---- */

static int mark_inline(LLVMValueRef fn) {
  LLVMContextRef ctx = LLVMGetModuleContext(LLVMGetGlobalParent(fn));
  unsigned noinline = LLVMGetEnumAttributeKindForName("noinline", 8);
  unsigned always = LLVMGetEnumAttributeKindForName("alwaysinline", 12);
  if (LLVMGetEnumAttributeAtIndex(fn, LLVMAttributeFunctionIndex, always))
    return 0;
  LLVMRemoveEnumAttributeAtIndex(fn, LLVMAttributeFunctionIndex, noinline);
  LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex,
                          LLVMCreateEnumAttribute(ctx, always, 0));
  return 1;
}

/* Follows every todense pointer into the callees it is passed to; marks
 * them.  The number marked, or -1 on out of memory. */
static int mark_callees(value_list *calls) {
  tj_hashmap seen;
  tj_hashmap_init(&seen, TJ_KEYS_POINTERS);
  value_list todo = {0};
  int marked = 0, oom = 0;
  for (size_t i = 0; i < calls->n && !oom; i++)
    oom = list_push(&todo, calls->v[i]) || tj_hashmap_put(&seen, calls->v[i], (void *)1);
  while (todo.n && !oom) {
    LLVMValueRef v = todo.v[--todo.n];
    for (LLVMUseRef u = LLVMGetFirstUse(v); u && !oom; u = LLVMGetNextUse(u)) {
      LLVMValueRef user = LLVMGetUser(u), next = NULL;
      if (moves_pointer(user, v)) {
        next = user;
      } else if (LLVMIsACallInst(user) || LLVMIsAInvokeInst(user)) {
        LLVMValueRef fn = ad_called_function(user);
        unsigned na = LLVMGetNumArgOperands(user);
        if (!fn || LLVMIsDeclaration(fn) || todense_callee(user) ||
            LLVMCountParams(fn) != na)
          continue;
        for (unsigned k = 0; k < na; k++)
          if (LLVMGetOperand(user, k) == v) {
            marked += mark_inline(fn);
            LLVMValueRef p = LLVMGetParam(fn, k);
            if (!tj_hashmap_get(&seen, p))
              oom = list_push(&todo, p) || tj_hashmap_put(&seen, p, (void *)1);
          }
        continue;
      }
      if (next && !tj_hashmap_get(&seen, next))
        oom = list_push(&todo, next) || tj_hashmap_put(&seen, next, (void *)1);
    }
  }
  free(todo.v);
  tj_hashmap_free(&seen);
  return oom ? -1 : marked;
}

/* ---- 2. lower one call ---- */

typedef struct lowering {
  LLVMModuleRef m;
  LLVMBuilderRef b;
  LLVMValueRef call, load_fn, store_fn;
  LLVMValueRef *extra;
  unsigned nextra;
  LLVMTypeRef i64;
  tj_hashmap derived; /* value -> 1: the todense pointer, moved */
  value_list order;   /* derived values in the order found */
  value_list accesses; /* loads and stores through them */
  ad_todense_failure *f;
} lowering;

static const char *call_name(LLVMValueRef call) {
  size_t n;
  const char *s = LLVMGetValueName2(ad_called_function(call), &n);
  return s ? s : "__enzyme_todense";
}

static int use_error(lowering *l, LLVMValueRef user, LLVMValueRef v) {
  char *t = text_of(user);
  int rc = fail(l->f, user,
                "the pointer of %s (a pointer that is not memory) is used by "
                "`%s`%s, which is neither a load, a store, a GEP, a cast, a "
                "select nor a PHI of it (after the derivatives it is passed "
                "to were inlined)",
                call_name(l->call), t ? t : "?",
                LLVMIsAStoreInst(user) && LLVMGetOperand(user, 0) == v
                    ? " as the value stored"
                    : "");
  free(t);
  return rc;
}

/* The derived values and the accesses through them. */
static int collect(lowering *l) {
  if (tj_hashmap_put(&l->derived, l->call, (void *)1) ||
      list_push(&l->order, l->call))
    return fail(l->f, l->call, "out of memory");
  for (size_t i = 0; i < l->order.n; i++) {
    LLVMValueRef v = l->order.v[i];
    for (LLVMUseRef u = LLVMGetFirstUse(v); u; u = LLVMGetNextUse(u)) {
      LLVMValueRef user = LLVMGetUser(u);
      if (tj_hashmap_get(&l->derived, user))
        continue;
      if (moves_pointer(user, v)) {
        if (tj_hashmap_put(&l->derived, user, (void *)1) ||
            list_push(&l->order, user))
          return fail(l->f, l->call, "out of memory");
        continue;
      }
      int access = (LLVMIsALoadInst(user) && LLVMGetOperand(user, 0) == v) ||
                   (LLVMIsAStoreInst(user) && LLVMGetOperand(user, 1) == v &&
                    LLVMGetOperand(user, 0) != v);
      if (!access)
        return use_error(l, user, v);
      if (list_push(&l->accesses, user))
        return fail(l->f, l->call, "out of memory");
    }
  }
  /* a PHI or select joining the pointer with anything else would give
   * the user's functions an address for an offset */
  for (size_t i = 1; i < l->order.n; i++) {
    LLVMValueRef v = l->order.v[i];
    unsigned from = LLVMIsASelectInst(v) ? 1 : 0;
    unsigned n = LLVMIsAPHINode(v) ? LLVMCountIncoming(v)
                 : LLVMIsASelectInst(v) ? 3
                                        : 1;
    for (unsigned k = from; k < n; k++) {
      LLVMValueRef in = LLVMIsAPHINode(v) ? LLVMGetIncomingValue(v, k)
                                          : LLVMGetOperand(v, k);
      if (!tj_hashmap_get(&l->derived, in)) {
        char *t = text_of(v);
        int rc = fail(l->f, v,
                      "`%s` joins the pointer of %s (not memory) with "
                      "another value",
                      t ? t : "?", call_name(l->call));
        free(t);
        return rc;
      }
    }
  }
  return 0;
}

/* Whether fn takes (first..., extra...). */
static int check_signature(lowering *l, LLVMValueRef fn, LLVMTypeRef *first,
                           unsigned nfirst, const char *what) {
  LLVMTypeRef ft = LLVMGlobalGetValueType(fn);
  unsigned np = LLVMCountParamTypes(ft), want = nfirst + l->nextra;
  LLVMTypeRef pt[64];
  if (np != want || np > 64)
    return fail(l->f, l->call,
                "%s function %s of %s takes %u parameter%s; %s passes %u "
                "(%s, then the %u extra argument%s)",
                what, LLVMGetValueName2(fn, &(size_t){0}), call_name(l->call),
                np, np == 1 ? "" : "s", call_name(l->call), want,
                nfirst == 1 ? "the offset" : "the value and the offset",
                l->nextra, l->nextra == 1 ? "" : "s");
  LLVMGetParamTypes(ft, pt);
  for (unsigned k = 0; k < np; k++) {
    LLVMTypeRef t = k < nfirst ? first[k] : LLVMTypeOf(l->extra[k - nfirst]);
    if (pt[k] != t)
      return fail(l->f, l->call,
                  "%s function %s of %s: parameter %u's type differs from "
                  "the argument passed there",
                  what, LLVMGetValueName2(fn, &(size_t){0}), call_name(l->call),
                  k + 1);
  }
  return 0;
}

/* The element type and count an access of type t makes (1 for a scalar,
 * the lanes of a vector of it). */
static LLVMTypeRef element_of(LLVMTypeRef t, unsigned *count) {
  if (LLVMGetTypeKind(t) == LLVMVectorTypeKind) {
    *count = LLVMGetVectorSize(t);
    return LLVMGetElementType(t);
  }
  *count = 1;
  return t;
}

static LLVMValueRef emit_call(lowering *l, LLVMValueRef fn, LLVMValueRef *first,
                              unsigned nfirst) {
  LLVMValueRef args[66];
  for (unsigned k = 0; k < nfirst; k++)
    args[k] = first[k];
  for (unsigned k = 0; k < l->nextra; k++)
    args[nfirst + k] = l->extra[k];
  return LLVMBuildCall2(l->b, LLVMGlobalGetValueType(fn), fn, args,
                        nfirst + l->nextra, "");
}

/* Whether a value of type from can be given as type to: the same type,
 * or a scalar of the same size reinterpreted (a double loaded as i64). */
static int reinterpretable(LLVMTypeRef from, LLVMTypeRef to,
                           LLVMTargetDataRef td) {
  if (from == to)
    return 1;
  LLVMTypeKind a = LLVMGetTypeKind(from), b = LLVMGetTypeKind(to);
  int scalars = (a == LLVMIntegerTypeKind || a == LLVMFloatTypeKind ||
                 a == LLVMDoubleTypeKind || a == LLVMHalfTypeKind) &&
                (b == LLVMIntegerTypeKind || b == LLVMFloatTypeKind ||
                 b == LLVMDoubleTypeKind || b == LLVMHalfTypeKind);
  return scalars && LLVMSizeOfTypeInBits(td, from) == LLVMSizeOfTypeInBits(td, to);
}

static LLVMValueRef as_type(lowering *l, LLVMValueRef v, LLVMTypeRef t) {
  return LLVMTypeOf(v) == t ? v : LLVMBuildBitCast(l->b, v, t, "");
}

static int type_error(lowering *l, LLVMValueRef inst, LLVMValueRef fn,
                      LLVMTypeRef want) {
  char *t = text_of(inst), *w = LLVMPrintTypeToString(want);
  int rc = fail(l->f, inst,
                "`%s` through the pointer of %s: its function %s takes or "
                "returns %s, which is not the type accessed",
                t ? t : "?", call_name(l->call),
                LLVMGetValueName2(fn, &(size_t){0}), w);
  free(t);
  LLVMDisposeMessage(w);
  return rc;
}

static int lower_access(lowering *l, LLVMValueRef inst, LLVMTargetDataRef td) {
  int is_load = LLVMIsALoadInst(inst) != NULL;
  LLVMValueRef fn = is_load ? l->load_fn : l->store_fn;
  LLVMValueRef ptr = LLVMGetOperand(inst, is_load ? 0 : 1);
  LLVMTypeRef t = is_load ? LLVMTypeOf(inst) : LLVMTypeOf(LLVMGetOperand(inst, 0));
  unsigned lanes;
  LLVMTypeRef et = element_of(t, &lanes);
  /* the type the user's function has for the element: its result, or
   * the stored value's parameter */
  LLVMTypeRef ft = LLVMGlobalGetValueType(fn), ut;
  if (is_load)
    ut = LLVMGetReturnType(ft);
  else if (LLVMCountParamTypes(ft) > 0) {
    LLVMTypeRef pt[66];
    if (LLVMCountParamTypes(ft) > 66)
      return fail(l->f, l->call, "the store function %s of %s takes more "
                                 "than 66 parameters",
                  LLVMGetValueName2(fn, &(size_t){0}), call_name(l->call));
    LLVMGetParamTypes(ft, pt);
    ut = pt[0];
  } else
    ut = et;
  if (!reinterpretable(et, ut, td))
    return type_error(l, inst, fn, ut);
  LLVMTypeRef first[2] = {ut, l->i64};
  if (is_load ? check_signature(l, fn, &l->i64, 1, "the load")
              : check_signature(l, fn, first, 2, "the store"))
    return -1;
  LLVMPositionBuilderBefore(l->b, inst);
  LLVMSetCurrentDebugLocation2(l->b, LLVMInstructionGetDebugLoc(inst));
  LLVMValueRef off = LLVMBuildPtrToInt(l->b, ptr, l->i64, "todense.off");
  unsigned long long step = LLVMStoreSizeOfType(td, et);
  LLVMTypeRef i32 = LLVMInt32TypeInContext(LLVMGetModuleContext(l->m));
  LLVMValueRef result = lanes > 1 ? LLVMGetPoison(t) : NULL;
  for (unsigned k = 0; k < lanes; k++) {
    LLVMValueRef at =
        k ? LLVMBuildAdd(l->b, off, LLVMConstInt(l->i64, k * step, 0), "")
          : off;
    LLVMValueRef lane = LLVMConstInt(i32, k, 0);
    if (is_load) {
      LLVMValueRef v = as_type(l, emit_call(l, fn, &at, 1), et);
      result = lanes > 1 ? LLVMBuildInsertElement(l->b, result, v, lane, "") : v;
    } else {
      LLVMValueRef v = LLVMGetOperand(inst, 0);
      if (lanes > 1)
        v = LLVMBuildExtractElement(l->b, v, lane, "");
      LLVMValueRef two[2] = {as_type(l, v, ut), at};
      emit_call(l, fn, two, 2);
    }
  }
  if (is_load)
    LLVMReplaceAllUsesWith(inst, result);
  LLVMInstructionEraseFromParent(inst);
  return 0;
}

static LLVMValueRef function_operand(LLVMValueRef v) {
  v = ad_strip_casts(v, AD_STRIP_INSTRUCTIONS);
  return LLVMIsAFunction(v) ? v : NULL;
}

static int lower_call(LLVMModuleRef m, LLVMValueRef call, LLVMTargetDataRef td,
                      ad_todense_failure *f) {
  unsigned na = LLVMGetNumArgOperands(call);
  lowering l = {.m = m, .call = call, .f = f};
  if (na < 2)
    return fail(f, call, "%s takes a load function, a store function and "
                         "their extra arguments; this call passes %u argument%s",
                call_name(call), na, na == 1 ? "" : "s");
  l.load_fn = function_operand(LLVMGetOperand(call, 0));
  l.store_fn = function_operand(LLVMGetOperand(call, 1));
  if (!l.load_fn || !l.store_fn)
    return fail(f, call, "%s: its %s argument is not a function defined or "
                         "declared in the module",
                call_name(call), l.load_fn ? "second (store)" : "first (load)");
  if (na - 2 > 64)
    return fail(f, call, "%s: more than 64 extra arguments", call_name(call));
  LLVMValueRef extra[64];
  for (unsigned k = 2; k < na; k++)
    extra[k - 2] = LLVMGetOperand(call, k);
  l.extra = extra;
  l.nextra = na - 2;
  l.i64 = LLVMInt64TypeInContext(LLVMGetModuleContext(m));
  tj_hashmap_init(&l.derived, TJ_KEYS_POINTERS);
  int rc = collect(&l);
  if (rc == 0) {
    /* the moves now move a null pointer: offsets, which may wrap */
    for (size_t i = 1; i < l.order.n; i++)
      if (LLVMIsAGetElementPtrInst(l.order.v[i]))
        LLVMGEPSetNoWrapFlags(l.order.v[i], 0);
    LLVMReplaceAllUsesWith(call, LLVMConstNull(LLVMTypeOf(call)));
    l.b = LLVMCreateBuilderInContext(LLVMGetModuleContext(m));
    for (size_t i = 0; i < l.accesses.n && rc == 0; i++)
      rc = lower_access(&l, l.accesses.v[i], td);
    LLVMDisposeBuilder(l.b);
    if (rc == 0)
      LLVMInstructionEraseFromParent(call);
  }
  free(l.order.v);
  free(l.accesses.v);
  tj_hashmap_free(&l.derived);
  return rc;
}

int ad_lower_todense(LLVMModuleRef m, ad_todense_failure *f) {
  f->where = NULL;
  f->message = NULL;
  value_list calls = {0};
  value_list fns = {0};
  int rc = 0;
  for (LLVMValueRef fn = LLVMGetFirstFunction(m); fn && rc == 0;
       fn = LLVMGetNextFunction(fn)) {
    if (!ad_is_todense_function(fn))
      continue;
    rc = list_push(&fns, fn);
    for (LLVMUseRef u = LLVMGetFirstUse(fn); u && rc == 0; u = LLVMGetNextUse(u))
      if (todense_callee(LLVMGetUser(u)) == fn)
        rc = list_push(&calls, LLVMGetUser(u));
  }
  if (rc == 0 && calls.n) {
    int marked = mark_callees(&calls);
    if (marked < 0) {
      rc = fail(f, NULL, "out of memory");
    } else if (marked > 0) {
      LLVMPassBuilderOptionsRef opts = LLVMCreatePassBuilderOptions();
      LLVMErrorRef e = LLVMRunPasses(m, "always-inline", NULL, opts);
      LLVMDisposePassBuilderOptions(opts);
      if (e) {
        char *msg = LLVMGetErrorMessage(e);
        rc = fail(f, NULL, "inlining the derivatives that __enzyme_todense "
                           "pointers are passed to: %s", msg);
        LLVMDisposeErrorMessage(msg);
      }
    }
  }
  if (rc == 0 && calls.n) {
    /* inlining copied calls and deleted the originals' functions: the
     * calls are found again */
    calls.n = 0;
    for (size_t i = 0; i < fns.n && rc == 0; i++)
      for (LLVMUseRef u = LLVMGetFirstUse(fns.v[i]); u && rc == 0;
           u = LLVMGetNextUse(u))
        if (todense_callee(LLVMGetUser(u)) == fns.v[i])
          rc = list_push(&calls, LLVMGetUser(u));
    LLVMTargetDataRef td = LLVMCreateTargetData(LLVMGetDataLayoutStr(m));
    for (size_t i = 0; i < calls.n && rc == 0; i++)
      rc = lower_call(m, calls.v[i], td, f);
    LLVMDisposeTargetData(td);
  }
  if (rc == 0)
    for (size_t i = 0; i < fns.n; i++)
      if (!LLVMGetFirstUse(fns.v[i]))
        LLVMDeleteFunction(fns.v[i]);
  if (rc && !f->message && !f->where)
    fail(f, NULL, "out of memory");
  free(calls.v);
  free(fns.v);
  return rc;
}

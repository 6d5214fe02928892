/*
 * Requests: one `__enzyme_fwddiff(fn, args...)` call, decoded the way Enzyme
 * decodes it (HandleAutoDiffArguments), and replaced by a call to the
 * derivative.
 *
 * - The first argument is the function, possibly behind casts; with an sret
 *   result the sret pointer comes first.
 * - Markers: a load of (or the address of) the globals enzyme_dup,
 *   enzyme_const, enzyme_dupnoneed, enzyme_width, enzyme_primal_return, or a
 *   `metadata !"enzyme_..."` operand.  enzyme_width N and the result
 *   markers (enzyme_primal_return, enzyme_dup_return, enzyme_const_return,
 *   enzyme_noret, which Enzyme's C++ header passes by address) may appear
 *   anywhere; the others prefix the argument they qualify.
 * - Unmarked arguments follow Enzyme's whatType: floats, pointers and
 *   aggregates holding them are duplicated, integers constant.
 * - A duplicated argument is followed by N shadow arguments (N = width).
 *   An integer parameter may be duplicated (a pointer passed as uintptr_t
 *   or CUdeviceptr): its shadows are integers of the same type (a pointer
 *   given for one is converted).
 * - The result: the tangent (an [N x T] when N > 1), or {primal, tangent}
 *   with enzyme_primal_return; after enzyme_const_return the primal (with
 *   enzyme_primal_return) or nothing.  Stored into the request's declared return
 *   type by layout (a struct of N doubles, a vector, an array ...).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <llvm-c/DebugInfo.h>

#include "common/alloc.h"
#include "ad/ad.h"
#include "ad/analysis/activity.h"
#include "ad/core/context.h"
#include "ad/core/diag.h"
#include "ad/fwd/fwd.h"
#include "ad/ir/ir.h"
#include "ad/markers.h"
#include "ad/registry/registry.h"
#include "ad/request.h"
#include "ad/rev/rev.h"
#include "ad/tangent/tangent.h"

static int is_split_marker(ad_marker m) {
  return m == AD_MARK_TAPE || m == AD_MARK_ALLOCATED;
}

/* Markers that qualify the whole request and take no value after them. */
static int is_request_flag(ad_marker m) {
  return m == AD_MARK_PRIMAL_RETURN || m == AD_MARK_DUP_RETURN ||
         m == AD_MARK_CONST_RETURN || m == AD_MARK_ACTIVE_RETURN ||
         m == AD_MARK_NORET || m == AD_MARK_RUNTIME_ACTIVITY;
}

/* The value an extractvalue reads where its aggregate was built by
 * insertvalues (clang -O0 passes the markers of Enzyme's C++ header through
 * tuples, which SROA leaves as such chains); v itself otherwise. */
static LLVMValueRef through_tuple(LLVMValueRef v) {
  for (int depth = 0; depth < 64 && LLVMIsAExtractValueInst(v) &&
                      LLVMGetNumIndices(v) == 1;
       depth++) {
    unsigned want = LLVMGetIndices(v)[0];
    LLVMValueRef agg = LLVMGetOperand(v, 0);
    while (LLVMIsAInsertValueInst(agg) && LLVMGetNumIndices(agg) == 1 &&
           LLVMGetIndices(agg)[0] != want)
      agg = LLVMGetOperand(agg, 0);
    if (!LLVMIsAInsertValueInst(agg) || LLVMGetNumIndices(agg) != 1)
      return v;
    v = LLVMGetOperand(agg, 1);
  }
  return v;
}

static ad_marker marker_of(LLVMValueRef v) {
  const char *name;
  size_t len;
  return ad_marker_of(through_tuple(v), AD_MARKERS_DIFF, &name, &len);
}

/* The name of a marker as written: the global's or the metadata string. */
static const char *marker_text(LLVMValueRef v, char *buf, size_t size) {
  const char *s = NULL;
  size_t n = 0;
  ad_marker_of(v, AD_MARKERS_DIFF, &s, &n);
  snprintf(buf, size, "%.*s", s ? (int)(n < 60 ? n : 60) : 1, s ? s : "?");
  return buf;
}

/* enzyme_runtime_activity anywhere in the request: every duplicated
 * argument's shadow may be the argument itself at run time (Enzyme's
 * run-time activity: that memory is inactive, its derivatives dropped),
 * so the derivative checks before it writes through a shadow. */
static int wants_runtime_activity(LLVMValueRef call, unsigned first,
                                  unsigned nargs) {
  for (unsigned i = first; i < nargs; i++)
    if (marker_of(LLVMGetOperand(call, i)) == AD_MARK_RUNTIME_ACTIVITY)
      return 1;
  return 0;
}

/* Steps *i over operand *i when it is a request-wide marker: enzyme_width
 * N, a result marker, and where `skip_split` (reverse mode) enzyme_tape p
 * and enzyme_allocated N.  1 when it did. */
static int skip_request_marker(LLVMValueRef call, unsigned *i, int skip_split) {
  ad_marker m = marker_of(LLVMGetOperand(call, *i));
  if (m == AD_MARK_WIDTH || (skip_split && is_split_marker(m)))
    *i += 2;
  else if (is_request_flag(m))
    (*i)++;
  else
    return 0;
  return 1;
}

/* The activity marker of the next parameter, read from operand *i on, up
 * to `end`, past request-wide markers (skip_request_marker): a marker with
 * *i past it; AD_MARK_NONE with *i on the value (or at end); or
 * AD_MARK_UNKNOWN, or a split marker not skipped, with *i on it. */
static ad_marker next_param_marker(LLVMValueRef call, unsigned *i,
                                   unsigned end, int skip_split) {
  while (*i < end && skip_request_marker(call, i, skip_split))
    ;
  if (*i >= end)
    return AD_MARK_NONE;
  ad_marker m = marker_of(LLVMGetOperand(call, *i));
  if (m != AD_MARK_NONE && m != AD_MARK_UNKNOWN && !is_split_marker(m))
    (*i)++;
  return m;
}

/* Converts an argument as passed (variadic promotion: float -> double,
 * char/short -> int) to the parameter type.  NULL if impossible. */
static LLVMValueRef coerce_arg(LLVMBuilderRef b, LLVMTypeRef want,
                               LLVMValueRef v) {
  LLVMTypeRef have = LLVMTypeOf(v);
  if (have == want)
    return v;
  if (ad_type_is_float_scalar(have) && ad_type_is_float_scalar(want))
    return LLVMBuildFPCast(b, v, want, "");
  if (LLVMGetTypeKind(have) == LLVMIntegerTypeKind &&
      LLVMGetTypeKind(want) == LLVMIntegerTypeKind)
    return LLVMBuildIntCast2(b, v, want, 1, "");
  if (LLVMGetTypeKind(have) == LLVMPointerTypeKind &&
      LLVMGetTypeKind(want) == LLVMPointerTypeKind)
    return LLVMBuildPointerCast(b, v, want, "");
  if (LLVMGetTypeKind(have) == LLVMIntegerTypeKind &&
      LLVMGetTypeKind(want) == LLVMPointerTypeKind)
    return LLVMBuildIntToPtr(b, v, want, "");
  /* A pointer for an integer parameter that carries one (a uintptr_t, a
   * CUdeviceptr): the caller passed the buffer itself, as Enzyme accepts. */
  if (LLVMGetTypeKind(have) == LLVMPointerTypeKind &&
      LLVMGetTypeKind(want) == LLVMIntegerTypeKind)
    return LLVMBuildPtrToInt(b, v, want, "");
  return NULL;
}

typedef struct request {
  ad_module_ctx *mc;
  LLVMValueRef call, fn, sret;
  const char *who; /* the request's name in errors (__enzyme_autodiff...) */
  unsigned first, nargs; /* call operands [first, nargs) after fn */
  unsigned width;
  int primal_return;
  int const_return; /* enzyme_const_return: the result has no tangent */
} request;

int ad_request_head_read(ad_module_ctx *mc, LLVMValueRef call,
                         const char *who, ad_request_head *h) {
  memset(h, 0, sizeof *h);
  h->nargs = LLVMGetNumArgOperands(call);
  if (h->nargs > 0 && LLVMGetCallSiteEnumAttribute(
                          call, 1, LLVMGetEnumAttributeKindForName("sret", 4))) {
    h->sret = LLVMGetOperand(call, 0);
    h->fn_at = 1;
  }
  if (h->nargs <= h->fn_at)
    return ad_fail(mc, call, "%s called without a function", who);
  h->fn = ad_strip_casts(LLVMGetOperand(call, h->fn_at),
                         AD_STRIP_INT_CASTS | AD_STRIP_INSTRUCTIONS);
  return 0;
}

/* A forward or reverse request `call` (`who` in errors) with its head read
 * and nothing decoded yet: width 1, no result markers.  0 or -1. */
static int request_begin(request *r, ad_module_ctx *mc, LLVMValueRef call,
                         const char *who) {
  ad_request_head h;
  memset(r, 0, sizeof *r);
  r->mc = mc;
  r->call = call;
  r->who = who;
  r->width = 1;
  if (ad_request_head_read(mc, call, who, &h) != 0)
    return -1;
  r->nargs = h.nargs;
  r->sret = h.sret;
  r->fn = h.fn;
  r->first = h.fn_at + 1;
  return 0;
}

static char *type_text(LLVMTypeRef t) {
  char *s = LLVMPrintTypeToString(t);
  char *c = s ? tj_strdup(s) : NULL;
  LLVMDisposeMessage(s);
  return c;
}

static int fail_type(request *r, const char *what, LLVMTypeRef have,
                     LLVMTypeRef want) {
  char *a = type_text(have), *b = type_text(want);
  /* A C function returning a large struct takes a hidden first pointer: the
   * request must pass it (and its shadow) explicitly. */
  unsigned sret = LLVMGetEnumAttributeKindForName("sret", 4);
  int hidden = LLVMIsAFunction(r->fn) && LLVMCountParams(r->fn) > 0 &&
               LLVMGetEnumAttributeAtIndex(r->fn, 1, sret);
  int rc = ad_fail(r->mc, r->call, "%s of %s: %s has type %s, expected %s%s",
                   r->who, ad_value_name(r->fn), what, a ? a : "?", b ? b : "?",
                   hidden ? " (it returns a struct through a hidden first "
                            "pointer parameter: pass the result's address "
                            "and its shadow first, e.g. enzyme_dup, &out, "
                            "&dout, then the arguments)"
                          : "");
  free(a);
  free(b);
  return rc;
}

/* What reverse mode can duplicate: a pointer, or an integer of a
 * pointer's width holding one (Julia's Ptr{Float64} in a signature, a
 * CUdeviceptr), whose shadow is an integer too, as in forward mode. */
static int duplicable_in_reverse(ad_module_ctx *mc, LLVMTypeRef t) {
  if (LLVMGetTypeKind(t) == LLVMPointerTypeKind)
    return 1;
  return LLVMGetTypeKind(t) == LLVMIntegerTypeKind &&
         LLVMGetIntTypeWidth(t) == 8 * LLVMPointerSize(mc->td);
}

/* Operand i of the request as parameter p's type, or NULL after setting *rc
 * to an error naming "<role> parameter <p+1>" ("argument for", "shadow
 * for"), or the marker found where that value was expected. */
static LLVMValueRef coerce_or_fail(request *r, LLVMBuilderRef b, LLVMTypeRef want,
                                   unsigned i, const char *role, unsigned p,
                                   int *rc) {
  LLVMValueRef operand = LLVMGetOperand(r->call, i);
  LLVMValueRef v = coerce_arg(b, want, operand);
  if (!v && marker_of(operand) != AD_MARK_NONE) {
    /* a marker too many, or a value left out: its type says nothing */
    char name[64];
    char *t = type_text(want);
    *rc = ad_fail(r->mc, r->call,
                  "%s of %s: argument %u is the marker %s where parameter %u's "
                  "%s (%s) was expected",
                  r->who, ad_value_name(r->fn), i + 2 - r->first,
                  marker_text(operand, name, sizeof name), p + 1,
                  strcmp(role, "shadow for") == 0 ? "shadow" : "value",
                  t ? t : "?");
    free(t);
  } else if (!v) {
    char what[64];
    snprintf(what, sizeof what, "%s parameter %u", role, p + 1);
    *rc = fail_type(r, what, LLVMTypeOf(operand), want);
  }
  return v;
}

/* A duplicated argument's shadow (operand shadow_at) that is a null
 * pointer constant where the argument (operand primal_at) is not: the
 * derivative would read and write through address 0 when it runs, so the
 * request is refused as it loads.  (A null argument with a null shadow,
 * an optional pointer left out, is consistent and taken.) */
static int fail_null_shadow(request *r, unsigned primal_at, unsigned shadow_at,
                            unsigned p, unsigned lane, unsigned width) {
  LLVMValueRef a = ad_strip_casts(LLVMGetOperand(r->call, primal_at), 0);
  LLVMValueRef s = ad_strip_casts(LLVMGetOperand(r->call, shadow_at), 0);
  if (!LLVMIsAConstantPointerNull(s) || LLVMIsAConstantPointerNull(a))
    return 0;
  char lane_text[32] = "";
  if (width > 1)
    snprintf(lane_text, sizeof lane_text, " (lane %u of %u)", lane + 1, width);
  return ad_fail(r->mc, r->call,
                 "%s of %s: the shadow for parameter %u%s is a null pointer: "
                 "a duplicated argument's shadow is memory shaped like the "
                 "argument's, which receives its derivative",
                 r->who, ad_value_name(r->fn), p + 1, lane_text);
}

/* The value of integer constant c, whatever its width
 * (LLVMConstIntGetSExtValue keeps only the low 64 bits of a wider one:
 * 2^64 + 2 would read as 2), and its decimal text (for errors).  0 when it
 * does not fit a long long. */
static int constant_int_value(LLVMValueRef c, long long *out, char *text,
                              size_t size) {
  if (LLVMGetIntTypeWidth(LLVMTypeOf(c)) <= 64) {
    *out = LLVMConstIntGetSExtValue(c);
    snprintf(text, size, "%lld", *out);
    return 1;
  }
  char *printed = LLVMPrintValueToString(c); /* "i128 18446744073709551618" */
  const char *digits = printed ? strchr(printed, ' ') : NULL;
  snprintf(text, size, "%s", digits ? digits + 1 : "?");
  LLVMDisposeMessage(printed);
  char *end;
  errno = 0;
  *out = strtoll(text, &end, 10);
  return errno == 0 && end != text && *end == 0;
}

/* With enzyme_interleave (Enzyme's C++ header) the arguments end there and
 * the shadows of the duplicated ones follow it in order, read from
 * *shadow_at; without it (*shadow_at 0) each shadow follows its argument. */
static void find_interleave(const request *r, unsigned *args_end,
                            unsigned *shadow_at) {
  *args_end = r->nargs;
  *shadow_at = 0;
  for (unsigned j = r->first; j < r->nargs; j++)
    if (marker_of(LLVMGetOperand(r->call, j)) == AD_MARK_INTERLEAVE) {
      *args_end = j;
      *shadow_at = j + 1;
      return;
    }
}

/* Pre-scan for the markers that apply to the whole request. */
static int scan_global_markers(request *r, int reverse) {
  for (unsigned i = r->first; i < r->nargs; i++) {
    LLVMValueRef a = LLVMGetOperand(r->call, i);
    ad_marker m = marker_of(a);
    /* As in Enzyme, the last result marker wins; enzyme_noret only drops
     * the primal, which forward mode returns only when asked for anyway. */
    if (m == AD_MARK_PRIMAL_RETURN)
      r->primal_return = 1;
    if (m == AD_MARK_DUP_RETURN)
      r->const_return = 0;
    if (m == AD_MARK_CONST_RETURN)
      r->const_return = 1;
    /* reverse mode's default for a float result (Enzyme's C++ header
     * passes it for enzyme::Reverse): seeded with 1.0 */
    if (m == AD_MARK_ACTIVE_RETURN && !reverse)
      return ad_fail(r->mc, r->call,
                     "%s of %s: enzyme_active_return is a "
                     "reverse-mode marker (an active result); forward mode "
                     "takes enzyme_dup_return or enzyme_const_return",
                     r->who, ad_value_name(r->fn));
    if (m == AD_MARK_WIDTH) {
      if (i + 1 >= r->nargs)
        return ad_fail(r->mc, r->call,
                       "enzyme_width with no value after it in the request "
                       "for %s",
                       ad_value_name(r->fn));
      LLVMValueRef w = LLVMGetOperand(r->call, i + 1);
      if (!LLVMIsAConstantInt(w))
        return ad_fail(r->mc, r->call,
                       "enzyme_width must be followed by a constant integer");
      char text[64];
      long long n = 0;
      if (!constant_int_value(w, &n, text, sizeof text) || n < 1 ||
          n > AD_MAX_WIDTH)
        return ad_fail(r->mc, r->call,
                       "enzyme_width %s is out of range (1..%d)", text,
                       AD_MAX_WIDTH);
      r->width = (unsigned)n;
    }
  }
  return 0;
}

/* Stores `v` into memory of the request's type, or returns it coerced. */
/* The scalars of value v (members of structs, elements of arrays and
 * vectors), in order; -1 past `cap`. */
static int flatten_value(LLVMBuilderRef b, LLVMValueRef v, LLVMValueRef *out,
                         unsigned *n, unsigned cap) {
  LLVMTypeRef t = LLVMTypeOf(v);
  unsigned count;
  switch (LLVMGetTypeKind(t)) {
  case LLVMStructTypeKind:
  case LLVMArrayTypeKind:
    count = LLVMGetTypeKind(t) == LLVMStructTypeKind
                ? LLVMCountStructElementTypes(t)
                : (unsigned)LLVMGetArrayLength2(t);
    for (unsigned i = 0; i < count; i++)
      if (flatten_value(b, LLVMBuildExtractValue(b, v, i, ""), out, n, cap))
        return -1;
    return 0;
  case LLVMVectorTypeKind: {
    LLVMTypeRef i32 = LLVMInt32TypeInContext(LLVMGetTypeContext(t));
    count = LLVMGetVectorSize(t);
    for (unsigned i = 0; i < count; i++)
      if (flatten_value(b, LLVMBuildExtractElement(b, v, LLVMConstInt(i32, i, 0), ""),
                        out, n, cap))
        return -1;
    return 0;
  }
  default:
    if (*n == cap)
      return -1;
    out[(*n)++] = v;
    return 0;
  }
}

/* The scalar members of type t with their byte offsets in t's layout. */
static int flatten_layout(LLVMTargetDataRef td, LLVMTypeRef t,
                          unsigned long long at, LLVMTypeRef *types,
                          unsigned long long *offsets, unsigned *n,
                          unsigned cap) {
  switch (LLVMGetTypeKind(t)) {
  case LLVMStructTypeKind: {
    unsigned count = LLVMCountStructElementTypes(t);
    for (unsigned i = 0; i < count; i++)
      if (flatten_layout(td, LLVMStructGetTypeAtIndex(t, i),
                         at + LLVMOffsetOfElement(td, t, i), types, offsets, n,
                         cap))
        return -1;
    return 0;
  }
  case LLVMArrayTypeKind:
  case LLVMVectorTypeKind: {
    LLVMTypeRef el = LLVMGetElementType(t);
    unsigned long long count = LLVMGetTypeKind(t) == LLVMArrayTypeKind
                                   ? LLVMGetArrayLength2(t)
                                   : LLVMGetVectorSize(t);
    /* vector elements are packed at their store size, array ones at
     * their allocation size */
    unsigned long long stride = LLVMGetTypeKind(t) == LLVMArrayTypeKind
                                    ? LLVMABISizeOfType(td, el)
                                    : LLVMStoreSizeOfType(td, el);
    for (unsigned long long i = 0; i < count; i++)
      if (flatten_layout(td, el, at + i * stride, types, offsets, n, cap))
        return -1;
    return 0;
  }
  default:
    if (*n == cap)
      return -1;
    types[*n] = t;
    offsets[(*n)++] = at;
    return 0;
  }
}

/*
 * Whether a value of type `have` can be stored scalar by scalar as type
 * `layout`: the same scalars in the same order.  The derivative's result
 * carries each lane (or the primal and the tangent) in the callee's ABI
 * type, which may have tail padding where the C result packs its members:
 * a struct of three floats is returned as { <2 x float>, float }, 16
 * bytes, but two of them fill 24.
 */
enum { MAX_RESULT_SCALARS = 1024 };
static int same_scalars(request *r, LLVMTypeRef have, LLVMTypeRef layout) {
  LLVMTypeRef *a = tj_malloc(MAX_RESULT_SCALARS * sizeof *a);
  LLVMTypeRef *b = tj_malloc(MAX_RESULT_SCALARS * sizeof *b);
  unsigned long long *offs = tj_malloc(MAX_RESULT_SCALARS * sizeof *offs);
  unsigned na = 0, nb = 0;
  int same = a && b && offs &&
             flatten_layout(r->mc->td, have, 0, a, offs, &na, MAX_RESULT_SCALARS) == 0 &&
             flatten_layout(r->mc->td, layout, 0, b, offs, &nb, MAX_RESULT_SCALARS) == 0 &&
             na == nb && memcmp(a, b, na * sizeof *a) == 0;
  free(a);
  free(b);
  free(offs);
  return same;
}

/* Stores v at p laid out as `layout` (same_scalars holds), scalar by
 * scalar at layout's offsets.  0, or -1 on out of memory. */
static int store_as_layout(request *r, LLVMBuilderRef b, LLVMValueRef v,
                           LLVMTypeRef layout, LLVMValueRef p) {
  LLVMValueRef *vals = tj_malloc(MAX_RESULT_SCALARS * sizeof *vals);
  LLVMTypeRef *types = tj_malloc(MAX_RESULT_SCALARS * sizeof *types);
  unsigned long long *offs = tj_malloc(MAX_RESULT_SCALARS * sizeof *offs);
  unsigned nv = 0, nt = 0;
  int rc = -1;
  if (vals && types && offs &&
      flatten_layout(r->mc->td, layout, 0, types, offs, &nt,
                     MAX_RESULT_SCALARS) == 0 &&
      flatten_value(b, v, vals, &nv, MAX_RESULT_SCALARS) == 0 && nv == nt) {
    LLVMTypeRef i8 = LLVMInt8TypeInContext(r->mc->llctx);
    LLVMTypeRef i64 = LLVMInt64TypeInContext(r->mc->llctx);
    for (unsigned i = 0; i < nv; i++) {
      LLVMValueRef off = LLVMConstInt(i64, offs[i], 0);
      LLVMBuildStore(b, vals[i], LLVMBuildGEP2(b, i8, p, &off, 1, ""));
    }
    rc = 0;
  }
  free(vals);
  free(types);
  free(offs);
  return rc;
}

/* An alloca of t in the entry block of the request's function. */
static LLVMValueRef entry_alloca(request *r, LLVMTypeRef t, const char *name) {
  return ad_entry_alloca(
      LLVMGetBasicBlockParent(LLVMGetInstructionParent(r->call)), t, name);
}

static LLVMValueRef coerce_result(request *r, LLVMBuilderRef b, LLVMValueRef v,
                                  LLVMTypeRef want) {
  LLVMTypeRef have = LLVMTypeOf(v);
  if (have == want)
    return v;
  unsigned long long hs = LLVMABISizeOfType(r->mc->td, have);
  unsigned long long ws = LLVMABISizeOfType(r->mc->td, want);
  if (same_scalars(r, have, want)) {
    LLVMValueRef slot = entry_alloca(r, want, "fwddiff.result");
    if (store_as_layout(r, b, v, want, slot) == 0)
      return LLVMBuildLoad2(b, want, slot, "");
  }
  if (LLVMStoreSizeOfType(r->mc->td, have) > ws || hs < LLVMStoreSizeOfType(r->mc->td, want)) {
    char *a = type_text(have), *c = type_text(want);
    char why[96];
    if (r->primal_return && r->width > 1)
      snprintf(why, sizeof why, "the primal and %u tangents", r->width);
    else if (r->primal_return)
      snprintf(why, sizeof why, "{primal, tangent}, after enzyme_primal_return");
    else if (r->width > 1)
      snprintf(why, sizeof why, "one tangent per direction of enzyme_width %u",
               r->width);
    else
      snprintf(why, sizeof why, "the tangent of its result");
    ad_fail(r->mc, r->call,
            "%s of %s returns %s (%s), but the call is declared "
            "to return %s: declare the request with a result of that type",
            r->who, ad_value_name(r->fn), a ? a : "?", why, c ? c : "?");
    free(a);
    free(c);
    return NULL;
  }
  /* Through memory: an alloca in the entry block holding either type. */
  LLVMValueRef slot = entry_alloca(r, hs >= ws ? have : want, "fwddiff.result");
  LLVMBuildStore(b, v, slot);
  return LLVMBuildLoad2(b, want, slot, "");
}

/* The derivative's result with its lanes as the request's ABI has them:
 * one array of N tangents, also inside {primal, tangents}. */
static LLVMValueRef tangents_as_arrays(LLVMBuilderRef b, LLVMValueRef res,
                                       const ad_signature *sig) {
  ad_ret_mode ret = sig->ret;
  if (sig->width == 1)
    return res;
  if (ret == AD_RET_TANGENT)
    return ad_lanes_to_array(b, res);
  if (ret != AD_RET_BOTH)
    return res;
  LLVMTypeRef rt = LLVMTypeOf(res);
  LLVMTypeRef two[2] = {LLVMStructGetTypeAtIndex(rt, 0),
                        LLVMStructGetTypeAtIndex(rt, 1)};
  if (LLVMGetTypeKind(two[1]) != LLVMVectorTypeKind)
    return res;
  LLVMValueRef tangents =
      ad_lanes_to_array(b, LLVMBuildExtractValue(b, res, 1, ""));
  two[1] = LLVMTypeOf(tangents);
  LLVMValueRef agg = LLVMGetPoison(
      LLVMStructTypeInContext(LLVMGetTypeContext(rt), two, 2, 0));
  agg = LLVMBuildInsertValue(b, agg, LLVMBuildExtractValue(b, res, 0, ""), 0, "");
  return LLVMBuildInsertValue(b, agg, tangents, 1, "");
}

/*
 * When the function a request names has a custom rule (in-IR registration or
 * tanjit_register_fwd_rule), Enzyme uses the rule, not the body.  The rule
 * applies to calls, so the request is redirected to a one-call wrapper whose
 * derivative is that call's rule.  Returns the function to differentiate.
 */
static LLVMValueRef through_custom_rule(ad_module_ctx *mc, LLVMValueRef fn) {
  LLVMTypeRef type = LLVMGlobalGetValueType(fn);
  LLVMValueRef wrapper = ad_add_generated_function(mc->mod, "tanjit.custom_rule_call", type);
  LLVMSetLinkage(wrapper, LLVMInternalLinkage);
  LLVMBuilderRef b = LLVMCreateBuilderInContext(mc->llctx);
  LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(mc->llctx, wrapper, ""));
  unsigned n = LLVMCountParams(wrapper);
  LLVMValueRef *args = tj_malloc((n ? n : 1) * sizeof *args);
  if (!args) {
    LLVMDisposeBuilder(b);
    LLVMDeleteFunction(wrapper);
    return fn;
  }
  for (unsigned i = 0; i < n; i++)
    args[i] = LLVMGetParam(wrapper, i);
  LLVMValueRef inner = LLVMBuildCall2(b, type, fn, args, n, "");
  LLVMSetInstructionCallConv(inner, LLVMGetFunctionCallConv(fn));
  if (LLVMGetTypeKind(LLVMGetReturnType(type)) == LLVMVoidTypeKind)
    LLVMBuildRetVoid(b);
  else
    LLVMBuildRet(b, inner);
  LLVMDisposeBuilder(b);
  free(args);
  const ad_call_rule *rule = ad_custom_lookup(mc->engine, inner);
  if (rule && !rule->inactive)
    return wrapper;
  LLVMDeleteFunction(wrapper);
  return fn;
}

/* Which reverse-mode request a call is (rewrite_reverse). */
typedef enum rev_mode {
  REV_COMBINED, /* __enzyme_autodiff */
  REV_AUGMENT,  /* __enzyme_augmentfwd */
  REV_REVERSE,  /* __enzyme_reverse */
  REV_SIZE,     /* __enzyme_augmentsize */
  REV_VIRTUAL   /* __enzyme_virtualreverse */
} rev_mode;

static int rewrite_reverse(ad_module_ctx *mc, LLVMValueRef call, rev_mode mode);

/* The split request a call to `callee` is, by name (engine.c's
 * ad_request_kind_of said AD_REQUEST_SPLIT). */
static rev_mode split_mode_of(LLVMValueRef callee) {
  size_t n;
  const char *name = LLVMGetValueName2(callee, &n);
  static const struct {
    const char *word;
    rev_mode mode;
  } words[] = {{"__enzyme_augmentfwd", REV_AUGMENT},
               {"__enzyme_augmentsize", REV_SIZE},
               {"__enzyme_virtualreverse", REV_VIRTUAL},
               {"__enzyme_reverse", REV_REVERSE}};
  for (size_t i = 0; i < sizeof words / sizeof *words; i++) {
    size_t w = strlen(words[i].word);
    for (size_t at = 0; at + w <= n; at++)
      if (memcmp(name + at, words[i].word, w) == 0)
        return words[i].mode;
  }
  return REV_REVERSE;
}
int ad_request_is_tape_size(LLVMValueRef call) {
  LLVMValueRef callee = LLVMGetCalledValue(call);
  return callee && LLVMIsAFunction(callee) &&
         ad_request_kind_of(callee) == AD_REQUEST_SPLIT &&
         split_mode_of(callee) == REV_SIZE;
}

static int has_sret_param(LLVMValueRef fn) {
  return LLVMGetEnumAttributeAtIndex(
             fn, 1, LLVMGetEnumAttributeKindForName("sret", 4)) != NULL;
}

/*
 * A request through an sret pointer for a function that itself returns
 * through one (C++ returning a std::vector, as Enzyme's <enzyme/enzyme>
 * writes `enzyme::autodiff<enzyme::Forward>` for it): the function's result
 * pointer is not among the request's arguments.  As Enzyme does, the
 * request's result memory holds the primal (with enzyme_primal_return)
 * followed by one shadow per lane, each laid out as the function's result;
 * without enzyme_primal_return the primal goes to a slot of the caller's
 * frame.  Fills parameter 0's argument, shadows and activity.
 */
static int result_through_sret(request *r, LLVMBuilderRef b,
                               LLVMValueRef *args, unsigned char *act,
                               unsigned *k) {
  unsigned kind = LLVMGetEnumAttributeKindForName("sret", 4);
  LLVMTypeRef ty = LLVMGetTypeAttributeValue(
      LLVMGetEnumAttributeAtIndex(r->fn, 1, kind));
  LLVMAttributeRef at = LLVMGetCallSiteEnumAttribute(r->call, 1, kind);
  LLVMTypeRef room = at ? LLVMGetTypeAttributeValue(at) : NULL;
  int dup = !r->const_return && ad_type_default_activity(ty) != AD_ARG_CONST;
  unsigned count = (dup ? r->width : 0) + (r->primal_return ? 1 : 0);
  unsigned long long each = LLVMABISizeOfType(r->mc->td, ty);
  unsigned long long have = room ? LLVMABISizeOfType(r->mc->td, room) : 0;
  if (!room || have < count * each) {
    char *t = type_text(ty);
    int rc = ad_fail(r->mc, r->call,
                     "%s of %s: the request's result (%llu "
                     "bytes) cannot hold %u results of type %s (%llu bytes "
                     "each: %s%u tangent%s)",
                     r->who, ad_value_name(r->fn), have, count, t ? t : "?", each,
                     r->primal_return ? "the primal and " : "",
                     dup ? r->width : 0, dup && r->width == 1 ? "" : "s");
    free(t);
    return rc;
  }
  LLVMValueRef primal = r->primal_return ? r->sret
                                         : entry_alloca(r, ty, "fwddiff.primal");
  args[(*k)++] = primal;
  act[0] = (unsigned char)(dup ? AD_ARG_DUP : AD_ARG_CONST);
  if (!dup)
    return 0;
  LLVMTypeRef i64 = LLVMInt64TypeInContext(r->mc->llctx);
  LLVMValueRef lanes[AD_MAX_WIDTH];
  for (unsigned w = 0; w < r->width; w++) {
    LLVMValueRef index = LLVMConstInt(i64, w + (r->primal_return ? 1 : 0), 0);
    lanes[w] = LLVMBuildGEP2(b, ty, r->sret, &index, 1, "fwddiff.shadow");
  }
  args[(*k)++] = ad_pack_lanes(b, LLVMTypeOf(primal), r->width, lanes);
  return 0;
}

/* {primal, adjoint of each enzyme_out argument...}: a reverse request's
 * result with enzyme_primal_return, as Enzyme returns it (its C++ header
 * reads the primal first). */
static LLVMValueRef with_primal_first(ad_module_ctx *mc, LLVMBuilderRef b,
                                      LLVMValueRef primal, LLVMValueRef outs,
                                      unsigned nouts) {
  LLVMTypeRef types[1 + 64];
  if (nouts > 64)
    return NULL;
  types[0] = LLVMTypeOf(primal);
  for (unsigned i = 0; i < nouts; i++)
    types[1 + i] = LLVMStructGetTypeAtIndex(LLVMTypeOf(outs), i);
  LLVMValueRef agg =
      LLVMGetPoison(LLVMStructTypeInContext(mc->llctx, types, 1 + nouts, 0));
  agg = LLVMBuildInsertValue(b, agg, primal, 0, "");
  for (unsigned i = 0; i < nouts; i++)
    agg = LLVMBuildInsertValue(b, agg, LLVMBuildExtractValue(b, outs, i, ""),
                               1 + i, "");
  return agg;
}


int ad_rewrite_request(ad_module_ctx *mc, LLVMValueRef call) {
  if (LLVMIsAInvokeInst(call)) /* C++ exceptions (fwd/exceptions.c) */
    return ad_rewrite_through_invoke(mc, call, ad_rewrite_request);
  LLVMValueRef callee = ad_called_function(call);
  if (callee && ad_request_kind_of(callee) == AD_REQUEST_REVERSE)
    return rewrite_reverse(mc, call, REV_COMBINED);
  if (callee && ad_request_kind_of(callee) == AD_REQUEST_SPLIT)
    return rewrite_reverse(mc, call, split_mode_of(callee));
  int error = callee && ad_request_kind_of(callee) == AD_REQUEST_ERROR;
  const char *who = error ? "__enzyme_error_estimate" : "__enzyme_fwddiff";
  request r;
  if (request_begin(&r, mc, call, who) != 0)
    return -1;
  if (error && r.width != 1)
    return ad_fail(mc, call, "%s: enzyme_width %u (error estimation has one "
                   "bound per value)", who, r.width);
  unsigned fi = r.first - 1;
  if (!LLVMIsAFunction(r.fn)) {
    char *t = ad_value_text(LLVMGetOperand(call, fi));
    int rc = ad_fail(mc, call,
                     "the first argument of %s must be a "
                     "function, not `%s`",
                     who, t ? t : "?");
    free(t);
    return rc;
  }
  r.fn = through_custom_rule(mc, r.fn);
  if (LLVMCountBasicBlocks(r.fn) == 0)
    return ad_fail(mc, call,
                   "%s of %s: the function has no body in this "
                   "module",
                   who, ad_value_name(r.fn));
  if (scan_global_markers(&r, 0) != 0)
    return -1;

  LLVMTypeRef ft = LLVMGlobalGetValueType(r.fn);
  unsigned np = LLVMCountParamTypes(ft);
  LLVMTypeRef *pt = tj_malloc((np ? np : 1) * sizeof *pt);
  unsigned char *act = tj_malloc(np ? np : 1);
  LLVMValueRef *args = tj_malloc((np * 2 + 1) * sizeof *args);
  LLVMBuilderRef b = LLVMCreateBuilderInContext(mc->llctx);
  int rc = 0;
  if (!pt || !act || !args) {
    rc = ad_fail_code(mc, TANJIT_ERR_NO_MEMORY, call, "out of memory");
    goto out;
  }
  LLVMGetParamTypes(ft, pt);
  LLVMPositionBuilderBefore(b, call);
  if (LLVMInstructionGetDebugLoc(call))
    LLVMSetCurrentDebugLocation2(b, LLVMInstructionGetDebugLoc(call));

  unsigned args_end, shadow_at;
  find_interleave(&r, &args_end, &shadow_at);
  unsigned i = r.first, k = 0, p0 = 0;
  if (r.sret && np > 0 && has_sret_param(r.fn)) {
    rc = result_through_sret(&r, b, args, act, &k);
    p0 = 1;
  }
  for (unsigned p = p0; p < np && rc == 0; p++) {
    ad_marker m = next_param_marker(call, &i, args_end, 0);
    if (m == AD_MARK_UNKNOWN || is_split_marker(m)) {
      char name[64];
      rc = ad_fail(mc, call, "%s of %s: unknown marker %s at "
                             "argument %u (tanjit knows enzyme_dup, "
                             "enzyme_const, enzyme_dupnoneed, enzyme_width, "
                             "enzyme_primal_return, enzyme_dup_return, "
                             "enzyme_const_return, enzyme_noret and "
                             "enzyme_interleave)",
                   who, ad_value_name(r.fn),
                   marker_text(LLVMGetOperand(call, i), name, sizeof name), i);
      break;
    }
    if (m != AD_MARK_NONE && i >= args_end) {
      rc = ad_fail(mc, call,
                   "%s of %s: a marker with no value after "
                   "it (parameter %u)",
                   who, ad_value_name(r.fn), p + 1);
      break;
    }
    if (i >= args_end) {
      rc = ad_fail(mc, call,
                   "%s of %s: too few arguments (%s takes %u, "
                   "value for parameter %u is missing)",
                   who, ad_value_name(r.fn), ad_value_name(r.fn), np, p + 1);
      break;
    }
    if (m == AD_MARK_OUT) {
      rc = ad_fail(mc, call,
                   "%s of %s: enzyme_out (parameter %u) is a "
                   "reverse-mode marker (__enzyme_autodiff)",
                   who, ad_value_name(r.fn), p + 1);
      break;
    }
    ad_arg_activity a = m == AD_MARK_CONST       ? AD_ARG_CONST
                        : m == AD_MARK_DUP       ? AD_ARG_DUP
                        : m == AD_MARK_DUPNONEED ? AD_ARG_DUPNONEED
                                              : ad_type_default_activity(pt[p]);
    LLVMValueRef v = coerce_or_fail(&r, b, pt[p], i, "argument for", p, &rc);
    if (!v)
      break;
    i++;
    args[k++] = v;
    act[p] = (unsigned char)a;
    if (a == AD_ARG_CONST)
      continue;
    LLVMValueRef lanes[AD_MAX_WIDTH];
    unsigned *at = shadow_at ? &shadow_at : &i;
    for (unsigned w = 0; w < r.width; w++) {
      if (*at < r.nargs && marker_of(LLVMGetOperand(call, *at)) != AD_MARK_NONE) {
        rc = ad_fail(mc, call,
                     "%s of %s: parameter %u is duplicated but "
                     "its shadow %u is a marker",
                     who, ad_value_name(r.fn), p + 1, w + 1);
        break;
      }
      if (*at >= r.nargs || (!shadow_at && *at >= args_end)) {
        rc = ad_fail(mc, call,
                     "%s of %s: parameter %u is duplicated but "
                     "shadow %u of %u is missing",
                     who, ad_value_name(r.fn), p + 1, w + 1, r.width);
        break;
      }
      LLVMValueRef s = coerce_or_fail(&r, b, pt[p], *at, "shadow for", p, &rc);
      if (!s || (rc = fail_null_shadow(&r, i - 1, *at, p, w, r.width)) != 0)
        break;
      lanes[w] = s;
      (*at)++;
    }
    if (rc)
      break;
    /* the request's N shadows, as the derivative holds its lanes */
    args[k++] = ad_pack_lanes(b, pt[p], r.width, lanes);
  }
  if (rc == 0 && wants_runtime_activity(call, r.first, r.nargs))
    for (unsigned p = 0; p < np; p++)
      if (act[p] == AD_ARG_DUP)
        act[p] = AD_ARG_DUP_RUNTIME;
  /* trailing request-wide markers are fine; anything else is extra (with
   * enzyme_interleave: after the arguments, then after the shadows) */
  while (rc == 0 && i < r.nargs) {
    if (skip_request_marker(call, &i, 0))
      continue;
    if (i == args_end && shadow_at)
      i = shadow_at;
    else
      rc = ad_fail(mc, call,
                   "%s of %s: too many arguments (%s takes %u "
                   "parameter%s; argument %u is extra)",
                   who, ad_value_name(r.fn), ad_value_name(r.fn), np,
                   np == 1 ? "" : "s", i + 1 - fi);
  }
  if (rc)
    goto out;

  LLVMTypeRef rt = LLVMGetReturnType(ft);
  ad_signature sig = {r.fn, np, act, r.width, AD_RET_TANGENT,
                      (unsigned char)error, 1};
  if (LLVMGetTypeKind(rt) == LLVMVoidTypeKind)
    sig.ret = AD_RET_VOID;
  else if (!ad_type_can_carry(rt) || r.const_return)
    sig.ret = r.primal_return ? AD_RET_PRIMAL : AD_RET_VOID;
  else if (r.primal_return)
    sig.ret = AD_RET_BOTH;
  if (sig.ret == AD_RET_VOID && LLVMGetTypeKind(rt) != LLVMVoidTypeKind &&
      LLVMGetFirstUse(call) &&
      LLVMGetTypeKind(LLVMTypeOf(call)) != LLVMVoidTypeKind) {
    char *t = type_text(rt);
    if (r.const_return)
      rc = ad_fail(mc, call,
                   "%s of %s: enzyme_const_return without "
                   "enzyme_primal_return returns nothing, but the request's "
                   "result is used",
                   who, ad_value_name(r.fn));
    else
      rc = ad_fail(mc, call,
                   "%s of %s: its result type %s has no "
                   "derivative, but the request's result is used",
                   who, ad_value_name(r.fn), t ? t : "?");
    free(t);
    goto out;
  }
  LLVMValueRef d = ad_get_derivative(mc, &sig, call);
  if (d && ad_build_derivatives(mc, 0) != 0)
    d = NULL;
  if (!d) {
    rc = -1;
    goto out;
  }
  LLVMPositionBuilderBefore(b, call);
  ad_emit_shadow_reset(mc, b);
  LLVMValueRef res = LLVMBuildCall2(b, LLVMGlobalGetValueType(d), d, args, k,
                                    sig.ret == AD_RET_VOID ? "" : "fwddiff");
  ad_copy_abi_attrs(&sig, res);
  res = tangents_as_arrays(b, res, &sig);
  LLVMTypeRef want = LLVMTypeOf(call);
  if (r.sret && sig.ret != AD_RET_VOID) {
    /* into the caller's C result, member by member where its layout is
     * known (the sret attribute's type) */
    LLVMAttributeRef a = LLVMGetCallSiteEnumAttribute(
        call, 1, LLVMGetEnumAttributeKindForName("sret", 4));
    LLVMTypeRef layout = a ? LLVMGetTypeAttributeValue(a) : NULL;
    if (!layout || !same_scalars(&r, LLVMTypeOf(res), layout) ||
        store_as_layout(&r, b, res, layout, r.sret) != 0)
      LLVMBuildStore(b, res, r.sret);
  } else if (LLVMGetTypeKind(want) != LLVMVoidTypeKind) {
    if (sig.ret == AD_RET_VOID) {
      LLVMReplaceAllUsesWith(call, LLVMGetPoison(want));
    } else {
      LLVMValueRef v = coerce_result(&r, b, res, want);
      if (!v) {
        rc = -1;
        goto out;
      }
      LLVMReplaceAllUsesWith(call, v);
    }
  }
  LLVMInstructionEraseFromParent(call);
out:
  LLVMDisposeBuilder(b);
  free(pt);
  free(act);
  free(args);
  return rc;
}

/*
 * Reverse requests, decoded as Enzyme decodes them.
 *
 * - `__enzyme_autodiff(fn, args...)`: the gradient.  Markers enzyme_out
 *   (an active scalar: its adjoint is returned), enzyme_dup /
 *   enzyme_dupnoneed (a pointer and its shadow, into which gradients are
 *   accumulated), enzyme_const; unmarked floats (and vectors and
 *   aggregates of them) are enzyme_out, unmarked pointers enzyme_dup,
 *   integers constant.  A float result is seeded with 1.  The request
 *   returns the adjoints of the enzyme_out arguments in order: one value,
 *   or all of them laid out as the declared result (a struct of doubles,
 *   returned in registers or through an sret pointer).
 * - Split mode (rev/split.c): `__enzyme_augmentfwd(fn, args...)` takes the
 *   same arguments and returns, as Enzyme does, the tape, or {tape,
 *   primal result[, its shadow for a pointer]} laid out as declared
 *   (enzyme_noret drops the result; with enzyme_tape p the tape goes to
 *   *p and is not returned, enzyme_allocated N keeping it in p's N bytes).
 *   `__enzyme_reverse(fn, args..., [d result], tape)` takes them again,
 *   then the adjoint of an active float result (no 1.0 seed here), then
 *   the tape (or enzyme_tape p, enzyme_allocated N as the augmentfwd had
 *   them), and returns what __enzyme_autodiff returns.
 *   `__enzyme_augmentsize(fn, args...)` is the N enzyme_allocated needs;
 *   `__enzyme_virtualreverse(fn)` the {augmented, reverse} table a
 *   function pointer's shadow holds.
 */
static const char *const rev_who[] = {"__enzyme_autodiff", "__enzyme_augmentfwd",
                                      "__enzyme_reverse", "__enzyme_augmentsize",
                                      "__enzyme_virtualreverse"};

/* enzyme_tape p, enzyme_allocated N and enzyme_noret of a split request. */
typedef struct split_markers {
  LLVMValueRef tape_at; /* p, as a pointer; NULL without enzyme_tape */
  int allocated;
  long long allocated_bytes;
  int noret;
} split_markers;

static int scan_split_markers(request *r, LLVMBuilderRef b, rev_mode mode,
                              split_markers *sm) {
  const char *who = rev_who[mode];
  memset(sm, 0, sizeof *sm);
  for (unsigned i = r->first; i < r->nargs; i++) {
    LLVMValueRef a = LLVMGetOperand(r->call, i);
    ad_marker m = marker_of(a);
    if (m == AD_MARK_NORET)
      sm->noret = 1;
    if (m == AD_MARK_WIDTH) {
      i++;
      continue;
    }
    if (!is_split_marker(m))
      continue;
    char name[64];
    marker_text(a, name, sizeof name);
    if (mode == REV_COMBINED)
      return ad_fail(r->mc, r->call,
                     "%s of %s: %s is a split-mode marker "
                     "(__enzyme_augmentfwd / __enzyme_reverse)",
                     who, ad_value_name(r->fn), name);
    if (i + 1 >= r->nargs)
      return ad_fail(r->mc, r->call, "%s of %s: %s with no value after it",
                     who, ad_value_name(r->fn), name);
    LLVMValueRef v = LLVMGetOperand(r->call, ++i);
    if (m == AD_MARK_ALLOCATED) {
      char text[64];
      if (!LLVMIsAConstantInt(v) ||
          !constant_int_value(v, &sm->allocated_bytes, text, sizeof text))
        return ad_fail(r->mc, r->call,
                       "%s of %s: enzyme_allocated must be followed by a "
                       "constant integer (the tape buffer's size in bytes)",
                       who, ad_value_name(r->fn));
      sm->allocated = 1;
      continue;
    }
    sm->tape_at = coerce_arg(b, LLVMPointerTypeInContext(r->mc->llctx, 0), v);
    if (!sm->tape_at) {
      char *t = type_text(LLVMTypeOf(v));
      int rc = ad_fail(r->mc, r->call,
                       "%s of %s: enzyme_tape must be followed by a pointer "
                       "(where the tape goes), not a value of type %s",
                       who, ad_value_name(r->fn), t ? t : "?");
      free(t);
      return rc;
    }
  }
  if (sm->allocated && !sm->tape_at)
    return ad_fail(r->mc, r->call,
                   "%s of %s: enzyme_allocated %lld without enzyme_tape: "
                   "pass the buffer too (enzyme_tape, its address)",
                   who, ad_value_name(r->fn), sm->allocated_bytes);
  if (sm->allocated && sm->allocated_bytes < AD_REV_SPLIT_TAPE_BYTES)
    return ad_fail(r->mc, r->call,
                   "%s of %s: the tape buffer is too small: need %d bytes, "
                   "have %lld (enzyme_allocated; __enzyme_augmentsize gives "
                   "the size)",
                   who, ad_value_name(r->fn), AD_REV_SPLIT_TAPE_BYTES,
                   sm->allocated_bytes);
  return 0;
}

/* Replaces the request's result by v (NULL: nothing), stored into the
 * caller's sret memory or converted to the declared type: the same type,
 * the same scalars laid out anew, or (`widen`: any declared type at least
 * as large, as Enzyme's augmented results) the same bytes.  `what` names
 * v in the error, `hint` ends it.  0 or -1. */
static int replace_result(request *r, LLVMBuilderRef b, LLVMValueRef v,
                          int widen, const char *who, const char *what,
                          const char *hint) {
  ad_module_ctx *mc = r->mc;
  LLVMTypeRef want = LLVMTypeOf(r->call);
  if (r->sret && v) {
    LLVMAttributeRef at = LLVMGetCallSiteEnumAttribute(
        r->call, 1, LLVMGetEnumAttributeKindForName("sret", 4));
    LLVMTypeRef layout = at ? LLVMGetTypeAttributeValue(at) : NULL;
    if (!layout || !same_scalars(r, LLVMTypeOf(v), layout) ||
        store_as_layout(r, b, v, layout, r->sret) != 0)
      LLVMBuildStore(b, v, r->sret);
    return 0;
  }
  if (LLVMGetTypeKind(want) == LLVMVoidTypeKind)
    return 0;
  LLVMValueRef out_v = NULL;
  unsigned long long hs = v ? LLVMABISizeOfType(mc->td, LLVMTypeOf(v)) : 0;
  unsigned long long ws = LLVMABISizeOfType(mc->td, want);
  if (!v) {
    out_v = LLVMConstNull(want);
  } else if (LLVMTypeOf(v) == want) {
    out_v = v;
  } else if (ad_type_is_float_scalar(LLVMTypeOf(v)) &&
             ad_type_is_float_scalar(want)) {
    out_v = LLVMBuildFPCast(b, v, want, "");
  } else if (same_scalars(r, LLVMTypeOf(v), want)) {
    LLVMValueRef slot = entry_alloca(r, want, "autodiff.result");
    if (store_as_layout(r, b, v, want, slot) == 0)
      out_v = LLVMBuildLoad2(b, want, slot, "");
  } else if (hs == ws || (widen && ws >= hs &&
                          LLVMStoreSizeOfType(mc->td, LLVMTypeOf(v)) <= ws)) {
    /* the same bytes (a struct of two floats returned as <2 x float>) */
    LLVMValueRef slot =
        entry_alloca(r, hs >= ws ? LLVMTypeOf(v) : want, "autodiff.result");
    LLVMBuildStore(b, v, slot);
    out_v = LLVMBuildLoad2(b, want, slot, "");
  }
  if (!out_v) {
    char *a = type_text(LLVMTypeOf(v)), *c = type_text(want);
    int rc = ad_fail(mc, r->call,
                     "%s of %s returns %s as %s, but the call is declared to "
                     "return %s%s",
                     who, ad_value_name(r->fn), what, a ? a : "?", c ? c : "?",
                     hint);
    free(a);
    free(c);
    return rc;
  }
  LLVMReplaceAllUsesWith(r->call, out_v);
  return 0;
}

/* __enzyme_virtualreverse(fn): the table for fn (rev/virtual.c), or for a
 * constant pointer into a vtable the same pointer into its shadow copy. */
static int rewrite_virtual(request *r, LLVMBuilderRef b) {
  ad_module_ctx *mc = r->mc;
  const char *who = rev_who[REV_VIRTUAL];
  if (r->nargs != r->first) {
    return ad_fail(mc, r->call,
                   "%s of %s takes only the function (%u arguments given)",
                   who, ad_value_name(r->fn), r->nargs);
  }
  int fn = LLVMIsAFunction(r->fn) != NULL;
  LLVMValueRef table = fn ? ad_rev_virtual_of_function(mc, r->fn, r->call)
                          : ad_rev_virtual_of_vtable(mc, r->fn, r->call);
  if (!table)
    return -1;
  LLVMPositionBuilderBefore(b, r->call);
  int rc = replace_result(r, b, table, 0, who,
                          fn ? "the address of its {augmented, reverse} table"
                             : "the address of the vtable's shadow",
                          "");
  if (rc == 0)
    LLVMInstructionEraseFromParent(r->call);
  return rc;
}

/* __enzyme_augmentsize's answer: the bytes of the tape header kept in
 * the caller's buffer, the same for every function and markers.  0 or -1. */
static int replace_with_tape_size(request *r) {
  LLVMTypeRef want = LLVMTypeOf(r->call);
  if (LLVMGetTypeKind(want) == LLVMIntegerTypeKind)
    LLVMReplaceAllUsesWith(r->call, LLVMConstInt(want, AD_REV_SPLIT_TAPE_BYTES, 0));
  else if (LLVMGetTypeKind(want) != LLVMVoidTypeKind)
    return ad_fail(r->mc, r->call, "%s of %s must be declared to return an integer",
                   rev_who[REV_SIZE], ad_value_name(r->fn));
  LLVMInstructionEraseFromParent(r->call);
  return 0;
}

/* Whether an __enzyme_augmentsize call gives its activity markers alone,
 * no values after them, as Enzyme's own split-mode tests write it
 * (__enzyme_augmentsize(f, enzyme_dup, enzyme_const)): 1, or 0 where it
 * passes values as __enzyme_augmentfwd would (read as such), or -1 with
 * more markers than f has parameters. */
static int gives_markers_only(request *r, unsigned np) {
  unsigned markers = 0;
  for (unsigned i = r->first; i < r->nargs;) {
    if (skip_request_marker(r->call, &i, 1))
      continue;
    ad_marker m = marker_of(LLVMGetOperand(r->call, i));
    if (m != AD_MARK_DUP && m != AD_MARK_DUPNONEED && m != AD_MARK_CONST &&
        m != AD_MARK_OUT)
      return 0; /* a value, or a marker the full reading reports */
    markers++;
    i++;
  }
  if (markers > np)
    return ad_fail(r->mc, r->call,
                   "%s of %s: %u activity markers, but %s takes %u parameter%s",
                   rev_who[REV_SIZE], ad_value_name(r->fn), markers,
                   ad_value_name(r->fn), np, np == 1 ? "" : "s");
  return 1;
}

static int rewrite_reverse(ad_module_ctx *mc, LLVMValueRef call, rev_mode mode) {
  const char *who = rev_who[mode];
  if (LLVMIsAInvokeInst(call))
    return ad_fail(mc, call,
                   "%s reached through invoke (C++ exception handling) is not "
                   "supported: call it where no exception can unwind",
                   who);
  request r;
  if (request_begin(&r, mc, call, who) != 0)
    return -1;
  unsigned fi = r.first - 1;
  if (mode == REV_VIRTUAL) {
    LLVMBuilderRef b = LLVMCreateBuilderInContext(mc->llctx);
    if (LLVMInstructionGetDebugLoc(call))
      LLVMSetCurrentDebugLocation2(b, LLVMInstructionGetDebugLoc(call));
    int rc = rewrite_virtual(&r, b);
    LLVMDisposeBuilder(b);
    return rc;
  }
  if (!LLVMIsAFunction(r.fn)) {
    char *t = ad_value_text(LLVMGetOperand(call, fi));
    int rc = ad_fail(mc, call,
                     "the first argument of %s must be a function, not `%s`",
                     who, t ? t : "?");
    free(t);
    return rc;
  }
  if (LLVMCountBasicBlocks(r.fn) == 0)
    return ad_fail(mc, call,
                   "%s of %s: the function has no body in this module", who,
                   ad_value_name(r.fn));
  LLVMBuilderRef b = LLVMCreateBuilderInContext(mc->llctx);
  LLVMPositionBuilderBefore(b, call);
  if (LLVMInstructionGetDebugLoc(call))
    LLVMSetCurrentDebugLocation2(b, LLVMInstructionGetDebugLoc(call));
  split_markers sm;
  if (scan_global_markers(&r, 1) != 0 || scan_split_markers(&r, b, mode, &sm) != 0) {
    LLVMDisposeBuilder(b);
    return -1;
  }
  if (r.primal_return && (mode != REV_COMBINED || r.width > 1)) {
    LLVMDisposeBuilder(b);
    return ad_fail_code(mc, TANJIT_ERR_UNSUPPORTED, call,
                        "%s of %s: enzyme_primal_return is not supported %s",
                        who, ad_value_name(r.fn),
                        mode == REV_AUGMENT
                            ? "in split mode (__enzyme_augmentfwd returns the "
                              "primal result already)"
                        : mode != REV_COMBINED ? "in split mode"
                                               : "with enzyme_width");
  }
  /* enzyme_primal_return (enzyme::ReverseWithPrimal in Enzyme's C++
   * header): the result is {primal, adjoints...} */
  if (r.primal_return &&
      LLVMGetTypeKind(LLVMGetReturnType(LLVMGlobalGetValueType(r.fn))) ==
          LLVMVoidTypeKind) {
    LLVMDisposeBuilder(b);
    return ad_fail(mc, call,
                   "%s of %s: enzyme_primal_return, but the function returns "
                   "nothing",
                   who, ad_value_name(r.fn));
  }

  LLVMTypeRef ft = LLVMGlobalGetValueType(r.fn);
  unsigned np = LLVMCountParamTypes(ft);
  if (mode == REV_SIZE) {
    int markers_only = gives_markers_only(&r, np);
    if (markers_only) {
      LLVMDisposeBuilder(b);
      return markers_only < 0 ? -1 : replace_with_tape_size(&r);
    }
  }
  LLVMTypeRef *pt = tj_malloc((np ? np : 1) * sizeof *pt);
  unsigned char *act = tj_malloc(np ? np : 1);
  LLVMValueRef *args = tj_malloc((np * 2 + 1) * sizeof *args);
  /* enzyme_width N: where each DUP parameter's shadow sits in args, and
   * its N shadows, lane by lane */
  unsigned *shadow_pos = tj_malloc((np ? np : 1) * sizeof *shadow_pos);
  LLVMValueRef *lane_shadows =
      tj_malloc((np ? np : 1) * r.width * sizeof *lane_shadows);
  unsigned ndup = 0;
  int rc = 0;
  unsigned nouts = 0;
  if (!pt || !act || !args || !shadow_pos || !lane_shadows) {
    rc = ad_fail_code(mc, TANJIT_ERR_NO_MEMORY, call, "out of memory");
    goto out;
  }
  LLVMGetParamTypes(ft, pt);
  unsigned byval = LLVMGetEnumAttributeKindForName("byval", 5);
  unsigned args_end, shadow_at;
  find_interleave(&r, &args_end, &shadow_at);
  unsigned i = r.first, k = 0;
  for (unsigned p = 0; p < np && rc == 0; p++) {
    ad_marker m = next_param_marker(call, &i, args_end, 1);
    if (m == AD_MARK_UNKNOWN) {
      char name[64];
      rc = ad_fail(mc, call,
                   "%s of %s: unknown marker %s at argument %u (reverse "
                   "mode knows enzyme_out, enzyme_dup, enzyme_dupnoneed "
                   "and enzyme_const%s)",
                   who, ad_value_name(r.fn),
                   marker_text(LLVMGetOperand(call, i), name, sizeof name), i,
                   mode == REV_COMBINED ? ""
                                        : ", and in split mode enzyme_tape "
                                          "and enzyme_allocated");
      break;
    }
    if (i >= args_end) {
      rc = ad_fail(mc, call,
                   "%s of %s: too few arguments (%s takes %u, value for "
                   "parameter %u is missing)",
                   who, ad_value_name(r.fn), ad_value_name(r.fn), np, p + 1);
      break;
    }
    int has_float = 0, has_other = 0;
    ad_rev_leaves(pt[p], &has_float, &has_other);
    ad_rev_activity a;
    if (m == AD_MARK_CONST)
      a = AD_REV_CONST;
    else if (m == AD_MARK_DUP || m == AD_MARK_DUPNONEED)
      a = AD_REV_DUP;
    else if (m == AD_MARK_OUT)
      a = AD_REV_OUT;
    else
      a = ad_type_default_activity(pt[p]) == AD_ARG_CONST ? AD_REV_CONST
          : has_float && !has_other                       ? AD_REV_OUT
                                                          : AD_REV_DUP;
    if (a == AD_REV_OUT && (has_other || !has_float)) {
      rc = ad_fail(mc, call,
                   "%s of %s: parameter %u is enzyme_out but its type holds "
                   "%s (enzyme_out takes floats passed by value; pass a "
                   "pointer with enzyme_dup)",
                   who, ad_value_name(r.fn), p + 1,
                   has_other ? "pointers or integers" : "no float");
      break;
    }
    if (a == AD_REV_DUP && !duplicable_in_reverse(mc, pt[p])) {
      rc = ad_fail_code(mc, TANJIT_ERR_UNSUPPORTED, call,
                        "%s of %s: parameter %u is duplicated but is not a "
                        "pointer (reverse mode duplicates pointers only; a "
                        "float passed by value is enzyme_out)",
                        who, ad_value_name(r.fn), p + 1);
      break;
    }
    if (a == AD_REV_DUP && LLVMGetEnumAttributeAtIndex(r.fn, p + 1, byval)) {
      rc = ad_fail_code(mc, TANJIT_ERR_UNSUPPORTED, call,
                        "%s of %s: parameter %u is a struct passed by value "
                        "(byval), which reverse mode does not support",
                        who, ad_value_name(r.fn), p + 1);
      break;
    }
    LLVMValueRef v = coerce_or_fail(&r, b, pt[p], i, "argument for", p, &rc);
    if (!v)
      break;
    i++;
    args[k++] = v;
    act[p] = (unsigned char)a;
    if (a == AD_REV_OUT)
      nouts++;
    if (a != AD_REV_DUP)
      continue;
    unsigned *at = shadow_at ? &shadow_at : &i;
    for (unsigned w = 0; w < r.width && rc == 0; w++) {
      if (*at >= (shadow_at ? r.nargs : args_end) ||
          marker_of(LLVMGetOperand(call, *at)) != AD_MARK_NONE) {
        if (r.width == 1)
          rc = ad_fail(mc, call,
                       "%s of %s: parameter %u is duplicated but its shadow "
                       "is missing",
                       who, ad_value_name(r.fn), p + 1);
        else
          rc = ad_fail(mc, call,
                       "%s of %s: parameter %u is duplicated but shadow %u "
                       "of %u is missing",
                       who, ad_value_name(r.fn), p + 1, w + 1, r.width);
        break;
      }
      LLVMValueRef s = coerce_or_fail(&r, b, pt[p], *at, "shadow for", p, &rc);
      if (!s || (rc = fail_null_shadow(&r, i - 1, *at, p, w, r.width)) != 0)
        break;
      (*at)++;
      lane_shadows[ndup * r.width + w] = s;
    }
    if (rc)
      break;
    shadow_pos[ndup] = k;
    args[k++] = lane_shadows[ndup * r.width];
    ndup++;
  }
  if (rc == 0 && wants_runtime_activity(call, r.first, r.nargs))
    for (unsigned p = 0; p < np; p++)
      if (act[p] == AD_REV_DUP)
        act[p] = AD_REV_DUP_RUNTIME;
  /* after the arguments: request-wide markers, and for __enzyme_reverse
   * the result's adjoint and the tape */
  unsigned extra[2], nextra = 0;
  while (rc == 0 && i < r.nargs) {
    if (skip_request_marker(call, &i, 1))
      continue;
    if (i == args_end && shadow_at)
      i = shadow_at;
    else if (mode == REV_REVERSE &&
             marker_of(LLVMGetOperand(call, i)) == AD_MARK_NONE && nextra < 2)
      extra[nextra++] = i++;
    else
      rc = ad_fail(mc, call,
                   "%s of %s: too many arguments (%s takes %u parameter%s; "
                   "argument %u is extra)",
                   who, ad_value_name(r.fn), ad_value_name(r.fn), np,
                   np == 1 ? "" : "s", i + 1 - fi);
  }
  if (rc)
    goto out;
  LLVMTypeRef rt = LLVMGetReturnType(ft);
  int rf = 0, ro = 0;
  ad_rev_leaves(rt, &rf, &ro);
  if (rf && (ro || !ad_type_is_float_scalar(rt)) && !r.const_return) {
    char *t = type_text(rt);
    rc = ad_fail_code(mc, TANJIT_ERR_UNSUPPORTED, call,
                      "%s of %s: its result has type %s; reverse mode seeds a "
                      "float result only (return a scalar, or write the "
                      "result through a pointer and pass its shadow)",
                      who, ad_value_name(r.fn), t ? t : "?");
    free(t);
    goto out;
  }
  /* split mode hands a pointer result's shadow to the caller, as Enzyme's
   * augmented pass does; the reverse must name the same pair */
  if (r.width > 1 && LLVMGetTypeKind(rt) == LLVMPointerTypeKind) {
    rc = ad_fail_code(mc, TANJIT_ERR_UNSUPPORTED, call,
                      "%s of %s: enzyme_width %u of a function returning a "
                      "pointer is not supported (each lane would run it "
                      "again)",
                      who, ad_value_name(r.fn), r.width);
    goto out;
  }
  int split = mode != REV_COMBINED;
  /* a whole gradient (or one lane of it) runs rev right after aug; split
   * mode's caller may change memory in between */
  ad_rev_sig sig = {r.fn, np, act, (unsigned char)(rf && !r.const_return),
                    (unsigned char)(split && !r.const_return &&
                                    LLVMGetTypeKind(rt) == LLVMPointerTypeKind),
                    (unsigned char)!split, 0, 0};
  if (r.width > 1 && split && sig.ret_adjoint) {
    rc = ad_fail_code(mc, TANJIT_ERR_UNSUPPORTED, call,
                      "%s of %s: enzyme_width %u in split mode of a function "
                      "with a float result (one result adjoint per lane) is "
                      "not supported; write the result through a pointer and "
                      "pass its shadows",
                      who, ad_value_name(r.fn), r.width);
    goto out;
  }
  LLVMValueRef seed = NULL, tape_value = NULL;
  if (mode == REV_REVERSE) {
    unsigned want = (sig.ret_adjoint ? 1u : 0u) + (sm.tape_at ? 0u : 1u);
    /* A float result's adjoint left out is 1.0, as Enzyme seeds it
     * (__enzyme_reverse(f, enzyme_tape, t, x, dx) or (f, x, dx, t)): what
     * follows the arguments is then the tape alone, never a float. */
    int seed_one =
        sig.ret_adjoint && nextra + 1 == want &&
        (nextra == 0 || !ad_type_is_float_scalar(
                            LLVMTypeOf(LLVMGetOperand(call, extra[0]))));
    if (seed_one) {
      if (nextra)
        extra[1] = extra[0];
      nextra = want;
      seed = ad_const_fp(rt, 1.0);
    }
    char *t = type_text(rt);
    if (nextra < want)
      rc = ad_fail(mc, call,
                   "%s of %s: %s missing after the arguments (it takes %s%s%s)",
                   who, ad_value_name(r.fn),
                   want - nextra == 2 ? "the result's adjoint and the tape are"
                   : sig.ret_adjoint && nextra == 0 ? "the result's adjoint is"
                   : sig.ret_adjoint && !sm.tape_at
                       ? "the result's adjoint or the tape is"
                       : "the tape is",
                   sig.ret_adjoint ? "the adjoint of the " : "",
                   sig.ret_adjoint ? (t ? t : "?") : "",
                   sig.ret_adjoint
                       ? (sm.tape_at ? " result" : " result, then the tape")
                       : "the tape __enzyme_augmentfwd returned");
    else if (nextra > want)
      rc = ad_fail(mc, call,
                   "%s of %s: too many arguments (argument %u is extra%s)",
                   who, ad_value_name(r.fn), extra[want] + 1 - fi,
                   sm.tape_at ? "; the tape comes from enzyme_tape" : "");
    free(t);
    if (rc)
      goto out;
    if (sig.ret_adjoint && !seed_one) {
      LLVMValueRef d = LLVMGetOperand(call, extra[0]);
      if (!(seed = coerce_arg(b, rt, d))) {
        char *a = type_text(LLVMTypeOf(d)), *c = type_text(rt);
        rc = ad_fail(mc, call,
                     "%s of %s: the result's adjoint (argument %u) has type "
                     "%s, expected %s",
                     who, ad_value_name(r.fn), extra[0] + 1 - fi, a ? a : "?",
                     c ? c : "?");
        free(a);
        free(c);
        goto out;
      }
    }
    if (!sm.tape_at) {
      unsigned ti = extra[want - 1];
      LLVMValueRef tv = LLVMGetOperand(call, ti);
      LLVMTypeRef tt = LLVMTypeOf(tv);
      if (LLVMGetTypeKind(tt) == LLVMPointerTypeKind ||
          LLVMGetTypeKind(tt) == LLVMIntegerTypeKind)
        tape_value = coerce_arg(b, LLVMPointerTypeInContext(mc->llctx, 0), tv);
      if (!tape_value) {
        char *a = type_text(tt);
        rc = ad_fail(mc, call,
                     "%s of %s: the tape (argument %u) has type %s, expected "
                     "the pointer __enzyme_augmentfwd returned",
                     who, ad_value_name(r.fn), ti + 1 - fi, a ? a : "?");
        free(a);
        goto out;
      }
    }
  }
  if (mode == REV_SIZE) {
    rc = replace_with_tape_size(&r);
    goto out;
  }
  ad_rev_pair pair;
  if (ad_rev_get(mc, &sig, call, &pair) != 0 || ad_rev_build_all(mc) != 0) {
    rc = -1;
    goto out;
  }
  LLVMPositionBuilderBefore(b, call);
  /* the reverse half continues from the state its augmented half left, as
   * a whole gradient's rev does */
  if (mode != REV_REVERSE)
    ad_emit_shadow_reset(mc, b);
  LLVMValueRef holder = LLVMGetBasicBlockParent(LLVMGetInstructionParent(call));
  ad_rev_split_tape tape = {sm.tape_at, sm.allocated, tape_value, 0};
  if (mode == REV_AUGMENT) {
    /* enzyme_width: the one augmented pass every lane's reverse reads */
    int keeps = 0;
    if (r.width > 1 && ad_rev_lanes_share_or_fail(mc, call, r.fn, &pair,
                                                  shadow_pos, ndup, r.width,
                                                  &keeps) != 0) {
      rc = -1;
      goto out;
    }
    tape.lanes = keeps ? r.width : 0;
    LLVMValueRef handle = NULL;
    LLVMValueRef res = ad_rev_split_augment(mc, b, holder, &sig, &pair, args,
                                            k, &tape, &handle);
    if (mc->diag.failed) {
      rc = -1;
      goto out;
    }
    /* Enzyme's augmented result: the tape, the primal, its shadow */
    LLVMValueRef parts[3];
    unsigned nparts = 0;
    if (handle)
      parts[nparts++] = handle;
    if (res && !sm.noret) {
      if (sig.ret_shadow) {
        parts[nparts++] = LLVMBuildExtractValue(b, res, 0, "");
        parts[nparts++] = LLVMBuildExtractValue(b, res, 1, "");
      } else {
        parts[nparts++] = res;
      }
    }
    LLVMValueRef v = nparts ? parts[0] : NULL;
    if (nparts > 1) {
      LLVMTypeRef types[3];
      for (unsigned j = 0; j < nparts; j++)
        types[j] = LLVMTypeOf(parts[j]);
      v = LLVMGetPoison(LLVMStructTypeInContext(mc->llctx, types, nparts, 0));
      for (unsigned j = 0; j < nparts; j++)
        v = LLVMBuildInsertValue(b, v, parts[j], j, "");
    }
    char what[96];
    snprintf(what, sizeof what, "%s%s%s", handle ? "the tape" : "",
             handle && nparts > 1 ? ", then " : "",
             nparts > (handle ? 1u : 0u)
                 ? (sig.ret_shadow ? "the result and its shadow" : "the result")
                 : "");
    if (!v)
      snprintf(what, sizeof what, "nothing");
    rc = replace_result(&r, b, v, 1, who, what,
                        handle && nparts > 1
                            ? " (declare a struct of the tape then the "
                              "result, or drop the result with enzyme_noret)"
                            : "");
    if (rc == 0)
      LLVMInstructionEraseFromParent(call);
    goto out;
  }
  if (r.width > 1) {
    /* the lanes (lanes.c: one aug and a reverse per lane, or a gradient
     * per lane); each OUT adjoint comes back as [N x T], as Enzyme
     * returns it */
    LLVMValueRef *lane_res = tj_malloc(r.width * sizeof *lane_res);
    if (!lane_res) {
      rc = ad_fail_code(mc, TANJIT_ERR_NO_MEMORY, call, "out of memory");
      goto out;
    }
    if (mode == REV_REVERSE)
      ad_rev_split_reverse_lanes(mc, b, holder, call, &sig, &pair, args, k,
                                 shadow_pos, lane_shadows, ndup, r.width,
                                 &tape, lane_res);
    else
      ad_rev_emit_lanes(mc, b, holder, &sig, &pair, args, k, shadow_pos,
                        lane_shadows, ndup, r.width,
                        sig.ret_adjoint ? LLVMConstReal(rt, 1.0) : NULL,
                        lane_res);
    LLVMValueRef v = NULL;
    if (!mc->diag.failed && nouts) {
      LLVMTypeRef st = LLVMTypeOf(lane_res[0]);
      LLVMTypeRef *arrays = tj_malloc(nouts * sizeof *arrays);
      LLVMValueRef *vals = tj_malloc(nouts * sizeof *vals);
      if (!arrays || !vals)
        rc = ad_fail_code(mc, TANJIT_ERR_NO_MEMORY, call, "out of memory");
      for (unsigned o = 0; rc == 0 && o < nouts; o++) {
        arrays[o] = LLVMArrayType2(LLVMStructGetTypeAtIndex(st, o), r.width);
        vals[o] = LLVMGetPoison(arrays[o]);
        for (unsigned w = 0; w < r.width; w++)
          vals[o] = LLVMBuildInsertValue(
              b, vals[o], LLVMBuildExtractValue(b, lane_res[w], o, ""), w, "");
      }
      if (rc == 0 && nouts == 1) {
        v = vals[0];
      } else if (rc == 0) {
        v = LLVMGetPoison(LLVMStructTypeInContext(mc->llctx, arrays, nouts, 0));
        for (unsigned o = 0; o < nouts; o++)
          v = LLVMBuildInsertValue(b, v, vals[o], o, "");
      }
      free(arrays);
      free(vals);
    }
    free(lane_res);
    if (mc->diag.failed || rc) {
      rc = -1;
      goto out;
    }
    char what[128];
    snprintf(what, sizeof what,
             "the adjoints of its %u enzyme_out argument%s, %u lanes each",
             nouts, nouts == 1 ? "" : "s", r.width);
    rc = replace_result(&r, b, v, 0, who, what, "");
    if (rc == 0)
      LLVMInstructionEraseFromParent(call);
    goto out;
  }
  LLVMValueRef primal = NULL;
  LLVMValueRef res =
      mode == REV_REVERSE
          ? ad_rev_split_reverse(mc, b, holder, &sig, &pair, args, k, seed, &tape)
          : ad_rev_emit_gradient_primal(
                mc, b, holder, &pair, args, k,
                sig.ret_adjoint ? LLVMConstReal(rt, 1.0) : NULL,
                r.primal_return ? &primal : NULL);
  if (mc->diag.failed) {
    rc = -1;
    goto out;
  }
  LLVMValueRef v = res && nouts == 1 ? LLVMBuildExtractValue(b, res, 0, "") : res;
  if (primal && !(v = with_primal_first(mc, b, primal, res, nouts))) {
    rc = ad_fail_code(mc, TANJIT_ERR_UNSUPPORTED, call,
                      "%s of %s: enzyme_primal_return with %u enzyme_out "
                      "arguments (at most 64)",
                      who, ad_value_name(r.fn), nouts);
    goto out;
  }
  char what[96];
  snprintf(what, sizeof what, "%sthe adjoints of its %u enzyme_out argument%s",
           primal ? "the primal result, then " : "", nouts,
           nouts == 1 ? "" : "s");
  rc = replace_result(&r, b, v, 0, who, what, "");
  if (rc == 0)
    LLVMInstructionEraseFromParent(call);
out:
  LLVMDisposeBuilder(b);
  free(pt);
  free(act);
  free(args);
  free(shadow_pos);
  free(lane_shadows);
  return rc;
}

/*
 * __enzyme_virtualreverse: the shadow a function pointer, or a whole
 * vtable, takes in Enzyme's split convention.
 *
 *   __enzyme_virtualreverse(f)        f's {augmented, reverse} table
 *                                     (split.c, ad_rev_virtual_table),
 *                                     for Enzyme's default activities
 *   __enzyme_virtualreverse(vtable)   a pointer into a copy of a constant
 *                                     global (C++'s @_ZTV...): the same
 *                                     layout (offset-to-top, RTTI, null and
 *                                     declared slots kept), each defined
 *                                     function in it replaced by its table;
 *                                     the same offset into the copy as the
 *                                     argument has into the original
 *
 * The second is what `*(void **)d_o = __enzyme_virtualreverse(*(void **)d_o)`
 * asks for once clang has folded the object's vtable pointer into a
 * constant (from -O1): d_o's vtable pointer then points at the slot its
 * primal's points at, in the shadow table.  Reverse mode dispatches a
 * virtual call on the primal function pointer (calls.c, aug_indirect), so
 * a shadow vtable is only read as memory; its entries follow Enzyme's
 * meaning so that a caller may run the halves itself.  One copy per
 * vtable, named after it, built on the first request.  A vtable pointer
 * only known at run time (-O0 loads it from the object) is refused, as
 * Enzyme refuses it.
 */
#include <stdlib.h>
#include <string.h>

#include "ad/analysis/activity.h"
#include "ad/core/context.h"
#include "ad/core/diag.h"
#include "ad/ir/ir.h"
#include "ad/rev/rev.h"
#include "common/alloc.h"
#include "common/strbuf.h"

static const char who[] = "__enzyme_virtualreverse";

LLVMValueRef ad_rev_virtual_of_function(ad_module_ctx *mc, LLVMValueRef fn,
                                        LLVMValueRef call) {
  if (LLVMCountBasicBlocks(fn) == 0) {
    ad_fail(mc, call, "%s of %s: the function has no body in this module",
            who, ad_value_name(fn));
    return NULL;
  }
  LLVMTypeRef ft = LLVMGlobalGetValueType(fn);
  unsigned np = LLVMCountParamTypes(ft);
  LLVMTypeRef *pt = tj_malloc((np ? np : 1) * sizeof *pt);
  unsigned char *act = tj_malloc(np ? np : 1);
  LLVMValueRef table = NULL;
  if (!pt || !act) {
    ad_fail_code(mc, TANJIT_ERR_NO_MEMORY, call, "out of memory");
    goto out;
  }
  LLVMGetParamTypes(ft, pt);
  for (unsigned p = 0; p < np; p++) {
    int has_float = 0, has_other = 0;
    ad_rev_leaves(pt[p], &has_float, &has_other);
    act[p] = ad_type_default_activity(pt[p]) == AD_ARG_CONST ? AD_REV_CONST
             : has_float && !has_other                       ? AD_REV_OUT
             : LLVMGetTypeKind(pt[p]) == LLVMPointerTypeKind ? AD_REV_DUP
                                                             : AD_REV_CONST;
  }
  LLVMTypeRef rt = LLVMGetReturnType(ft);
  int rf = 0, ro = 0;
  ad_rev_leaves(rt, &rf, &ro);
  if (rf && (ro || !ad_type_is_float_scalar(rt))) {
    char *s = LLVMPrintTypeToString(rt);
    ad_fail_code(mc, TANJIT_ERR_UNSUPPORTED, call,
                 "%s of %s: its result has type %s; reverse mode seeds a "
                 "float result only",
                 who, ad_value_name(fn), s ? s : "?");
    LLVMDisposeMessage(s);
    goto out;
  }
  /* not back to back: the table's caller runs the halves when it likes */
  ad_rev_sig sig = {fn, np, act, (unsigned char)rf,
                    (unsigned char)(LLVMGetTypeKind(rt) == LLVMPointerTypeKind),
                    0, 0, 0};
  ad_rev_pair pair;
  if (ad_rev_get(mc, &sig, call, &pair) != 0 || ad_rev_build_all(mc) != 0)
    goto out;
  table = ad_rev_virtual_table(mc, &sig, &pair);
out:
  free(pt);
  free(act);
  return table;
}

/* The shadow copy of initializer c: aggregates element by element, a
 * defined function by its table, anything else (null, integers as
 * pointers, RTTI, declared functions such as __cxa_pure_virtual) as it
 * is.  NULL with the error in mc. */
static LLVMValueRef shadow_slots(ad_module_ctx *mc, LLVMValueRef c,
                                 LLVMValueRef call) {
  if (LLVMIsAFunction(c))
    return LLVMCountBasicBlocks(c) ? ad_rev_virtual_of_function(mc, c, call)
                                   : c;
  int is_struct = LLVMIsAConstantStruct(c) != NULL;
  if (!is_struct && !LLVMIsAConstantArray(c))
    return c;
  unsigned n = (unsigned)LLVMGetNumOperands(c);
  LLVMValueRef *elems = tj_malloc((n ? n : 1) * sizeof *elems);
  if (!elems) {
    ad_fail_code(mc, TANJIT_ERR_NO_MEMORY, call, "out of memory");
    return NULL;
  }
  LLVMValueRef out = NULL;
  for (unsigned i = 0; i < n; i++)
    if (!(elems[i] = shadow_slots(mc, LLVMGetOperand(c, i), call)))
      goto done;
  LLVMTypeRef t = LLVMTypeOf(c);
  if (!is_struct)
    out = LLVMConstArray2(LLVMGetElementType(t), elems, n);
  else if (LLVMGetStructName(t))
    out = LLVMConstNamedStruct(t, elems, n);
  else
    out = LLVMConstStructInContext(mc->llctx, elems, n, LLVMIsPackedStruct(t));
done:
  free(elems);
  return out;
}

/* The shadow copy of constant global g, built once. */
static LLVMValueRef shadow_global(ad_module_ctx *mc, LLVMValueRef g,
                                  LLVMValueRef call) {
  strbuf sb;
  sb_init(&sb);
  sb_append(&sb, "tanjit.virtual.shadow.");
  sb_append(&sb, ad_value_name(g));
  if (sb.failed || !sb.data) {
    sb_free(&sb);
    ad_fail_code(mc, TANJIT_ERR_NO_MEMORY, call, "out of memory");
    return NULL;
  }
  LLVMValueRef shadow = LLVMGetNamedGlobal(mc->mod, sb.data);
  if (!shadow) {
    LLVMValueRef init = shadow_slots(mc, LLVMGetInitializer(g), call);
    if (init) {
      shadow = LLVMAddGlobal(mc->mod, LLVMTypeOf(init), sb.data);
      LLVMSetInitializer(shadow, init);
      LLVMSetGlobalConstant(shadow, 1);
      LLVMSetLinkage(shadow, LLVMInternalLinkage);
      LLVMSetAlignment(shadow, LLVMGetAlignment(g));
    }
  }
  sb_free(&sb);
  return shadow;
}

/* v's shadow when v is a constant global or constant GEPs of one; NULL (nothing set in mc) when it is not, or NULL with the
 * error in mc. */
static LLVMValueRef shadow_pointer(ad_module_ctx *mc, LLVMValueRef v,
                                   LLVMValueRef call, int *refused) {
  if (LLVMIsAGlobalVariable(v)) {
    if (!LLVMIsGlobalConstant(v) || !LLVMGetInitializer(v)) {
      *refused = 1;
      return NULL;
    }
    return shadow_global(mc, v, call);
  }
  if (!LLVMIsAConstantExpr(v)) {
    *refused = 1;
    return NULL;
  }
  if (LLVMGetConstOpcode(v) != LLVMGetElementPtr) {
    *refused = 1;
    return NULL;
  }
  LLVMValueRef base = shadow_pointer(mc, LLVMGetOperand(v, 0), call, refused);
  if (!base)
    return NULL;
  unsigned n = (unsigned)LLVMGetNumOperands(v) - 1;
  LLVMValueRef idx[8];
  if (n > sizeof idx / sizeof *idx) {
    *refused = 1;
    return NULL;
  }
  for (unsigned i = 0; i < n; i++)
    idx[i] = LLVMGetOperand(v, i + 1);
  /* inrange, a hint for the original's address point, is not carried */
  LLVMTypeRef src = LLVMGetGEPSourceElementType(v);
  return LLVMIsInBounds(v) ? LLVMConstInBoundsGEP2(src, base, idx, n)
                           : LLVMConstGEP2(src, base, idx, n);
}

LLVMValueRef ad_rev_virtual_of_vtable(ad_module_ctx *mc, LLVMValueRef arg,
                                      LLVMValueRef call) {
  int refused = 0;
  LLVMValueRef shadow = shadow_pointer(mc, arg, call, &refused);
  if (!shadow && refused) {
    char *t = ad_value_text(arg);
    ad_fail(mc, call,
            "the argument of %s must be a function, or a constant pointer "
            "into a constant global such as a vtable, known at load time; "
            "not `%s` (a pointer computed at run time, such as an object's "
            "vtable pointer loaded from it, is not supported)",
            who, t ? t : "?");
    free(t);
  }
  return shadow;
}

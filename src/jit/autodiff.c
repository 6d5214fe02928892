/*
 * The wrapper of a run-time reverse request (tanjit_autodiff; derivative.c
 * does the rest, as for tanjit_fwddiff):
 *
 *   define <adjoints> @tanjit.autodiff.<n>(<params>) {
 *     %d = call <adjoints> (...) @__enzyme_autodiff(ptr @f,
 *              metadata !"enzyme_out", double %x,
 *              metadata !"enzyme_dup", ptr %a, ptr %da, ...)
 *     ret <adjoints> %d
 *   }
 *
 * <adjoints> is what a C function returning `struct { T1 d1; ...; }` of the
 * TANJIT_ACTIVE parameters' types returns under the host's C ABI (one
 * value alone; x86-64: SSE eightbytes up to 16 bytes, else a hidden sret
 * pointer first), so a C caller can cast the address to the obvious
 * prototype.  The request decoder (ad/request.c) lays the adjoints out as
 * the declared result, exactly as for an __enzyme_autodiff call clang
 * lowered from C.
 */
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Target.h>

#include "common/alloc.h"
#include "jit/jit.h"

static int is_float_scalar(LLVMTypeRef t) {
  switch (LLVMGetTypeKind(t)) {
  case LLVMHalfTypeKind: case LLVMBFloatTypeKind: case LLVMFloatTypeKind:
  case LLVMDoubleTypeKind: case LLVMX86_FP80TypeKind: case LLVMFP128TypeKind:
  case LLVMPPC_FP128TypeKind:
    return 1;
  default:
    return 0;
  }
}

static char *type_text(LLVMTypeRef t) {
  char *s = LLVMPrintTypeToString(t);
  char *copy = tj_strdup(s ? s : "?");
  LLVMDisposeMessage(s);
  return copy;
}

/* One x86-64 eightbyte holding only float members: the type clang gives
 * it (T alone, <k x T> for k of one type), or NULL when the members mix
 * types (not attempted). */
static LLVMTypeRef eightbyte_type(LLVMTypeRef *members, unsigned k) {
  for (unsigned i = 1; i < k; i++)
    if (members[i] != members[0])
      return NULL;
  return k == 1 ? members[0] : LLVMVectorType(members[0], k);
}

/*
 * The C ABI result of `struct { outs... }` on x86-64 System V: *sret set
 * when it goes through memory (more than 16 bytes, or an x87 / 128-bit
 * float among several members), else the register type.  NULL: a layout
 * not attempted.
 */
static LLVMTypeRef x86_64_result(LLVMContextRef ctx, LLVMTargetDataRef td,
                                 LLVMTypeRef st, LLVMTypeRef *outs,
                                 unsigned nouts, int *sret) {
  *sret = 0;
  for (unsigned i = 0; i < nouts; i++) {
    LLVMTypeKind k = LLVMGetTypeKind(outs[i]);
    if (k == LLVMX86_FP80TypeKind || k == LLVMFP128TypeKind ||
        k == LLVMPPC_FP128TypeKind)
      *sret = 1;
  }
  if (*sret || LLVMABISizeOfType(td, st) > 16) {
    *sret = 1;
    return st;
  }
  LLVMTypeRef half[2][16], eb[2];
  unsigned count[2] = {0, 0};
  for (unsigned i = 0; i < nouts; i++) {
    unsigned e = (unsigned)(LLVMOffsetOfElement(td, st, i) / 8);
    half[e][count[e]++] = outs[i];
  }
  unsigned n = count[1] ? 2 : 1;
  for (unsigned e = 0; e < n; e++)
    if (!(eb[e] = eightbyte_type(half[e], count[e])))
      return NULL;
  return n == 1 ? eb[0] : LLVMStructTypeInContext(ctx, eb, 2, 0);
}

static int is_x86_64(LLVMModuleRef m) {
  const char *triple = LLVMGetTarget(m);
  return triple && strncmp(triple, "x86_64", 6) == 0;
}

static LLVMValueRef marker(LLVMContextRef ctx, const char *name) {
  return LLVMMetadataAsValue(ctx, LLVMMDStringInContext2(ctx, name, strlen(name)));
}

/* A pointer, or an integer of a pointer's width (a Ptr{Float64}, a
 * CUdeviceptr): what reverse mode can duplicate (request.c agrees). */
static int holds_pointer(LLVMTypeRef t) {
  return LLVMGetTypeKind(t) == LLVMPointerTypeKind ||
         (LLVMGetTypeKind(t) == LLVMIntegerTypeKind &&
          LLVMGetIntTypeWidth(t) == 8 * sizeof(void *));
}

/* Each parameter's activity against its type; 0 or -1 with *err set. */
static int check_params(const char *function, const tanjit_activity *act,
                        LLVMTypeRef *pt, unsigned np, tanjit_error **err) {
  for (unsigned p = 0; p < np; p++) {
    const char *why = NULL;
    if (act[p] == TANJIT_ACTIVE && !is_float_scalar(pt[p]))
      why = "is TANJIT_ACTIVE, which takes a float scalar passed by value "
            "(pass a pointer with TANJIT_DUP)";
    else if ((act[p] == TANJIT_DUP || act[p] == TANJIT_DUPNONEED) &&
             !holds_pointer(pt[p]))
      why = is_float_scalar(pt[p])
                ? "is duplicated, but reverse mode duplicates pointers only "
                  "(a float passed by value is TANJIT_ACTIVE)"
                : "is duplicated, but reverse mode duplicates pointers "
                  "(or integers of a pointer's width) only";
    if (why) {
      char *t = type_text(pt[p]);
      tj_fail(err, TANJIT_ERR_INVALID_ARGUMENT,
              "tanjit_autodiff of %s: parameter %u (%s) %s", function, p + 1,
              t ? t : "?", why);
      free(t);
      return -1;
    }
  }
  return 0;
}

int jit_add_autodiff_wrapper(LLVMModuleRef m, LLVMValueRef fn,
                             const char *wrapper, const char *function,
                             const tanjit_activity *act, tanjit_error **err) {
  LLVMContextRef ctx = LLVMGetModuleContext(m);
  LLVMTypeRef fn_type = LLVMGlobalGetValueType(fn);
  unsigned np = LLVMCountParamTypes(fn_type);
  LLVMTypeRef *pt = tj_malloc((np ? np : 1) * sizeof *pt);
  LLVMTypeRef *outs = tj_malloc((np ? np : 1) * sizeof *outs);
  LLVMTypeRef *wt = tj_malloc((2 * np + 1) * sizeof *wt);
  LLVMValueRef *args = tj_malloc((3 * np + 2) * sizeof *args);
  LLVMTargetDataRef td = LLVMCreateTargetData(LLVMGetDataLayoutStr(m));
  int rc = -1;
  if (!pt || !outs || !wt || !args || !td) {
    tj_fail(err, TANJIT_ERR_NO_MEMORY, "out of memory");
    goto out;
  }
  LLVMGetParamTypes(fn_type, pt);
  if (check_params(function, act, pt, np, err))
    goto out;
  unsigned nouts = 0;
  for (unsigned p = 0; p < np; p++)
    if (act[p] == TANJIT_ACTIVE)
      outs[nouts++] = pt[p];
  LLVMTypeRef rt = LLVMVoidTypeInContext(ctx);
  int sret = 0;
  if (nouts == 1) {
    rt = outs[0];
  } else if (nouts > 1) {
    LLVMTypeRef st = LLVMStructTypeInContext(ctx, outs, nouts, 0);
    rt = is_x86_64(m) ? x86_64_result(ctx, td, st, outs, nouts, &sret) : st;
    if (!rt) {
      tj_fail(err, TANJIT_ERR_UNSUPPORTED,
              "tanjit_autodiff of %s: the C ABI of a struct of its active "
              "parameters' adjoints mixes float types within 8 bytes, "
              "which is not supported (order them by type)",
              function);
      goto out;
    }
  }
  unsigned nw = 0, na = 0;
  if (sret)
    wt[nw++] = LLVMPointerTypeInContext(ctx, 0);
  for (unsigned p = 0; p < np; p++) {
    wt[nw++] = pt[p];
    if (act[p] == TANJIT_DUP || act[p] == TANJIT_DUPNONEED)
      wt[nw++] = pt[p];
  }
  LLVMTypeRef wrapper_rt = sret ? LLVMVoidTypeInContext(ctx) : rt;
  LLVMValueRef w =
      LLVMAddFunction(m, wrapper, LLVMFunctionType(wrapper_rt, wt, nw, 0));
  unsigned sret_kind = LLVMGetEnumAttributeKindForName("sret", 4);
  LLVMAttributeRef sret_attr =
      sret ? LLVMCreateTypeAttribute(ctx, sret_kind, rt) : NULL;
  if (sret) {
    LLVMAddAttributeAtIndex(w, 1, sret_attr);
    args[na++] = LLVMGetParam(w, 0);
  }
  args[na++] = fn;
  static const char *const names[] = {"enzyme_const", "enzyme_dup",
                                      "enzyme_dupnoneed", "enzyme_out"};
  unsigned next = sret ? 1 : 0;
  for (unsigned p = 0; p < np; p++) {
    args[na++] = marker(ctx, names[act[p]]);
    args[na++] = LLVMGetParam(w, next++);
    if (act[p] == TANJIT_DUP || act[p] == TANJIT_DUPNONEED)
      args[na++] = LLVMGetParam(w, next++);
  }
  LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);
  LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(ctx, w, "entry"));
  LLVMTypeRef request_type = LLVMFunctionType(wrapper_rt, NULL, 0, 1);
  LLVMValueRef request = LLVMGetNamedFunction(m, "__enzyme_autodiff");
  if (!request)
    request = LLVMAddFunction(m, "__enzyme_autodiff", request_type);
  LLVMValueRef d = LLVMBuildCall2(b, request_type, request, args, na, "");
  if (sret)
    LLVMAddCallSiteAttribute(d, 1, sret_attr);
  if (LLVMGetTypeKind(wrapper_rt) == LLVMVoidTypeKind)
    LLVMBuildRetVoid(b);
  else
    LLVMBuildRet(b, d);
  LLVMDisposeBuilder(b);
  rc = 0;
out:
  if (td)
    LLVMDisposeTargetData(td);
  free(pt), free(outs), free(wt), free(args);
  return rc;
}

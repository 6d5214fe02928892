/*
 * Julia's own lazily bound ccalls, bound at link time.
 *
 * Julia emits, for `ccall((:cos, "libm.so.6"), ...)`:
 *
 *   @jlplt_cos_1234_got = internal global ptr @jlplt_cos_1234 #0
 *   attributes #0 = { "julia.fname"="cos" "julia.libname"="libm.so.6" }
 *   define internal double @jlplt_cos_1234(double %x) {   ; the thunk
 *     %f = call ptr @ijl_load_and_lookup(ptr @lib, ptr @fn, ptr @handle)
 *     store ptr %f, ptr @jlplt_cos_1234_got
 *     ...tail call %f...
 *   }
 *   ; each call site: %fp = load ptr, ptr @jlplt_cos_1234_got; call %fp(...)
 *
 * Outside Julia there is no ijl_load_and_lookup.  This pass points every load
 * of the GOT at a declaration `ejlstr$cos$libm.so.6` tagged
 * "enzyme_math"="cos", so the resolver binds it from the library loaded
 * RTLD_LOCAL, the thunk becomes dead, and each call site becomes a direct
 * call that the engine differentiates like any renamed ccall.
 *
 * LLVM-C cannot read a global variable's attributes, so they are read from
 * the printed module; without them, the function name comes from the GOT's
 * name and the library from the thunk's constant-string arguments.  A GOT
 * that Julia's `julia.libidx` binds to one of its internal libraries names no
 * library: it is bound by its plain name (registered libraries, process).
 */
#include <stdlib.h>
#include <string.h>

#include "common/strbuf.h"
#include "jit/jit.h"

static const char got_prefix[] = "jlplt_";
static const char got_suffix[] = "_got";

/* "jlplt_<fn>_<N>_got" -> fn, or 0 if the name is not of that shape. */
static int function_from_got_name(const char *name, char *fn, size_t cap) {
  size_t n = strlen(name);
  size_t pre = sizeof got_prefix - 1, suf = sizeof got_suffix - 1;
  if (n <= pre + suf || strncmp(name, got_prefix, pre) != 0 ||
      strcmp(name + n - suf, got_suffix) != 0)
    return 0;
  const char *end = name + n - suf; /* at "_got" */
  const char *digits = end;
  while (digits > name + pre && digits[-1] >= '0' && digits[-1] <= '9')
    digits--;
  if (digits == end || digits[-1] != '_' || (size_t)(digits - 1 - name - pre) >= cap ||
      digits - 1 == name + pre)
    return 0;
  size_t len = (size_t)(digits - 1 - (name + pre));
  memcpy(fn, name + pre, len);
  fn[len] = '\0';
  return 1;
}

/* The value of `"key"="value"` in the attribute group the global refers to,
 * read from the printed module; NULL if absent. Caller frees. */
static char *global_attribute(const char *module_text, LLVMValueRef global,
                              const char *key) {
  char *global_text = LLVMPrintValueToString(global);
  const char *hash = strrchr(global_text, '#');
  char *result = NULL;
  if (hash && hash[1] >= '0' && hash[1] <= '9') {
    strbuf group;
    sb_init(&group);
    sb_printf(&group, "attributes #%ld = {", strtol(hash + 1, NULL, 10));
    const char *at = group.data ? strstr(module_text, group.data) : NULL;
    const char *close = at ? strchr(at, '}') : NULL;
    strbuf pattern;
    sb_init(&pattern);
    sb_printf(&pattern, "\"%s\"=\"", key);
    const char *found = at && pattern.data ? strstr(at, pattern.data) : NULL;
    if (found && found < close) {
      const char *value = found + pattern.len;
      const char *quote = strchr(value, '"');
      if (quote)
        result = tj_strndup(value, (size_t)(quote - value));
    }
    sb_free(&pattern);
    sb_free(&group);
  }
  LLVMDisposeMessage(global_text);
  return result;
}

/* A constant C string behind `v` (a global with a string initializer). */
static const char *constant_string(LLVMValueRef v) {
  if (!LLVMIsAGlobalVariable(v) || !LLVMIsGlobalConstant(v))
    return NULL;
  LLVMValueRef init = LLVMGetInitializer(v);
  if (!init || !LLVMIsAConstantDataSequential(init) || !LLVMIsConstantString(init))
    return NULL;
  size_t len;
  return LLVMGetAsString(init, &len);
}

/* The library the thunk asks its lookup function for: the first constant
 * string argument that is not the function's name. */
static char *library_from_thunk(LLVMValueRef thunk, const char *fn) {
  if (!thunk || !LLVMIsAFunction(thunk))
    return NULL;
  for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(thunk); b; b = LLVMGetNextBasicBlock(b))
    for (LLVMValueRef i = LLVMGetFirstInstruction(b); i; i = LLVMGetNextInstruction(i)) {
      if (!LLVMIsACallInst(i))
        continue;
      unsigned n = (unsigned)LLVMGetNumArgOperands(i);
      for (unsigned a = 0; a < n; a++) {
        const char *s = constant_string(LLVMGetOperand(i, a));
        if (s && strcmp(s, fn) != 0)
          return tj_strdup(s);
      }
    }
  return NULL;
}

static int bind_got(LLVMModuleRef m, LLVMValueRef got, const char *module_text,
                    tanjit_error **err) {
  size_t name_len;
  const char *got_name = LLVMGetValueName2(got, &name_len);
  char fn_from_name[256];
  if (!function_from_got_name(got_name, fn_from_name, sizeof fn_from_name))
    return 0;
  char *fn = global_attribute(module_text, got, "julia.fname");
  char *lib = global_attribute(module_text, got, "julia.libname");
  LLVMValueRef thunk = LLVMGetInitializer(got);
  if (!fn)
    fn = tj_strdup(fn_from_name);
  if (!lib)
    lib = library_from_thunk(thunk, fn);
  strbuf target;
  sb_init(&target);
  if (lib)
    sb_printf(&target, "ejlstr$%s$%s", fn, lib);
  else
    sb_append(&target, fn);
  int rc = 0;
  if (!fn || target.failed) {
    rc = tj_fail(err, TANJIT_ERR_NO_MEMORY, "out of memory binding %s", got_name);
    goto done;
  }
  LLVMValueRef decl = LLVMGetNamedFunction(m, target.data);
  if (!decl) {
    LLVMTypeRef type = thunk && LLVMIsAFunction(thunk)
                           ? LLVMGlobalGetValueType(thunk)
                           : LLVMFunctionType(LLVMVoidTypeInContext(LLVMGetModuleContext(m)),
                                              NULL, 0, 0);
    decl = LLVMAddFunction(m, target.data, type);
    if (lib)
      LLVMAddAttributeAtIndex(
          decl, LLVMAttributeFunctionIndex,
          LLVMCreateStringAttribute(LLVMGetModuleContext(m), "enzyme_math", 11,
                                    fn, (unsigned)strlen(fn)));
  }
  /* Loads of the GOT become the function itself; the thunk's store stays
   * until the thunk is deleted below. */
  for (LLVMUseRef u = LLVMGetFirstUse(got); u;) {
    LLVMValueRef user = LLVMGetUser(u);
    u = LLVMGetNextUse(u);
    if (LLVMIsALoadInst(user) && LLVMGetOperand(user, 0) == got) {
      LLVMReplaceAllUsesWith(user, decl);
      LLVMInstructionEraseFromParent(user);
    }
  }
  LLVMSetInitializer(got, decl);
  if (thunk && LLVMIsAFunction(thunk) && !LLVMGetFirstUse(thunk))
    LLVMDeleteFunction(thunk);
done:
  sb_free(&target);
  free(fn);
  free(lib);
  return rc;
}

int jit_bind_julia_plt(LLVMModuleRef m, tanjit_error **err) {
  char *module_text = NULL;
  for (LLVMValueRef g = LLVMGetFirstGlobal(m); g;) {
    LLVMValueRef next = LLVMGetNextGlobal(g);
    size_t len;
    const char *name = LLVMGetValueName2(g, &len);
    if (strncmp(name, got_prefix, sizeof got_prefix - 1) == 0 &&
        len > sizeof got_suffix && strcmp(name + len - 4, got_suffix) == 0) {
      if (!module_text)
        module_text = LLVMPrintModuleToString(m);
      if (bind_got(m, g, module_text, err)) {
        LLVMDisposeMessage(module_text);
        return -1;
      }
    }
    g = next;
  }
  if (module_text)
    LLVMDisposeMessage(module_text);
  return 0;
}

/* Erases the calls to `name` and its declaration; the users of their
 * results must already be gone. */
static void erase_calls_to(LLVMModuleRef m, const char *name) {
  LLVMValueRef f = LLVMGetNamedFunction(m, name);
  if (!f)
    return;
  LLVMUseRef u;
  while ((u = LLVMGetFirstUse(f))) {
    LLVMValueRef user = LLVMGetUser(u);
    if (!LLVMIsACallInst(user) || LLVMGetFirstUse(user))
      return; /* not the pattern this expects: left to the verifier */
    LLVMInstructionEraseFromParent(user);
  }
  LLVMDeleteFunction(f);
}

void jit_drop_julia_gc_preserve(LLVMModuleRef m) {
  erase_calls_to(m, "llvm.julia.gc_preserve_end");
  erase_calls_to(m, "llvm.julia.gc_preserve_begin");
}

void jit_lower_julia_gc_loaded(LLVMModuleRef m) {
  LLVMValueRef f = LLVMGetNamedFunction(m, "julia.gc_loaded");
  if (!f)
    return;
  LLVMBuilderRef b = LLVMCreateBuilderInContext(LLVMGetModuleContext(m));
  LLVMUseRef u = LLVMGetFirstUse(f), next;
  for (; u; u = next) {
    next = LLVMGetNextUse(u);
    LLVMValueRef call = LLVMGetUser(u);
    if (!LLVMIsACallInst(call) || LLVMGetCalledValue(call) != f ||
        LLVMGetNumArgOperands(call) != 2)
      continue; /* (the fallback definition serves it) */
    LLVMValueRef p = LLVMGetOperand(call, 1);
    LLVMTypeRef t = LLVMTypeOf(call);
    if (LLVMGetTypeKind(LLVMTypeOf(p)) != LLVMPointerTypeKind ||
        LLVMGetTypeKind(t) != LLVMPointerTypeKind)
      continue;
    LLVMPositionBuilderBefore(b, call);
    LLVMValueRef same =
        LLVMTypeOf(p) == t ? p : LLVMBuildAddrSpaceCast(b, p, t, "");
    while (next && LLVMGetUser(next) == call)
      next = LLVMGetNextUse(next);
    LLVMReplaceAllUsesWith(call, same);
    LLVMInstructionEraseFromParent(call);
  }
  LLVMDisposeBuilder(b);
  if (!LLVMGetFirstUse(f))
    LLVMDeleteFunction(f);
}

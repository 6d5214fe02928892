/*
 * Partitions: a differentiated module's functions compiled apart from it,
 * in modules of their own, by lazy compilation (lazy.c: one function, at
 * its first call) and parallel compilation (parallel.c: groups, on worker
 * threads).  What both need:
 *
 *   jit_partitionable       whether a module may be cut (no aliases,
 *                           ifuncs, static constructors, block addresses)
 *   jit_partition_prepare   every definition the engine gave a
 *                           module-private name (derivatives, shadow
 *                           globals) gets a hidden session-unique one, as
 *                           loading did for the module's own, claimed in the
 *                           module's materialization responsibility: then
 *                           each function and global has one definition
 *                           every partition can refer to
 *   jit_partition_extract   some functions alone out of the module's
 *                           bitcode, without reading the other bodies
 *   jit_partition_compile   default<ON> and code generation with a target
 *                           machine of the caller's, to an object
 *   jit_partition_keep_data what stays in the module: its data
 *   jit_partition_mark_boundaries
 *                           calls that leave a unit (below) into or out of
 *                           fast-math code are never inlined, in any mode
 *   jit_partition_count     how many partitions a module is cut into, from
 *                           the module alone
 *
 * A unit is a function with the private functions that go with it (its
 * derivatives: find_homes).  Lazy compilation optimizes each unit alone;
 * eager compilation optimizes partitions of whole units (parallel.c) and
 * small modules whole.  Under IEEE arithmetic that gives the same numbers
 * whatever is inlined, but derivative arithmetic under the fast flags
 * (reassoc nsz contract) would be regrouped or fused with the code it is
 * inlined into or that is inlined into it: so a call between units where
 * either side has fast-math flags keeps its boundary (noinline) in every
 * mode, and each unit's fast code is optimized with the same code around
 * it lazily, eagerly, at any --jobs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <llvm-c/BitReader.h>
#include <llvm-c/Comdat.h>
#include <llvm-c/Linker.h>
#include <llvm-c/Transforms/PassBuilder.h>

#include "common/alloc.h"
#include "common/strbuf.h"
#include "jit/jit.h"

static int is_private(LLVMValueRef g) {
  LLVMLinkage l = LLVMGetLinkage(g);
  return l == LLVMInternalLinkage || l == LLVMPrivateLinkage;
}

/* A private constant whose address nobody compares: each partition may
 * keep a copy of its own. */
static int copyable_constant(LLVMValueRef g) {
  return is_private(g) && LLVMIsGlobalConstant(g) &&
         LLVMGetUnnamedAddress(g) != LLVMNoUnnamedAddr;
}

/* A constant every partition may read the initializer of (to fold its
 * loads) while the module's data defines it. */
static int foldable_constant(LLVMValueRef g) {
  LLVMLinkage l = LLVMGetLinkage(g);
  return LLVMIsGlobalConstant(g) && !LLVMIsThreadLocal(g) &&
         (l == LLVMExternalLinkage || l == LLVMAvailableExternallyLinkage);
}

static int mentions_block_address(LLVMValueRef v) {
  int n = LLVMGetNumOperands(v);
  for (int k = 0; k < n; k++) {
    LLVMValueRef op = LLVMGetOperand(v, (unsigned)k);
    if (op && LLVMIsABlockAddress(op))
      return 1;
  }
  return 0;
}

int jit_partitionable(LLVMModuleRef m) {
  if (LLVMGetFirstGlobalAlias(m) || LLVMGetFirstGlobalIFunc(m) ||
      LLVMGetNamedGlobal(m, "llvm.global_ctors") ||
      LLVMGetNamedGlobal(m, "llvm.global_dtors"))
    return 0;
  for (LLVMValueRef g = LLVMGetFirstGlobal(m); g; g = LLVMGetNextGlobal(g))
    if (!LLVMIsDeclaration(g) && mentions_block_address(LLVMGetInitializer(g)))
      return 0;
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb; bb = LLVMGetNextBasicBlock(bb))
      for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i))
        if (mentions_block_address(i))
          return 0;
  return 1;
}

/* g becomes a declaration another partition's (or the module's)
 * definition satisfies. */
static void declare_only(LLVMValueRef g) {
  if (LLVMIsAFunction(g))
    jit_drop_body(g);
  else
    LLVMSetInitializer(g, NULL);
  LLVMSetLinkage(g, LLVMExternalLinkage);
  LLVMSetComdat(g, NULL);
}

static void drop_used_lists(LLVMModuleRef m) {
  static const char *const lists[] = {"llvm.used", "llvm.compiler.used"};
  for (int i = 0; i < 2; i++) {
    LLVMValueRef g = LLVMGetNamedGlobal(m, lists[i]);
    if (g)
      LLVMDeleteGlobal(g);
  }
}

LLVMJITSymbolFlags jit_partition_flags(LLVMValueRef g, int exported) {
  LLVMJITSymbolFlags f = {0, 0};
  if (exported)
    f.GenericFlags |= LLVMJITSymbolGenericFlagsExported;
  if (LLVMIsAFunction(g))
    f.GenericFlags |= LLVMJITSymbolGenericFlagsCallable;
  return f;
}

LLVMErrorRef jit_partition_claim(tanjit_session *s,
                                 LLVMOrcMaterializationResponsibilityRef mr,
                                 const char *name, LLVMJITSymbolFlags flags) {
  LLVMOrcExecutionSessionRef es = LLVMOrcLLJITGetExecutionSession(s->jit);
  LLVMOrcCSymbolFlagsMapPair pair = {LLVMOrcExecutionSessionIntern(es, name), flags};
  return LLVMOrcMaterializationResponsibilityDefineMaterializing(mr, &pair, 1);
}

/* The function an instruction user of f sits in, or NULL (a constant). */
static LLVMValueRef user_function(LLVMValueRef user) {
  if (!LLVMIsAInstruction(user))
    return NULL;
  LLVMBasicBlockRef bb = LLVMGetInstructionParent(user);
  return bb ? LLVMGetBasicBlockParent(bb) : NULL;
}

/* The helpers forward derivatives share, which the engine builds once per
 * module by name (rules/math.c: one digamma per float type): any forward
 * request of the module may come to use them.  (Reverse mode's helpers
 * are not listed: a module with reverse requests is differentiated whole
 * in every mode, lazy.c.) */
static const char *const module_helpers[] = {"tanjit.digamma."};

static int is_module_helper(LLVMValueRef f) {
  size_t n;
  const char *name = LLVMGetValueName2(f, &n);
  for (size_t i = 0; i < sizeof module_helpers / sizeof *module_helpers; i++) {
    size_t k = strlen(module_helpers[i]);
    if (n > k && memcmp(name, module_helpers[i], k) == 0)
      return 1;
  }
  return 0;
}

/*
 * A private function used only by code that ends up in one partition
 * (a derivative the engine made for one request) goes with it: it stays
 * private there, so the optimizer may inline and delete it as in a
 * whole-module compile.  Its home is the one non-private function every
 * use leads to, through other such functions; found by rounds until
 * nothing changes.  home: function -> its home function (NULL: none yet).
 * The engine's per-module helpers have none, even with one user: lazy
 * compilation differentiates groups of requests apart (lazy.c), and a
 * helper one group uses alone here may be shared with another group in a
 * whole-module transform, where it is a unit of its own.
 */
static int find_homes(LLVMModuleRef m, tj_hashmap *home) {
  for (int changed = 1; changed;) {
    changed = 0;
    for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f)) {
      if (LLVMIsDeclaration(f) || !is_private(f) || tj_hashmap_get(home, f) ||
          is_module_helper(f))
        continue;
      LLVMValueRef only = NULL;
      int ok = LLVMGetFirstUse(f) != NULL;
      for (LLVMUseRef u = LLVMGetFirstUse(f); u && ok; u = LLVMGetNextUse(u)) {
        LLVMValueRef in = user_function(LLVMGetUser(u));
        LLVMValueRef h = !in ? NULL : is_private(in) ? tj_hashmap_get(home, in) : in;
        ok = h && h != f && (!only || only == h);
        only = h;
      }
      if (ok) {
        if (tj_hashmap_put(home, f, only))
          return -1;
        changed = 1;
      }
    }
  }
  return 0;
}

int jit_partition_prepare(tanjit_session *s, LLVMModuleRef m, unsigned long id,
                          LLVMOrcMaterializationResponsibilityRef mr,
                          strmap *attached, tanjit_error **err) {
  LLVMErrorRef e = NULL;
  tj_hashmap home;
  tj_hashmap_init(&home, TJ_KEYS_POINTERS);
  if (find_homes(m, &home)) {
    tj_hashmap_free(&home);
    return tj_fail(err, TANJIT_ERR_NO_MEMORY, "out of memory splitting a module");
  }
  /* (names first: promotion below renames only the homeless) */
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f)) {
    LLVMValueRef h = tj_hashmap_get(&home, f);
    char *name = h ? tj_strdup(LLVMGetValueName2(h, &(size_t){0})) : NULL;
    if (h && (!name || strmap_put(attached, LLVMGetValueName2(f, &(size_t){0}), name))) {
      free(name);
      tj_hashmap_free(&home);
      return tj_fail(err, TANJIT_ERR_NO_MEMORY, "out of memory splitting a module");
    }
  }
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f && !e; f = LLVMGetNextFunction(f))
    if (!LLVMIsDeclaration(f) && is_private(f) && !tj_hashmap_get(&home, f)) {
      if (jit_promote_private(f, id))
        return tj_fail(err, TANJIT_ERR_NO_MEMORY, "out of memory splitting a module");
      e = jit_partition_claim(s, mr, LLVMGetValueName2(f, &(size_t){0}),
                              jit_partition_flags(f, 0));
    }
  tj_hashmap_free(&home);
  for (LLVMValueRef g = LLVMGetFirstGlobal(m); g && !e; g = LLVMGetNextGlobal(g))
    if (!LLVMIsDeclaration(g) && is_private(g) && !copyable_constant(g)) {
      if (jit_promote_private(g, id))
        return tj_fail(err, TANJIT_ERR_NO_MEMORY, "out of memory splitting a module");
      e = jit_partition_claim(s, mr, LLVMGetValueName2(g, &(size_t){0}),
                              jit_partition_flags(g, 0));
    }
  if (e)
    return tj_fail_llvm(err, TANJIT_ERR_LINK, e, "cannot split the module");
  return 0;
}

/*
 * The functions `keep` says yes to, out of the module's bitcode; every
 * other function a declaration, every global but the copyable constants
 * an external declaration.  The other bodies are never read: the bitcode
 * is read lazily (bodies on demand), each other function is replaced by a
 * fresh declaration (the reader's value handles follow the replacement),
 * and linking what is left into an empty module materializes the bodies
 * kept.  The cost is the module's declarations, not its code.  Takes
 * `bitcode`.
 */
LLVMModuleRef jit_partition_extract(LLVMContextRef ctx, LLVMMemoryBufferRef bitcode,
                                    int (*keep)(void *, const char *, size_t),
                                    void *keep_arg, tanjit_error **err) {
  LLVMModuleRef src = NULL;
  if (LLVMGetBitcodeModuleInContext2(ctx, bitcode, &src)) {
    LLVMDisposeMemoryBuffer(bitcode);
    tj_fail(err, TANJIT_ERR_INTERNAL, "cannot read back the differentiated module");
    return NULL;
  }
  for (LLVMValueRef f = LLVMGetFirstFunction(src), next; f; f = next) {
    next = LLVMGetNextFunction(f);
    size_t len;
    const char *fname = LLVMGetValueName2(f, &len);
    if (LLVMIsDeclaration(f) || keep(keep_arg, fname, len))
      continue;
    LLVMValueRef d = LLVMAddFunction(src, "", LLVMGlobalGetValueType(f));
    LLVMSetVisibility(d, LLVMGetVisibility(f));
    LLVMSetFunctionCallConv(d, LLVMGetFunctionCallConv(f));
    LLVMReplaceAllUsesWith(f, d);
    char *name = tj_strndup(fname, len);
    LLVMDeleteFunction(f);
    if (!name) {
      LLVMDisposeModule(src);
      tj_fail(err, TANJIT_ERR_NO_MEMORY, "out of memory");
      return NULL;
    }
    LLVMSetValueName2(d, name, len);
    free(name);
  }
  for (LLVMValueRef g = LLVMGetFirstGlobal(src), next; g; g = next) {
    next = LLVMGetNextGlobal(g);
    if (LLVMIsDeclaration(g) || copyable_constant(g))
      continue;
    if (foldable_constant(g)) {
      /* its loads fold as in a whole-module compile; it is emitted once,
       * with the module's data */
      LLVMSetLinkage(g, LLVMAvailableExternallyLinkage);
      LLVMSetComdat(g, NULL);
    } else {
      declare_only(g);
    }
  }
  drop_used_lists(src);
  size_t id_len;
  const char *id = LLVMGetModuleIdentifier(src, &id_len);
  LLVMModuleRef m = LLVMModuleCreateWithNameInContext("", ctx);
  LLVMSetModuleIdentifier(m, id, id_len);
  LLVMSetTarget(m, LLVMGetTarget(src));
  LLVMSetDataLayout(m, LLVMGetDataLayoutStr(src));
  if (LLVMLinkModules2(m, src)) { /* takes src */
    LLVMDisposeModule(m);
    char *why = jit_take_diagnostic_errors();
    tj_fail(err, TANJIT_ERR_INTERNAL, "cannot cut functions out of the module: %s",
            why ? why : "the linker failed");
    free(why);
    return NULL;
  }
  return m;
}

static double seconds_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

LLVMMemoryBufferRef jit_partition_compile(LLVMTargetMachineRef tm, LLVMModuleRef m,
                                          int opt_level, double seconds[2],
                                          tanjit_error **err) {
  double t0 = seconds_now(), t1 = t0;
  LLVMMemoryBufferRef obj = NULL;
  LLVMErrorRef e = NULL;
  if (opt_level >= 0) { /* negative: optimized before it was cut */
    char pipeline[32];
    snprintf(pipeline, sizeof pipeline, "default<O%d>", opt_level);
    LLVMPassBuilderOptionsRef opts = LLVMCreatePassBuilderOptions();
    e = LLVMRunPasses(m, pipeline, tm, opts);
    LLVMDisposePassBuilderOptions(opts);
  }
  if (e) {
    tj_fail_llvm(err, TANJIT_ERR_INTERNAL, e, "optimization failed");
  } else {
    t1 = seconds_now();
    char *msg = NULL;
    if (LLVMTargetMachineEmitToMemoryBuffer(tm, m, LLVMObjectFile, &msg, &obj)) {
      tj_fail(err, TANJIT_ERR_LINK, "code generation failed: %s", msg ? msg : "");
      obj = NULL;
    }
    LLVMDisposeMessage(msg);
  }
  char *diagnosed = jit_take_diagnostic_errors();
  if (diagnosed && obj) {
    tj_fail(err, TANJIT_ERR_LINK, "code generation failed: %s", diagnosed);
    LLVMDisposeMemoryBuffer(obj);
    obj = NULL;
  }
  free(diagnosed);
  seconds[0] = t1 - t0;
  seconds[1] = obj ? seconds_now() - t1 : 0;
  return obj;
}

void jit_partition_attached_free(strmap *attached) {
  for (size_t i = 0; i < attached->cap; i++)
    if (attached->keys[i])
      free(attached->vals[i]);
  strmap_free(attached);
}

void jit_partition_keep_data(LLVMModuleRef m) {
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
    if (!LLVMIsDeclaration(f))
      jit_drop_body(f);
  /* private functions went with their homes: no use of them is left */
  for (LLVMValueRef f = LLVMGetFirstFunction(m), next; f; f = next) {
    next = LLVMGetNextFunction(f);
    if (is_private(f) && !LLVMGetFirstUse(f))
      LLVMDeleteFunction(f);
    else if (LLVMIsDeclaration(f)) {
      LLVMSetLinkage(f, LLVMExternalLinkage);
      LLVMSetComdat(f, NULL);
    }
  }
  drop_used_lists(m);
}

/* Whether f has an instruction with fast-math flags. */
static int has_fast_math(LLVMValueRef f) {
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb; bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i))
      if (LLVMCanValueUseFastMathFlags(i) && LLVMGetFastMathFlags(i) != LLVMFastMathNone)
        return 1;
  return 0;
}

static LLVMValueRef unit_of(tj_hashmap *home, LLVMValueRef f) {
  LLVMValueRef h = tj_hashmap_get(home, f);
  return h ? h : f;
}

int jit_partition_mark_boundaries(LLVMModuleRef m) {
  tj_hashmap home, fast; /* function -> its unit; unit -> 1 if fast */
  tj_hashmap_init(&home, TJ_KEYS_POINTERS);
  tj_hashmap_init(&fast, TJ_KEYS_POINTERS);
  int rc = find_homes(m, &home);
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f && !rc; f = LLVMGetNextFunction(f))
    if (!LLVMIsDeclaration(f) && has_fast_math(f))
      rc = tj_hashmap_put(&fast, unit_of(&home, f), (void *)1);
  unsigned noinline = LLVMGetEnumAttributeKindForName("noinline", 8);
  LLVMAttributeRef attr =
      LLVMCreateEnumAttribute(LLVMGetModuleContext(m), noinline, 0);
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f && !rc; f = LLVMGetNextFunction(f)) {
    if (LLVMIsDeclaration(f))
      continue;
    LLVMValueRef unit = unit_of(&home, f);
    int fast_caller = tj_hashmap_get(&fast, unit) != NULL;
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb; bb = LLVMGetNextBasicBlock(bb))
      for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i)) {
        if (!LLVMIsACallInst(i) && !LLVMIsAInvokeInst(i))
          continue;
        LLVMValueRef callee = LLVMGetCalledValue(i);
        if (!callee || !LLVMIsAFunction(callee) || LLVMIsDeclaration(callee))
          continue;
        LLVMValueRef other = unit_of(&home, callee);
        if (other != unit && (fast_caller || tj_hashmap_get(&fast, other)))
          LLVMAddCallSiteAttribute(i, LLVMAttributeFunctionIndex, attr);
      }
  }
  tj_hashmap_free(&home);
  tj_hashmap_free(&fast);
  return rc ? -1 : 0;
}

unsigned jit_partition_count(size_t units) {
  if (units < JIT_PARALLEL_MIN_FUNCTIONS)
    return 1;
  size_t k = units / JIT_PARTITION_UNITS;
  return k < 4 ? 4 : k > JIT_MAX_PARTS ? JIT_MAX_PARTS : (unsigned)k;
}

/*
 * C and C++ the CLI compiles are optimized in two steps around
 * differentiation, as under Enzyme's clang plugin, rather than by clang:
 *
 *   clang -O<N> -Xclang -disable-llvm-passes   IR as clang's frontend wrote it
 *   cli_pre_ad (here)                          passes before differentiation
 *                                              (--pre-ad, see plan_pre_ad)
 *   the library: differentiate, then default<O<N>>
 *
 * so that what runs before differentiation is chosen here: clang's own
 * pipeline (the default), or one that leaves loops rolled for the engine.
 * At -O0 clang's IR is used as is.
 *
 * Functions named by Enzyme's registration globals (names containing
 * __enzyme_register_derivative, __enzyme_register_gradient,
 * __enzyme_inactivefn, __enzyme_function_like,
 * the ones the library reads: src/ad/rules/custom.c) are kept from being
 * inlined by these passes, as Enzyme's plugin keeps them: the library
 * replaces *calls* to them, so an inlined one loses its rule; and nothing
 * of their bodies is used at their calls (they are weak meanwhile: see
 * keep_out_of_inliner).  The guard is
 * temporary: `noinline` is added only where the function had none and is
 * taken away again before the IR is handed on, the linkage restored, and a
 * registration global
 * the module keeps private is external meanwhile (so global DCE cannot drop
 * it); after differentiation the optimizer inlines what it likes.
 *
 * The IR arrives and leaves as text (what clang writes and
 * tanjit_load_memory reads), in an LLVMContext of this file's own.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Core.h>
#include <llvm-c/IRReader.h>
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>
#include <llvm-c/Transforms/PassBuilder.h>
#include <llvm/Config/llvm-config.h>

#include "cli/cli.h"
#include "cli/pipeline_text.h"
#include "cli/wide_copy.h"

/*
 * What --pre-ad names (the pipeline text is default<O<N>>, the -O level's
 * own, unless PASSES are given, or from -O2 on for `rolled` and for
 * `clang` under --strict-derivatives):
 *   clang   (the default) tuned as clang tunes -O<N>: loops unrolled and
 *           vectorized, SLP from -O2 on, so the module is differentiated
 *           as clang -O<N> would have handed it over; but with
 *           --strict-derivatives from -O2 on pipeline_text.c's NO_SLP,
 *           clang's passes without the SLP vectorizer (which the library's
 *           pipeline runs after differentiation, over primal and tangent
 *           together).  A tangent of a function SLP packed first mirrors
 *           the packing, its lanes extracted around scalar arithmetic that,
 *           strict, nothing may reassociate or contract back into vectors:
 *           bench/kernels.c's RK4 w1 1.02 -> 1.00 of Enzyme's instructions,
 *           w2-w8 and n-body lower too.  With reassociation the packed
 *           tangent is the better one (RK4 w1 0.82 against 1.04);
 *   rolled  loop unrolling (full and partial), loop vectorization,
 *           interleaving and SLP off: inlining, SROA, instcombine, GVN,
 *           loop rotation, LICM and the rest, loops left rolled, so they
 *           are differentiated before they are unrolled and vectorized.
 *           From -O2 on the text is pipeline_text.c's ROLLED: the
 *           default<O<N>> alias turns both vectorizers back on whatever
 *           the options say;
 *   PASSES  LLVM pipeline text, tuned as `clang`;
 *   ''      none: clang's IR as it is.
 * `clang` is the default because it is the faster one on bench/kernels.c
 * (bench/README.md, "Where differentiation runs"): the library optimizes
 * once after differentiating, and a module clang optimized first gets the
 * -O pipeline twice, which unrolls and vectorizes further.
 */
typedef struct pre_ad_plan {
  char pipeline[1024];
  const char *passes;
  int rolled;
} pre_ad_plan;

static void plan_pre_ad(const cli_args *c, pre_ad_plan *p) {
  const char *v = c->pre_ad;
  p->rolled = v && !strcmp(v, "rolled");
  if (v && *v && strcmp(v, "rolled") && strcmp(v, "clang")) {
    p->passes = v;
    return;
  }
  int written = p->rolled || c->strict_derivatives;
  cli_pipeline_kind kind = p->rolled ? CLI_PIPELINE_ROLLED : CLI_PIPELINE_NO_SLP;
  if (!written || c->opt_level < 2 ||
      cli_pipeline_text(kind, c->opt_level, p->pipeline, sizeof p->pipeline))
    snprintf(p->pipeline, sizeof p->pipeline, "default<O%d>", c->opt_level);
  p->passes = v && !*v ? "" : p->pipeline;
}

/* clang turns unrolling, interleaving and both vectorizers on from -O2.
 * (The default<O<N>> alias honours the first two; rolled's text says the
 * vectorizers itself.) */
static void tune(LLVMPassBuilderOptionsRef opts, const cli_args *c, int rolled) {
  int on = !rolled && c->opt_level >= 2;
  LLVMPassBuilderOptionsSetLoopUnrolling(opts, on);
  LLVMPassBuilderOptionsSetLoopInterleaving(opts, on);
  LLVMPassBuilderOptionsSetLoopVectorization(opts, on);
  LLVMPassBuilderOptionsSetSLPVectorization(opts, on);
}

static const char *const registration_names[] = {
    "__enzyme_register_derivative", "__enzyme_inactivefn",
    "__enzyme_function_like", "__enzyme_register_gradient"};

static int is_registration(LLVMValueRef g) {
  size_t n;
  const char *name = LLVMGetValueName2(g, &n);
  for (size_t i = 0; n && i < sizeof registration_names / sizeof *registration_names; i++)
    if (strstr(name, registration_names[i]))
      return 1;
  return 0;
}

/* What was changed for the pipeline, to be put back after it. */
typedef struct guard {
  struct opaque {
    LLVMValueRef fn;     /* a registered function, interposable meanwhile */
    LLVMLinkage linkage; /* its own */
    int noinline_added;  /* it had no noinline */
  } *inlined;
  size_t n_inlined, cap_inlined;
  struct hidden {
    LLVMValueRef global; /* a registration made external */
    LLVMLinkage linkage; /* its own */
  } *hidden;
  size_t n_hidden, cap_hidden;
  unsigned noinline, alwaysinline;
  int out_of_memory;
} guard;

static int grow(void **items, size_t *cap, size_t n, size_t size) {
  if (n < *cap)
    return 0;
  size_t grown = *cap ? *cap * 2 : 8;
  void *p = realloc(*items, grown * size);
  if (!p)
    return -1;
  *items = p;
  *cap = grown;
  return 0;
}

static int has_fn_attr(LLVMValueRef f, unsigned kind) {
  return LLVMGetEnumAttributeAtIndex(f, LLVMAttributeFunctionIndex, kind) != NULL;
}

/* Keeps calls to f calls that say nothing of f's body: not inlined, and
 * nothing learnt from the body either, which interprocedural passes would
 * otherwise use at the call (IPSCCP's returned constants, the `returned`
 * argument function-attrs infers, which instcombine then folds: a
 * registered stop-gradient `return x;` would leave `x` in the caller).
 * A weak definition may be replaced at link time, so no pass reads its
 * body for its callers. */
static void keep_out_of_inliner(guard *g, LLVMValueRef f) {
  /* alwaysinline conflicts with noinline (the verifier refuses both), and
   * the user asked for it; a declaration has no body to hide */
  if (has_fn_attr(f, g->alwaysinline) || LLVMIsDeclaration(f))
    return;
  for (size_t i = 0; i < g->n_inlined; i++)
    if (g->inlined[i].fn == f)
      return;
  if (grow((void **)&g->inlined, &g->cap_inlined, g->n_inlined, sizeof *g->inlined)) {
    g->out_of_memory = 1;
    return;
  }
  struct opaque o = {f, LLVMGetLinkage(f), !has_fn_attr(f, g->noinline)};
  if (o.noinline_added) {
    LLVMContextRef ctx = LLVMGetModuleContext(LLVMGetGlobalParent(f));
    LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex,
                            LLVMCreateEnumAttribute(ctx, g->noinline, 0));
  }
  LLVMSetLinkage(f, LLVMWeakAnyLinkage);
  g->inlined[g->n_inlined++] = o;
}

/* Every function an initializer refers to, through casts and nested
 * aggregates (a registration's entries are function pointers, possibly
 * cast, or in C++ a struct holding one).  Depth is bounded: initializers
 * of registrations are two or three levels deep. */
static void guard_functions_in(guard *g, LLVMValueRef c, int depth) {
  if (!c || depth > 8)
    return;
  if (LLVMIsAFunction(c)) {
    keep_out_of_inliner(g, c);
    return;
  }
  if (LLVMIsAGlobalValue(c) || !LLVMIsAConstant(c))
    return;
  int n = LLVMGetNumOperands(c);
  for (int i = 0; i < n; i++)
    guard_functions_in(g, LLVMGetOperand(c, (unsigned)i), depth + 1);
}

static void keep_registration(guard *g, LLVMValueRef gv) {
  LLVMLinkage l = LLVMGetLinkage(gv);
  if (l != LLVMInternalLinkage && l != LLVMPrivateLinkage)
    return;
  if (grow((void **)&g->hidden, &g->cap_hidden, g->n_hidden, sizeof *g->hidden)) {
    g->out_of_memory = 1;
    return;
  }
  g->hidden[g->n_hidden++] = (struct hidden){gv, l};
  LLVMSetLinkage(gv, LLVMExternalLinkage);
}

static void guard_registrations(guard *g, LLVMModuleRef m) {
  for (LLVMValueRef gv = LLVMGetFirstGlobal(m); gv; gv = LLVMGetNextGlobal(gv)) {
    if (!is_registration(gv))
      continue;
    guard_functions_in(g, LLVMGetInitializer(gv), 0);
    keep_registration(g, gv);
  }
}

static void release_guard(guard *g) {
  for (size_t i = 0; i < g->n_inlined; i++) {
    if (g->inlined[i].noinline_added)
      LLVMRemoveEnumAttributeAtIndex(g->inlined[i].fn,
                                     LLVMAttributeFunctionIndex, g->noinline);
    LLVMSetLinkage(g->inlined[i].fn, g->inlined[i].linkage);
  }
  for (size_t i = 0; i < g->n_hidden; i++)
    LLVMSetLinkage(g->hidden[i].global, g->hidden[i].linkage);
  free(g->inlined);
  free(g->hidden);
}

/* A target machine for the host, which the inliner's and instcombine's cost
 * models read (each function's own "target-cpu" still decides its code);
 * NULL when none can be made (the pipeline then runs with generic costs). */
static LLVMTargetMachineRef host_target_machine(int opt_level) {
  if (LLVMInitializeNativeTarget())
    return NULL;
  char *triple = LLVMGetDefaultTargetTriple();
  LLVMTargetRef target;
  char *msg = NULL;
  LLVMTargetMachineRef tm = NULL;
  if (!LLVMGetTargetFromTriple(triple, &target, &msg)) {
    char *cpu = LLVMGetHostCPUName(), *features = LLVMGetHostCPUFeatures();
    tm = LLVMCreateTargetMachine(target, triple, cpu, features,
                                 opt_level >= 3 ? LLVMCodeGenLevelAggressive
                                                : LLVMCodeGenLevelDefault,
                                 LLVMRelocDefault, LLVMCodeModelJITDefault);
    LLVMDisposeMessage(cpu);
    LLVMDisposeMessage(features);
  }
  LLVMDisposeMessage(msg);
  LLVMDisposeMessage(triple);
  return tm;
}

/* Parses m's text; the module, or NULL after printing why. */
static LLVMModuleRef parse(LLVMContextRef ctx, const cli_module *m) {
  /* A copy: LLVM's IR parser reads to a NUL past the end, which m->data
   * need not have. */
  LLVMMemoryBufferRef buf =
      LLVMCreateMemoryBufferWithMemoryRangeCopy(m->data, m->len, m->name);
  LLVMModuleRef mod = NULL;
  char *msg = NULL;
#if LLVM_VERSION_MAJOR >= 22
  LLVMBool failed = LLVMParseIRInContext2(ctx, buf, &mod, &msg);
  LLVMDisposeMemoryBuffer(buf);
#else
  LLVMBool failed = LLVMParseIRInContext(ctx, buf, &mod, &msg); /* takes buf */
#endif
  if (failed) {
    fprintf(stderr, "tanjit: cannot read the IR clang made of %s: %s\n", m->name,
            msg ? msg : "");
    mod = NULL;
  }
  LLVMDisposeMessage(msg);
  return mod;
}

int cli_pre_ad_applies(const cli_args *c) { return c->opt_level > 0; }

int cli_pre_ad(const cli_args *c, cli_module *m) {
  pre_ad_plan plan;
  plan_pre_ad(c, &plan);
  const char *passes = plan.passes;
  if (!*passes)
    return 0; /* --pre-ad='': clang's IR as it is */
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMModuleRef mod = parse(ctx, m);
  if (!mod) {
    LLVMContextDispose(ctx);
    return 1;
  }
  guard g = {.noinline = LLVMGetEnumAttributeKindForName("noinline", 8),
             .alwaysinline = LLVMGetEnumAttributeKindForName("alwaysinline", 12)};
  guard_registrations(&g, mod);
  int rc = 0;
  if (g.out_of_memory) {
    fputs("tanjit: out of memory\n", stderr);
    rc = 1;
  } else {
    LLVMTargetMachineRef tm = host_target_machine(c->opt_level);
    LLVMPassBuilderOptionsRef opts = LLVMCreatePassBuilderOptions();
    tune(opts, c, plan.rolled);
    /* Wide forward requests get a copy left rolled (wide_copy.c), under
     * clang's own pipeline only: --pre-ad=rolled or PASSES already say
     * what every function gets. */
    LLVMModuleRef wide = NULL;
    if (plan.passes == plan.pipeline && !plan.rolled && c->opt_level >= 2)
      wide = cli_wide_copy(mod, c->pre_ad_wide, c->opt_level, tm, opts);
    LLVMErrorRef e = LLVMRunPasses(mod, passes, tm, opts);
    if (!e && wide && cli_wide_copy_link(mod, wide)) {
      fprintf(stderr, "tanjit: cannot link the wide requests' copies into %s\n",
              m->name);
      rc = 1;
    } else if (e && wide) {
      LLVMDisposeModule(wide);
    }
    LLVMDisposePassBuilderOptions(opts);
    if (tm)
      LLVMDisposeTargetMachine(tm);
    if (e) {
      char *why = LLVMGetErrorMessage(e);
      fprintf(stderr, "tanjit: the passes before differentiation ('%s') failed on "
                      "%s: %s\n", passes, m->name, why);
      LLVMDisposeErrorMessage(why);
      rc = 1;
    }
  }
  release_guard(&g);
  if (rc == 0) {
    char *text = LLVMPrintModuleToString(mod);
    size_t len = strlen(text);
    char *copy = malloc(len + 1);
    if (!copy) {
      fputs("tanjit: out of memory\n", stderr);
      rc = 1;
    } else {
      memcpy(copy, text, len + 1);
      free(m->data);
      m->data = copy;
      m->len = len;
    }
    LLVMDisposeMessage(text);
  }
  LLVMDisposeModule(mod);
  LLVMContextDispose(ctx);
  return rc;
}

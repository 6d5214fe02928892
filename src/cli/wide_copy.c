/*
 * Vector-mode requests whose loops would spill pointers differentiate a
 * copy of their function that was not partially unrolled before
 * differentiation.
 *
 * clang's -O2 unrolls a short counted loop by a factor (a 32-element dot
 * product by 4).  Differentiated at width W, each memory stream of the loop
 * becomes 1 + W pointers (the primal's and one shadow per lane); when they
 * do not fit in the registers, every unrolled copy of the body reloads
 * them (docs/bench-side-by-side.md, matrix-vector w8).  The primal and the
 * narrow requests want the loop unrolled; such a tangent wants it rolled,
 * to be unrolled (or not) by the optimizer after differentiation.  So the
 * functions of vector-mode requests are cloned before the pre-AD pipeline,
 * the clones optimized by clang's pipeline with partial and runtime
 * unrolling off (full unrolling, vectorization and SLP as clang's), and a
 * request is pointed at its clone when one of the clone's rolled loops
 * needs streams x (W + 1) + 1 pointer registers, more than the target has
 * (`--pre-ad-wide=auto`; `all` takes every clone, `off` none).  Both are
 * the same function compiled by the same passes but one, so the clone
 * computes the primal values bit for bit as the original does (no pass
 * reorders float arithmetic without fast-math flags; with them, as under
 * -ffast-math, either form may sum a reduction in its own order;
 * tests/programs/wide_rolled_copy.c).
 *
 *   frontend IR A --clone--> B    (A keeps every function as it is)
 *   B: F renamed F.tanjit.wide; what no clone reaches dropped (strong
 *      external functions declared: A defines them); the pipeline without
 *      partial unrolling; then only what the clones need kept: strong
 *      external functions and variables become declarations, B's private
 *      code and constants stay B's own copies
 *   A: the requests that take a clone name F.tanjit.wide (declared);
 *      clang's pipeline; B linked into A (LLVMLinkModules2)
 *
 * No clone is made where it would not be the same program: a function
 * whose code reaches a mutable internal global (B's would be a second
 * variable), a module that registers derivatives or inactive functions
 * (their names must stay A's); and where anything fails on the way, the
 * requests stay on F and A is as it was.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Core.h>
#include <llvm-c/Linker.h>
#include <llvm-c/Transforms/PassBuilder.h>

#include "cli/pipeline_text.h"
#include "cli/wide_copy.h"

#define WIDE_SUFFIX ".tanjit.wide"
#define WIDE_NAME_MAX 512

int cli_wide_pipeline(int opt_level, char *out, size_t size) {
  return cli_pipeline_text(CLI_PIPELINE_WIDE, opt_level, out, size);
}

/* The pointer registers a loop body can hold without spilling, by the
 * module's target: general registers less the stack pointer; 0 where no
 * measurement says what a tangent loop wants (no copies there). */
static int pointer_registers(LLVMModuleRef m) {
  const char *triple = LLVMGetTarget(m);
  if (!strncmp(triple, "x86_64", 6))
    return 15;
  if (!strncmp(triple, "aarch64", 7) || !strncmp(triple, "arm64", 5))
    return 30;
  return 0;
}

/* A forward request's function (defined in its module) and constant width
 * (>= 2), recognised as the library recognises them on clang's IR: a call
 * to a function whose name starts with __enzyme_fwddiff, the function its
 * first argument, the marker `enzyme_width` (a load of that global, or its
 * address) followed by a constant; NULL for anything else. */
static LLVMValueRef wide_request(LLVMValueRef call, long *width) {
  if (!LLVMIsACallInst(call) && !LLVMIsAInvokeInst(call)) /* C++: invoke */
    return NULL;
  LLVMValueRef callee = LLVMGetCalledValue(call);
  size_t len;
  const char *name = callee && LLVMIsAFunction(callee) ? LLVMGetValueName2(callee, &len) : "";
  unsigned n = (unsigned)LLVMGetNumArgOperands(call);
  if (strncmp(name, "__enzyme_fwddiff", 16) || n < 1)
    return NULL;
  LLVMValueRef f = LLVMGetOperand(call, 0);
  if (!LLVMIsAFunction(f) || LLVMIsDeclaration(f))
    return NULL;
  for (unsigned i = 1; i + 1 < n; i++) {
    LLVMValueRef a = LLVMGetOperand(call, i);
    if (LLVMIsALoadInst(a))
      a = LLVMGetOperand(a, 0);
    if (!LLVMIsAGlobalVariable(a))
      continue;
    const char *marker = LLVMGetValueName2(a, &len);
    LLVMValueRef w = LLVMGetOperand(call, i + 1);
    if (strcmp(marker, "enzyme_width") || !LLVMIsAConstantInt(w))
      continue;
    *width = LLVMConstIntGetSExtValue(w);
    return *width >= 2 ? f : NULL;
  }
  return NULL;
}

/* One function wide requests differentiate: A's, its copy in B, the most
 * memory streams one of the copy's rolled loops reads or writes, and
 * whether some request takes the copy. */
typedef struct wide_target {
  LLVMValueRef fn, copy;
  int streams, taken;
} wide_target;

typedef struct wide_targets {
  wide_target *t;
  size_t n, cap;
} wide_targets;

static wide_target *target_of(wide_targets *t, LLVMValueRef f) {
  for (size_t i = 0; i < t->n; i++)
    if (t->t[i].fn == f)
      return &t->t[i];
  return NULL;
}

static int add_target(wide_targets *t, LLVMValueRef f) {
  if (target_of(t, f))
    return 0;
  if (t->n == t->cap) {
    size_t cap = t->cap ? 2 * t->cap : 4;
    wide_target *p = realloc(t->t, cap * sizeof *p);
    if (!p)
      return -1;
    t->t = p;
    t->cap = cap;
  }
  t->t[t->n++] = (wide_target){.fn = f};
  return 0;
}

#define EACH_INSTRUCTION(m, fn, b, i)                                                \
  for (LLVMValueRef fn = LLVMGetFirstFunction(m); fn; fn = LLVMGetNextFunction(fn))  \
    for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(fn); b;                          \
         b = LLVMGetNextBasicBlock(b))                                                 \
      for (LLVMValueRef i = LLVMGetFirstInstruction(b); i; i = LLVMGetNextInstruction(i))

static int find_targets(LLVMModuleRef m, wide_targets *t) {
  EACH_INSTRUCTION(m, fn, b, i) {
    long width;
    LLVMValueRef f = wide_request(i, &width);
    if (f && add_target(t, f))
      return -1;
  }
  return 0;
}

/* F's clone's name in buf; 0, or -1 when it does not fit (no clone). */
static int wide_name(LLVMValueRef f, char *buf, size_t size) {
  size_t len;
  const char *name = LLVMGetValueName2(f, &len);
  if (len + sizeof WIDE_SUFFIX > size)
    return -1;
  memcpy(buf, name, len);
  memcpy(buf + len, WIDE_SUFFIX, sizeof WIDE_SUFFIX);
  return 0;
}

static int is_local(LLVMValueRef g) {
  LLVMLinkage l = LLVMGetLinkage(g);
  return l == LLVMInternalLinkage || l == LLVMPrivateLinkage;
}

/* ---- memory streams of a rolled loop ------------------------------------ */

static int is_fp(LLVMTypeRef t) {
  if (LLVMGetTypeKind(t) == LLVMVectorTypeKind)
    t = LLVMGetElementType(t);
  switch (LLVMGetTypeKind(t)) {
  case LLVMHalfTypeKind: case LLVMBFloatTypeKind: case LLVMFloatTypeKind:
  case LLVMDoubleTypeKind: case LLVMX86_FP80TypeKind: case LLVMFP128TypeKind:
    return 1;
  default:
    return 0;
  }
}

static LLVMValueRef strip_constant_offset(LLVMValueRef v) {
  for (;;) {
    LLVMOpcode op = LLVMIsAInstruction(v) ? LLVMGetInstructionOpcode(v) : 0;
    if (op == LLVMSExt || op == LLVMZExt || op == LLVMTrunc) {
      v = LLVMGetOperand(v, 0);
    } else if ((op == LLVMAdd || op == LLVMOr || op == LLVMSub) &&
               LLVMIsAConstantInt(LLVMGetOperand(v, 1))) {
      v = LLVMGetOperand(v, 0);
    } else {
      return v;
    }
  }
}

/* A memory access's stream: the base pointer and the one varying index,
 * constant offsets taken off, so a[i-1], a[i] and a[i+1] are one stream
 * (one pointer register, its own and each lane's shadow). */
typedef struct stream {
  LLVMValueRef base, index;
} stream;

static stream stream_of(LLVMValueRef ptr) {
  for (;;) {
    if (!LLVMIsAGetElementPtrInst(ptr) && !(LLVMIsAConstantExpr(ptr) &&
                                            LLVMGetConstOpcode(ptr) == LLVMGetElementPtr))
      return (stream){ptr, NULL};
    unsigned n = (unsigned)LLVMGetNumOperands(ptr);
    LLVMValueRef varying = NULL;
    int several = 0;
    for (unsigned k = 1; k < n; k++) {
      LLVMValueRef idx = LLVMGetOperand(ptr, k);
      if (LLVMIsAConstantInt(idx))
        continue;
      several |= varying != NULL;
      varying = idx;
    }
    if (!varying) { /* a constant offset: the same stream as its base */
      ptr = LLVMGetOperand(ptr, 0);
      continue;
    }
    return (stream){LLVMGetOperand(ptr, 0), several ? ptr : strip_constant_offset(varying)};
  }
}

/* How many distinct streams the floating-point loads and stores of a loop
 * of one block (b branching to itself: an innermost loop the pipeline left
 * rolled) use; 0 when b is no such loop. */
static int loop_streams(LLVMBasicBlockRef b) {
  LLVMValueRef term = LLVMGetBasicBlockTerminator(b);
  int loops = 0;
  for (unsigned k = 0; term && k < LLVMGetNumSuccessors(term); k++)
    loops |= LLVMGetSuccessor(term, k) == b;
  if (!loops)
    return 0;
  enum { MAX_STREAMS = 64 };
  stream seen[MAX_STREAMS];
  int n = 0;
  for (LLVMValueRef i = LLVMGetFirstInstruction(b); i && n < MAX_STREAMS;
       i = LLVMGetNextInstruction(i)) {
    LLVMValueRef ptr;
    if (LLVMIsALoadInst(i) && is_fp(LLVMTypeOf(i)))
      ptr = LLVMGetOperand(i, 0);
    else if (LLVMIsAStoreInst(i) && is_fp(LLVMTypeOf(LLVMGetOperand(i, 0))))
      ptr = LLVMGetOperand(i, 1);
    else
      continue;
    stream s = stream_of(ptr);
    int known = 0;
    for (int k = 0; k < n && !known; k++)
      known = seen[k].base == s.base && seen[k].index == s.index;
    if (!known)
      seen[n++] = s;
  }
  return n;
}

static int most_streams(LLVMValueRef f) {
  int most = 0;
  for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(f); b; b = LLVMGetNextBasicBlock(b)) {
    int n = loop_streams(b);
    most = n > most ? n : most;
  }
  return most;
}

/* What code reachable from some functions names: the functions reached
 * (defined ones; with `locals_only`, only local ones are followed, the
 * others being A's at link), and whether a mutable internal global is
 * among what it names (or the walk ran out of memory: `unsure`). */
typedef struct reach {
  LLVMValueRef *fns;
  size_t n, cap;
  int locals_only, mutable_local, unsure;
} reach;

static int reached(const reach *r, LLVMValueRef f) {
  for (size_t i = 0; i < r->n; i++)
    if (r->fns[i] == f)
      return 1;
  return 0;
}

static void reach_value(reach *r, LLVMValueRef v, int depth);

static void reach_function(reach *r, LLVMValueRef f) {
  if (reached(r, f))
    return;
  if (r->n == r->cap) {
    size_t cap = r->cap ? 2 * r->cap : 16;
    LLVMValueRef *p = realloc(r->fns, cap * sizeof *p);
    if (!p) {
      r->unsure = 1;
      return;
    }
    r->fns = p;
    r->cap = cap;
  }
  r->fns[r->n++] = f;
  for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(f); b; b = LLVMGetNextBasicBlock(b))
    for (LLVMValueRef i = LLVMGetFirstInstruction(b); i; i = LLVMGetNextInstruction(i)) {
      int n = LLVMGetNumOperands(i);
      for (int k = 0; k < n; k++)
        reach_value(r, LLVMGetOperand(i, (unsigned)k), 0);
    }
}

static void reach_value(reach *r, LLVMValueRef v, int depth) {
  if (!v || depth > 8) {
    r->unsure |= depth > 8;
    return;
  }
  if (LLVMIsAFunction(v)) {
    if (!LLVMIsDeclaration(v) && (!r->locals_only || is_local(v)))
      reach_function(r, v);
    return;
  }
  if (LLVMIsAGlobalVariable(v)) {
    if (is_local(v) && !LLVMIsGlobalConstant(v))
      r->mutable_local = 1;
    /* a table of function pointers: what it points to is reached too */
    if (!LLVMIsDeclaration(v) && (!r->locals_only || is_local(v)))
      reach_value(r, LLVMGetInitializer(v), depth + 1);
    return;
  }
  if (!LLVMIsAConstant(v) || LLVMIsAGlobalValue(v))
    return;
  int n = LLVMGetNumOperands(v);
  for (int k = 0; k < n; k++)
    reach_value(r, LLVMGetOperand(v, (unsigned)k), depth + 1);
}

/* After B's pipeline: whether the copy uses no variable of its own. */
static int copy_is_private(LLVMValueRef copy) {
  reach r = {.locals_only = 1};
  reach_function(&r, copy);
  free(r.fns);
  return !r.mutable_local && !r.unsure;
}

static int declare_instead(LLVMModuleRef b, LLVMValueRef f);

/* Before B's pipeline: a copy whose code reaches a mutable internal
 * global is not made (B's own variable would be a second one, and with
 * the code that writes it dropped the pipeline could even take it for a
 * constant).  Then the functions no copy reaches are not optimized twice:
 * the strong external ones become declarations (A defines them), the
 * local ones are left to the pipeline's dead-code passes.  Whether any
 * copy is left. */
static int drop_unreached(LLVMModuleRef b, wide_targets *t) {
  int left = 0;
  for (size_t i = 0; i < t->n; i++) {
    if (!t->t[i].copy)
      continue;
    reach one = {0};
    reach_function(&one, t->t[i].copy);
    free(one.fns);
    if (one.mutable_local || one.unsure) {
      LLVMSetLinkage(t->t[i].copy, LLVMInternalLinkage);
      t->t[i].copy = NULL;
    }
    left |= t->t[i].copy != NULL;
  }
  if (!left)
    return 0;
  reach r = {0};
  for (size_t i = 0; i < t->n; i++)
    if (t->t[i].copy)
      reach_function(&r, t->t[i].copy);
  LLVMValueRef next;
  for (LLVMValueRef f = LLVMGetFirstFunction(b); !r.unsure && f; f = next) {
    next = LLVMGetNextFunction(f);
    if (!LLVMIsDeclaration(f) && LLVMGetLinkage(f) == LLVMExternalLinkage && !reached(&r, f))
      (void)declare_instead(b, f); /* kept when it fails: only optimized twice */
  }
  free(r.fns);
  return 1;
}

/* Whether a request of `width` lanes takes its function's copy: in auto
 * mode, when a rolled loop of the copy, differentiated, needs more pointer
 * registers than there are (each stream's pointer and one shadow per lane,
 * and the index), so that unrolling it before differentiation would only
 * repeat the spills (docs/bench-side-by-side.md, matrix-vector w8). */
static int takes_copy(const wide_target *t, long width, cli_wide_mode mode, int registers) {
  if (mode == CLI_WIDE_ALL)
    return 1;
  return registers > 0 && (long)t->streams * (width + 1) + 1 > registers;
}

/* Points the requests that take a copy at it, declared in A under the
 * copy's name (B's definition replaces the declaration at link). */
static void redirect_requests(LLVMModuleRef a, wide_targets *t, cli_wide_mode mode,
                              int registers) {
  EACH_INSTRUCTION(a, fn, b, i) {
    long width;
    LLVMValueRef f = wide_request(i, &width);
    wide_target *w = f ? target_of(t, f) : NULL;
    char name[WIDE_NAME_MAX];
    if (!w || !w->taken || !takes_copy(w, width, mode, registers) ||
        wide_name(f, name, sizeof name))
      continue;
    LLVMValueRef decl = LLVMGetNamedFunction(a, name);
    if (!decl)
      decl = LLVMAddFunction(a, name, LLVMGlobalGetValueType(f));
    LLVMSetOperand(i, 0, decl);
  }
}

/* Marks the targets some request takes the copy of. */
static int mark_taken(LLVMModuleRef a, wide_targets *t, cli_wide_mode mode, int registers) {
  int any = 0;
  EACH_INSTRUCTION(a, fn, b, i) {
    long width;
    LLVMValueRef f = wide_request(i, &width);
    wide_target *w = f ? target_of(t, f) : NULL;
    if (w && w->copy && takes_copy(w, width, mode, registers))
      any = w->taken = 1;
  }
  return any;
}

/* B's strong external function definition f becomes a declaration of the
 * same name (A defines it); 0, or -1 (out of memory) with f left. */
static int declare_instead(LLVMModuleRef b, LLVMValueRef f) {
  size_t len;
  char *name = strdup(LLVMGetValueName2(f, &len));
  if (!name)
    return -1;
  LLVMValueRef decl = LLVMAddFunction(b, "tanjit.wide.decl", LLVMGlobalGetValueType(f));
  LLVMReplaceAllUsesWith(f, decl);
  LLVMDeleteFunction(f);
  LLVMSetValueName2(decl, name, strlen(name));
  free(name);
  return 0;
}

static int is_wide(LLVMValueRef f) {
  size_t len;
  const char *name = LLVMGetValueName2(f, &len);
  return len >= sizeof WIDE_SUFFIX - 1 &&
         !strcmp(name + len - (sizeof WIDE_SUFFIX - 1), WIDE_SUFFIX);
}

/* Keeps in B only the clones and what they need that A does not give
 * them; 0, or -1 when the clones need a mutable internal global of their
 * own (then B is not linked). */
static int prune_copy(LLVMModuleRef b) {
  LLVMValueRef next;
  for (LLVMValueRef f = LLVMGetFirstFunction(b); f; f = next) {
    next = LLVMGetNextFunction(f);
    if (!LLVMIsDeclaration(f) && !is_wide(f) && LLVMGetLinkage(f) == LLVMExternalLinkage &&
        declare_instead(b, f))
      return -1; /* two definitions would not link */
  }
  for (LLVMValueRef g = LLVMGetFirstGlobal(b); g; g = LLVMGetNextGlobal(g))
    if (!LLVMIsDeclaration(g) && LLVMGetLinkage(g) == LLVMExternalLinkage)
      LLVMSetInitializer(g, NULL);
  LLVMPassBuilderOptionsRef opts = LLVMCreatePassBuilderOptions();
  LLVMErrorRef e = LLVMRunPasses(b, "globaldce", NULL, opts);
  LLVMDisposePassBuilderOptions(opts);
  if (e) {
    LLVMConsumeError(e);
    return -1;
  }
  for (LLVMValueRef g = LLVMGetFirstGlobal(b); g; g = LLVMGetNextGlobal(g))
    if (is_local(g) && !LLVMIsGlobalConstant(g))
      return -1;
  return 0;
}

static int has_registrations(LLVMModuleRef m) {
  for (LLVMValueRef g = LLVMGetFirstGlobal(m); g; g = LLVMGetNextGlobal(g)) {
    size_t len;
    if (strstr(LLVMGetValueName2(g, &len), "__enzyme_"))
      return 1;
  }
  return 0;
}

LLVMModuleRef cli_wide_copy(LLVMModuleRef a, cli_wide_mode mode, int opt_level,
                           LLVMTargetMachineRef tm, LLVMPassBuilderOptionsRef opts) {
  char pipeline[1024];
  int registers = pointer_registers(a);
  if (mode == CLI_WIDE_OFF || (mode == CLI_WIDE_AUTO && !registers) ||
      has_registrations(a) || cli_wide_pipeline(opt_level, pipeline, sizeof pipeline))
    return NULL;
  wide_targets t = {0};
  LLVMModuleRef b = NULL;
  if (find_targets(a, &t) || t.n == 0)
    goto done;
  b = LLVMCloneModule(a);
  for (size_t i = 0; b && i < t.n; i++) {
    size_t len;
    const char *name = LLVMGetValueName2(t.t[i].fn, &len);
    LLVMValueRef copy = LLVMGetNamedFunction(b, name);
    char w[WIDE_NAME_MAX];
    if (!copy || wide_name(t.t[i].fn, w, sizeof w))
      continue;
    LLVMSetValueName2(copy, w, strlen(w));
    LLVMSetLinkage(copy, LLVMExternalLinkage);
    LLVMSetVisibility(copy, LLVMDefaultVisibility);
    t.t[i].copy = copy;
  }
  if (!drop_unreached(b, &t))
    goto give_up;
  LLVMErrorRef e = LLVMRunPasses(b, pipeline, tm, opts);
  if (e) {
    LLVMConsumeError(e);
    goto give_up;
  }
  for (size_t i = 0; i < t.n; i++)
    if (t.t[i].copy && !copy_is_private(t.t[i].copy)) {
      LLVMSetLinkage(t.t[i].copy, LLVMInternalLinkage); /* globaldce's */
      t.t[i].copy = NULL;
    } else if (t.t[i].copy)
      t.t[i].streams = most_streams(t.t[i].copy);
  if (!mark_taken(a, &t, mode, registers))
    goto give_up;
  /* Copies no request takes go with the rest of B's code. */
  for (size_t i = 0; i < t.n; i++)
    if (t.t[i].copy && !t.t[i].taken)
      LLVMSetLinkage(t.t[i].copy, LLVMInternalLinkage);
  if (prune_copy(b))
    goto give_up;
  /* A is changed only once B is known to be linked into it. */
  redirect_requests(a, &t, mode, registers);
  goto done;
give_up:
  LLVMDisposeModule(b);
  b = NULL;
done:
  free(t.t);
  return b;
}

int cli_wide_copy_link(LLVMModuleRef a, LLVMModuleRef b) {
  if (LLVMLinkModules2(a, b)) /* takes b whatever it returns */
    return -1;
  /* External in B only to survive its pipeline; the module's own symbols
   * stay the module's. */
  for (LLVMValueRef f = LLVMGetFirstFunction(a); f; f = LLVMGetNextFunction(f))
    if (is_wide(f) && !LLVMIsDeclaration(f))
      LLVMSetLinkage(f, LLVMInternalLinkage);
  return 0;
}

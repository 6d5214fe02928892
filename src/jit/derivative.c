/*
 * Derivatives requested at run time (tanjit_fwddiff, and tanjit_autodiff,
 * whose wrapper calls __enzyme_autodiff instead: autodiff.c).
 *
 * Rather than a second way into the engine, a request becomes IR the engine
 * already understands: a module holding the pristine copies of the loaded
 * modules (their functions available_externally, their globals external
 * declarations, so the code and state stay those of the modules already
 * compiled) plus one wrapper
 *
 *   define <ret> @tanjit.fwddiff.<n>(<params>) {
 *     %d = call <ret> (...) @__enzyme_fwddiff(ptr @f, metadata !"enzyme_width",
 *              i64 W, metadata !"enzyme_dup", <x>, <dx>..., ...)
 *     ret <ret> %d
 *   }
 *
 * loaded like any module: the transform differentiates it, and the address
 * of the wrapper is the derivative.  Mutable module-private globals were
 * promoted to hidden external names at load (session.c), so the copy reads
 * and writes the same state as the original.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/alloc.h"
#include "common/strbuf.h"
#include "common/strmap.h"
#include "jit/jit.h"

typedef struct reach_set {
  strmap names; /* function name -> (void *)1 */
  LLVMValueRef *stack;
  size_t n, cap;
  int failed;
} reach_set;

static void push_function(reach_set *set, LLVMValueRef f) {
  size_t len;
  const char *name = LLVMGetValueName2(f, &len);
  if (!len || strmap_get(&set->names, name))
    return;
  if (strmap_put(&set->names, name, (void *)1) ||
      (set->n == set->cap &&
       !(set->stack = tj_realloc(set->stack, (set->cap = set->cap ? 2 * set->cap : 64) *
                                              sizeof *set->stack)))) {
    set->failed = 1;
    return;
  }
  set->stack[set->n++] = f;
}

/* Marks the functions a constant refers to (function pointers in tables). */
static void mark_constant(reach_set *seen, LLVMValueRef c, int depth) {
  if (!c || depth > 16)
    return;
  if (LLVMIsAFunction(c)) {
    push_function(seen, c);
    return;
  }
  if (LLVMIsAGlobalVariable(c)) {
    if (!LLVMIsDeclaration(c))
      mark_constant(seen, LLVMGetInitializer(c), depth + 1);
    return;
  }
  if (LLVMIsAConstant(c) && !LLVMIsAGlobalValue(c)) {
    int n = LLVMGetNumOperands(c);
    for (int i = 0; i < n; i++)
      mark_constant(seen, LLVMGetOperand(c, (unsigned)i), depth + 1);
  }
}

/* Whether f's body holds a derivative request of its own. */
static int holds_request(LLVMValueRef f) {
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb; bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i)) {
      if (!LLVMIsACallInst(i))
        continue;
      LLVMValueRef callee = LLVMGetCalledValue(i);
      if (callee && LLVMIsAFunction(callee) &&
          ad_request_kind_of(callee) != AD_NOT_A_REQUEST)
        return 1;
    }
  return 0;
}

/*
 * Turns into declarations the loaded functions that hold derivative
 * requests of their own and that `fn` cannot reach (by calls, through
 * constants such as function-pointer tables, or through any function whose
 * address is taken: a pointer to it may be passed in).  The run-time
 * request then neither redoes nor trips over the in-IR requests of
 * unrelated code.  Other bodies stay: the engine's indirect-call dispatch
 * looks for address-taken functions among them.  0, or -1 on out of memory.
 */
static int drop_unreachable_requests(LLVMModuleRef m, LLVMValueRef fn) {
  reach_set seen = {0};
  strmap_init(&seen.names);
  push_function(&seen, fn);
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
    if (!LLVMIsDeclaration(f) && ad_function_address_taken(f))
      push_function(&seen, f);
  while (seen.n && !seen.failed) {
    LLVMValueRef f = seen.stack[--seen.n];
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb; bb = LLVMGetNextBasicBlock(bb))
      for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i)) {
        int n = LLVMGetNumOperands(i);
        for (int k = 0; k < n; k++)
          mark_constant(&seen, LLVMGetOperand(i, (unsigned)k), 0);
      }
  }
  int failed = seen.failed;
  if (!failed)
    for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f)) {
      size_t len;
      const char *name = LLVMGetValueName2(f, &len);
      if (LLVMIsDeclaration(f) || (len && strmap_get(&seen.names, name)))
        continue;
      if (LLVMGetLinkage(f) != LLVMAvailableExternallyLinkage || !holds_request(f))
        continue;
      jit_drop_body(f);
      LLVMSetLinkage(f, LLVMExternalLinkage);
    }
  strmap_free(&seen.names);
  free(seen.stack);
  return failed ? -1 : 0;
}

static LLVMValueRef marker(LLVMContextRef ctx, const char *name) {
  return LLVMMetadataAsValue(ctx, LLVMMDStringInContext2(ctx, name, strlen(name)));
}

static int carries_tangent(LLVMTypeRef t) {
  switch (LLVMGetTypeKind(t)) {
  case LLVMHalfTypeKind: case LLVMBFloatTypeKind: case LLVMFloatTypeKind:
  case LLVMDoubleTypeKind: case LLVMX86_FP80TypeKind: case LLVMFP128TypeKind:
  case LLVMPPC_FP128TypeKind: case LLVMPointerTypeKind:
    return 1;
  case LLVMVectorTypeKind:
  case LLVMArrayTypeKind:
    return carries_tangent(LLVMGetElementType(t));
  case LLVMStructTypeKind: {
    unsigned n = LLVMCountStructElementTypes(t);
    for (unsigned i = 0; i < n; i++)
      if (carries_tangent(LLVMStructGetTypeAtIndex(t, i)))
        return 1;
    return 0;
  }
  default:
    return 0;
  }
}

/* Adds @wrapper calling __enzyme_fwddiff on @fn; NULL-free on success.
 * With `primal` (TANJIT_FWDDIFF_RETURN_PRIMAL) the request carries
 * enzyme_primal_return, as an in-IR request would, and its result is
 * declared [1 + width x R]: the primal, then the tangents. */
static int add_wrapper(LLVMModuleRef m, LLVMValueRef fn, const char *wrapper,
                       const tanjit_activity *act, unsigned width, int primal) {
  LLVMContextRef ctx = LLVMGetModuleContext(m);
  LLVMTypeRef fn_type = LLVMGlobalGetValueType(fn);
  unsigned np = LLVMCountParamTypes(fn_type);
  LLVMTypeRef *pt = tj_malloc((np ? np : 1) * sizeof *pt);
  LLVMTypeRef *wt = tj_malloc((np * (width + 1) + 1) * sizeof *wt);
  LLVMValueRef *args = tj_malloc((np * (width + 2) + 5) * sizeof *args);
  if (!pt || !wt || !args) {
    free(pt), free(wt), free(args);
    return -1;
  }
  LLVMGetParamTypes(fn_type, pt);
  LLVMTypeRef rt = LLVMGetReturnType(fn_type);
  /* Several results are written through a leading pointer: an array return
   * would not follow the C ABI of a struct of that many elements. */
  int through_pointer = 0;
  if (!carries_tangent(rt)) {
    if (!primal) /* with primal and no tangent: the primal alone */
      rt = LLVMVoidTypeInContext(ctx);
  } else if (primal || width > 1) {
    rt = LLVMArrayType2(rt, width + (primal ? 1 : 0));
    through_pointer = 1;
  }
  unsigned nw = 0;
  if (through_pointer)
    wt[nw++] = LLVMPointerTypeInContext(ctx, 0);
  for (unsigned p = 0; p < np; p++) {
    wt[nw++] = pt[p];
    if (act[p] != TANJIT_CONST)
      for (unsigned w = 0; w < width; w++)
        wt[nw++] = pt[p];
  }
  LLVMTypeRef wrapper_rt = through_pointer ? LLVMVoidTypeInContext(ctx) : rt;
  LLVMValueRef w =
      LLVMAddFunction(m, wrapper, LLVMFunctionType(wrapper_rt, wt, nw, 0));
  LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);
  LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(ctx, w, "entry"));
  unsigned na = 0, next_param = through_pointer ? 1 : 0;
  args[na++] = fn;
  if (primal)
    args[na++] = marker(ctx, "enzyme_primal_return");
  if (width > 1) {
    args[na++] = marker(ctx, "enzyme_width");
    args[na++] = LLVMConstInt(LLVMInt64TypeInContext(ctx), width, 0);
  }
  static const char *const names[] = {"enzyme_const", "enzyme_dup",
                                      "enzyme_dupnoneed"};
  for (unsigned p = 0; p < np; p++) {
    args[na++] = marker(ctx, names[act[p]]);
    args[na++] = LLVMGetParam(w, next_param++);
    if (act[p] != TANJIT_CONST)
      for (unsigned k = 0; k < width; k++)
        args[na++] = LLVMGetParam(w, next_param++);
  }
  LLVMTypeRef request_type = LLVMFunctionType(rt, NULL, 0, 1);
  LLVMValueRef request = LLVMGetNamedFunction(m, "__enzyme_fwddiff");
  if (!request)
    request = LLVMAddFunction(m, "__enzyme_fwddiff", request_type);
  LLVMValueRef d = LLVMBuildCall2(b, request_type, request, args, na, "");
  if (through_pointer) {
    LLVMBuildStore(b, d, LLVMGetParam(w, 0));
    LLVMBuildRetVoid(b);
  } else if (LLVMGetTypeKind(rt) == LLVMVoidTypeKind) {
    LLVMBuildRetVoid(b);
  } else {
    LLVMBuildRet(b, d);
  }
  LLVMDisposeBuilder(b);
  free(pt), free(wt), free(args);
  return 0;
}

/* The function of that name, or the module-private one the session
 * renamed at load (<name>.tanjit.m<N>, session.c) if exactly one is. */
static LLVMValueRef named_function(LLVMModuleRef m, const char *function) {
  LLVMValueRef fn = LLVMGetNamedFunction(m, function);
  if (fn && !LLVMIsDeclaration(fn))
    return fn;
  size_t want = strlen(function);
  LLVMValueRef found = NULL;
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f)) {
    size_t len;
    const char *name = LLVMGetValueName2(f, &len);
    size_t tag = sizeof TANJIT_PRIVATE_SUFFIX - 1;
    if (len > want + tag && memcmp(name, function, want) == 0 &&
        memcmp(name + want, TANJIT_PRIVATE_SUFFIX, tag) == 0 &&
        !LLVMIsDeclaration(f)) {
      if (found)
        return fn; /* two modules' private functions: ambiguous */
      found = f;
    }
  }
  return found ? found : fn;
}

/* An internal flag of a request: reverse mode (tanjit_autodiff). */
enum { REQUEST_REVERSE = 1u << 31 };

static const char *api_name(unsigned flags) {
  return flags & REQUEST_REVERSE ? "tanjit_autodiff" : "tanjit_fwddiff";
}

/* The request as the frontend made it, for messages:
 * "tanjit_fwddiff of f (dup, const; width 1)". */
static void describe_request(strbuf *sb, const char *function,
                             const tanjit_activity *act, size_t nargs,
                             unsigned width, unsigned flags) {
  static const char *const names[] = {"const", "dup", "dupnoneed", "active"};
  sb_printf(sb, "%s of %s (", api_name(flags), function);
  for (size_t i = 0; i < nargs; i++)
    sb_printf(sb, "%s%s", i ? ", " : "", names[act[i]]);
  sb_printf(sb, "%swidth %u%s)", nargs ? "; " : "", width,
            flags & TANJIT_FWDDIFF_RETURN_PRIMAL ? "; with primal" : "");
}

/*
 * A failed compile of the request's module speaks of the wrapper tanjit
 * made ("cannot compile 'tanjit.fwddiff.3'", "in tanjit.fwddiff.3"), a name
 * the frontend never saw: the message names the request instead.  An error
 * located in the wrapper (the request refused as a whole: a variadic
 * function, a result reverse mode cannot seed) is located at `function`,
 * with no instruction: the wrapper's call of __enzyme_fwddiff is tanjit's.
 */
static void name_the_request(tanjit_error *e, const char *wrapper,
                             const char *request, const char *function) {
  const char *where = tanjit_error_function(e);
  if (where && strcmp(where, wrapper) == 0)
    tj_error_set_location(e, function, NULL, NULL, 0, 0);
  const char *msg = tanjit_error_message(e);
  strbuf quoted, out;
  sb_init(&quoted);
  sb_init(&out);
  sb_printf(&quoted, "'%s': ", wrapper);
  const char *from = strstr(msg, request); /* the module's name, as loaded */
  const char *after_wrapper = quoted.data ? strstr(msg, quoted.data) : NULL;
  if (from)
    msg = from;
  else if (after_wrapper)
    msg = after_wrapper + quoted.len;
  if (!from)
    sb_printf(&out, "%s: ", request);
  /* the location the engine appends names the wrapper: drop it */
  size_t wlen = strlen(wrapper);
  for (const char *p = msg; *p;) {
    if (strncmp(p, " in ", 4) == 0 && strncmp(p + 4, wrapper, wlen) == 0) {
      p += 4 + wlen;
      continue;
    }
    sb_printf(&out, "%c", *p++);
  }
  if (!out.failed && out.data)
    tj_error_set_message(e, out.data);
  sb_free(&quoted);
  sb_free(&out);
}

/* What a request can be refused for before its function is found; its
 * activities are read only once their count is known to be the function's
 * (check_activities), since `act` may hold fewer than a wrong `nargs`. */
static int check_request(tanjit_session *s, const char *function,
                         const tanjit_activity *act, size_t nargs, unsigned width,
                         int reverse, tanjit_error **err) {
  const char *api = reverse ? "tanjit_autodiff" : "tanjit_fwddiff";
  if (!s || !function || (nargs && !act))
    return tj_fail(err, TANJIT_ERR_INVALID_ARGUMENT,
                   "%s: session, function and activities are required", api);
  if (width == 0 || width > AD_MAX_WIDTH)
    return tj_fail(err, TANJIT_ERR_INVALID_ARGUMENT,
                   "%s of %s: width %u is not in 1..%d", api, function,
                   width, AD_MAX_WIDTH);
  if (reverse && width != 1)
    return tj_fail(err, TANJIT_ERR_UNSUPPORTED,
                   "tanjit_autodiff of %s: width %u (vector reverse mode) is "
                   "not supported; the width must be 1",
                   function, width);
  return 0;
}

/* Each activity of a request whose count matched the parameters (only
 * then is `act` known to hold that many). */
static int check_activities(const char *function, const tanjit_activity *act,
                            size_t nargs, int reverse, tanjit_error **err) {
  const char *api = reverse ? "tanjit_autodiff" : "tanjit_fwddiff";
  for (size_t i = 0; i < nargs; i++) {
    if (act[i] == TANJIT_CONST || act[i] == TANJIT_DUP ||
        act[i] == TANJIT_DUPNONEED || (reverse && act[i] == TANJIT_ACTIVE))
      continue;
    if (act[i] == TANJIT_ACTIVE)
      return tj_fail(err, TANJIT_ERR_INVALID_ARGUMENT,
                     "tanjit_fwddiff of %s: parameter %zu is TANJIT_ACTIVE, "
                     "which is reverse mode's (tanjit_autodiff); forward mode "
                     "takes TANJIT_DUP",
                     function, i + 1);
    return tj_fail(err, TANJIT_ERR_INVALID_ARGUMENT,
                   "%s of %s: activity %d of parameter %zu is not "
                   "TANJIT_CONST, TANJIT_DUP or TANJIT_DUPNONEED%s",
                   api, function, (int)act[i], i + 1,
                   reverse ? " or TANJIT_ACTIVE" : "");
  }
  return 0;
}

/* The derivative cache's key for a request (sb_free it). */
static void request_key(strbuf *key, const char *function,
                        const tanjit_activity *act, size_t nargs,
                        unsigned width, unsigned flags) {
  sb_init(key);
  sb_printf(key, "%s/w%u/f%u/", function, width, flags);
  for (size_t i = 0; i < nargs; i++)
    sb_printf(key, "%d", (int)act[i]);
}

/*
 * The cache also says, under "<function>/n<N>" (never a request's key,
 * whose last part is digits), that `function` took N parameters when a
 * derivative still cached was made: its value is that derivative's
 * address, so the entry leaves the cache with it (tanjit_unload), and one
 * present means the function is still the one it was.  A repeat request
 * reads its activities only once its count is known to be right: `act`
 * may hold fewer than a wrong `nargs` says.
 */
static void arity_key(strbuf *key, const char *function, size_t nargs) {
  sb_init(key);
  sb_printf(key, "%s/n%zu", function, nargs);
}

/* The cached derivative of the request, or NULL.  Under jit_lock. */
static void *cached_derivative(tanjit_session *s, const char *function,
                               const tanjit_activity *act, size_t nargs,
                               unsigned width, unsigned flags) {
  strbuf key;
  arity_key(&key, function, nargs);
  void *address = NULL;
  if (!key.failed && strmap_get(&s->derivatives, key.data)) {
    sb_free(&key);
    request_key(&key, function, act, nargs, width, flags);
    if (!key.failed)
      address = strmap_get(&s->derivatives, key.data);
  }
  sb_free(&key);
  return address;
}

/* Caches a derivative, after its function's parameter count (a count
 * alone is still true).  0, or -1 on out of memory.  Under jit_lock. */
static int cache_derivative(tanjit_session *s, const char *function,
                            const tanjit_activity *act, size_t nargs,
                            unsigned width, unsigned flags, void *address) {
  strbuf key, arity;
  request_key(&key, function, act, nargs, width, flags);
  arity_key(&arity, function, nargs);
  int rc = key.failed || arity.failed ||
                   strmap_put(&s->derivatives, arity.data, address) ||
                   strmap_put(&s->derivatives, key.data, address)
               ? -1
               : 0;
  sb_free(&key);
  sb_free(&arity);
  return rc;
}

/* tanjit_fwddiff's work, on a big stack: it parses, transforms, compiles. */
static void *fwddiff_here(tanjit_session *s, const char *function,
                          const tanjit_activity *act, size_t nargs,
                          unsigned width, unsigned flags, tanjit_error **err) {
  /* One request at a time per session: a second thread asking for the same
   * derivative waits and then finds it cached. */
  pthread_mutex_lock(&s->jit_lock);
  void *address = cached_derivative(s, function, act, nargs, width, flags);
  if (address)
    goto done;

  jit_context c;
  jit_context_create(&c);
  jit_install_diagnostics(c.ctx, s);
  LLVMModuleRef m = jit_gather_views(s, c.ctx, NULL, NULL, err);
  LLVMValueRef fn = m ? named_function(m, function) : NULL;
  if (m && (!fn || LLVMIsDeclaration(fn))) {
    tj_fail(err, TANJIT_ERR_SYMBOL, "%s: no loaded module defines a function `%s`",
            api_name(flags), function);
  } else if (m && LLVMCountParams(fn) != nargs) {
    unsigned np = LLVMCountParams(fn);
    tj_fail(err, TANJIT_ERR_INVALID_ARGUMENT,
            "%s of %s: %zu activit%s given, but %s takes %u parameter%s",
            api_name(flags), function, nargs, nargs == 1 ? "y" : "ies",
            function, np, np == 1 ? "" : "s");
  } else if (m && check_activities(function, act, nargs,
                                   (flags & REQUEST_REVERSE) != 0, err)) {
    /* *err says which */
  } else if (m) {
    char wrapper[64];
    snprintf(wrapper, sizeof wrapper, "tanjit.%s.%lu",
             flags & REQUEST_REVERSE ? "autodiff" : "fwddiff",
             ++s->next_derivative_id);
    if (LLVMGetNamedFunction(m, wrapper) || LLVMGetNamedGlobal(m, wrapper)) {
      /* loads refuse such names (load.c): a module's function of the
       * wrapper's name must never be what this returns */
      tj_fail(err, TANJIT_ERR_INTERNAL,
              "%s of %s: a loaded module holds %s", api_name(flags), function,
              wrapper);
    } else if (drop_unreachable_requests(m, fn) ||
               (!(flags & REQUEST_REVERSE) &&
                add_wrapper(m, fn, wrapper, act, width,
                            flags & TANJIT_FWDDIFF_RETURN_PRIMAL))) {
      tj_fail(err, TANJIT_ERR_NO_MEMORY, "out of memory");
    } else if ((flags & REQUEST_REVERSE) &&
               jit_add_autodiff_wrapper(m, fn, wrapper, function, act, err)) {
      /* *err says why */
    } else {
      strbuf name;
      sb_init(&name);
      describe_request(&name, function, act, nargs, width, flags);
      const char *request = name.data ? name.data : api_name(flags);
      LLVMModuleRef module = m;
      m = NULL; /* jit_session_add_module takes the module and the context */
      tanjit_error *e = NULL;
      if (jit_session_add_module(s, &c, module, request, 1, &e) == 0 &&
          (address = tanjit_lookup(s, wrapper, &e)) &&
          cache_derivative(s, function, act, nargs, width, flags, address)) {
        tj_fail(&e, TANJIT_ERR_NO_MEMORY, "out of memory");
        address = NULL;
      }
      if (e)
        name_the_request(e, wrapper, request, function);
      if (err)
        *err = e;
      else
        tanjit_error_free(e);
      sb_free(&name);
      goto done;
    }
  }
  if (m)
    LLVMDisposeModule(m);
  jit_context_abandon(&c);
done:
  pthread_mutex_unlock(&s->jit_lock);
  return address;
}

typedef struct fwddiff_job {
  tanjit_session *session;
  const char *function;
  const tanjit_activity *act;
  size_t nargs;
  unsigned width, flags;
  tanjit_error **err;
  void *address;
} fwddiff_job;

static void fwddiff_on_big_stack(void *p) {
  fwddiff_job *j = p;
  j->address = fwddiff_here(j->session, j->function, j->act, j->nargs, j->width,
                            j->flags, j->err);
}

void *tanjit_fwddiff(tanjit_session *s, const char *function,
                     const tanjit_activity *act, size_t nargs, unsigned width,
                     tanjit_error **err) {
  return tanjit_fwddiff_with_flags(s, function, act, nargs, width, 0, err);
}

/* Both APIs' requests: the cache, else the request made on a big stack. */
static void *request_derivative(tanjit_session *s, const char *function,
                                const tanjit_activity *act, size_t nargs,
                                unsigned width, unsigned flags,
                                tanjit_error **err) {
  /* A repeat request is a hash lookup, with no thread to start. */
  pthread_mutex_lock(&s->jit_lock);
  void *cached = cached_derivative(s, function, act, nargs, width, flags);
  pthread_mutex_unlock(&s->jit_lock);
  if (cached)
    return cached;
  fwddiff_job job = {s, function, act, nargs, width, flags, err, NULL};
  if (jit_on_big_stack())
    fwddiff_on_big_stack(&job);
  else
    jit_run_on_big_stack(fwddiff_on_big_stack, &job);
  return job.address;
}

void *tanjit_fwddiff_with_flags(tanjit_session *s, const char *function,
                                const tanjit_activity *act, size_t nargs,
                                unsigned width, unsigned flags,
                                tanjit_error **err) {
  if (check_request(s, function, act, nargs, width, 0, err))
    return NULL;
  if (flags & ~(unsigned)TANJIT_FWDDIFF_RETURN_PRIMAL) {
    tj_fail(err, TANJIT_ERR_INVALID_ARGUMENT,
            "tanjit_fwddiff of %s: unknown flags 0x%x", function, flags);
    return NULL;
  }
  return request_derivative(s, function, act, nargs, width, flags, err);
}

void *tanjit_autodiff(tanjit_session *s, const char *function,
                      const tanjit_activity *act, size_t nargs, unsigned width,
                      tanjit_error **err) {
  if (check_request(s, function, act, nargs, width, 1, err))
    return NULL;
  return request_derivative(s, function, act, nargs, width, REQUEST_REVERSE,
                            err);
}

/*
 * Custom forward derivatives: rules a frontend supplies instead of the
 * engine's own, looked up before the built-in tables (registry/registry.c asks
 * ad_custom_lookup first).  Four sources, all Enzyme's:
 *
 *  1. In-IR registrations, read when a module is loaded (before anything
 *     copies it, so derivatives made later from the copy see them) and again
 *     when it is transformed, the way Enzyme's PreserveNVVM pass reads them.
 *     Each global is then erased (and dropped from llvm.used /
 *     llvm.compiler.used), or, once the JIT expects the module to define it,
 *     emptied to zeros, so it never references the functions at codegen:
 *       void *__enzyme_register_derivative_<x>[] = {(void *)f, (void *)df};
 *           -> !enzyme_derivative !{ptr @df} on f
 *       void *__enzyme_inactivefn[] = {(void *)g, ...};
 *           -> "enzyme_inactive" on g
 *       void *__enzyme_function_like[2] = {(void *)my_log, "log"};
 *           -> "enzyme_math"="log" on my_log (then the math table's rule)
 *       void *__enzyme_register_gradient_<x>[3] = {f, aug_f, rev_f};
 *           -> !enzyme_gradient !{ptr @aug_f, ptr @rev_f} on f (reverse
 *              mode's: rev/custom.c)
 *     Globals are recognized by "contains" on the name, as Enzyme does, so
 *     `__enzyme_inactivefn2` or a C++-mangled name works too.
 *  2. The "enzyme_inactive" function attribute on a declaration or on a call
 *     site: the call is kept, contributes a zero derivative and makes nothing
 *     active.
 *  3. tanjit_register_fwd_rule(s, "function", "derivative", flags): for a
 *     symbol with no IR.  It matches a call whose callee is named `function`,
 *     carries "enzyme_math"="function", or is the rename
 *     `ejlstr$function$lib` (or `ejlptr$function$handle`).  The derivative
 *     is declared in the module being transformed (external, under the
 *     replaced call's calling convention; `ejlstr$derivative$lib` next to an
 *     `ejlstr$function$lib` call, so it comes from the same RTLD_LOCAL
 *     library) and resolves at link like any external.  The latest
 *     registration of a name wins; registrations are guarded by a mutex, so
 *     they may race with transforms on other threads.
 *
 * The derivative's signature, for a call `R f(A1 a1, ..., An an)`:
 *
 *     R' df(A1 a1, [A1 da1,] ..., An an, [An dan])
 *
 *  - every argument in order; an argument whose type is a float, a float
 *    vector or a pointer is followed by its shadow: its tangent (0.0 when the
 *    argument is inactive) or, for a pointer, its shadow memory (the primal
 *    pointer itself when inactive, Enzyme's convention for constant
 *    pointers); other arguments (integers, aggregates) are passed alone;
 *  - R' is R, the tangent of the result (void for a void f): the primal call
 *    is kept and df is called beside it;
 *  - or R' is the literal struct `{ R, R }` = {primal, tangent}: then the
 *    primal call is NOT made, df computes the primal too.  For an in-IR
 *    registration this form is detected from df's type (as Enzyme does: a
 *    result equal to R is the tangent, a two-element struct of R is the
 *    pair); for tanjit_register_fwd_rule it is TANJIT_RULE_RETURNS_PRIMAL
 *    (with a void f, the flag means df does the primal work and returns
 *    void).  In C, `struct {double p, t;}` has this layout and return ABI on
 *    x86-64; `struct {float p, t;}` does not (C packs it into one register),
 *    so float rules should use the tangent-only form.
 *  - with vector width N > 1, df is called once per direction, each call
 *    given that lane of every shadow; with the pair form the primal comes
 *    from the first call.
 *
 * An in-IR df must have exactly this parameter list (count and types);
 * otherwise the transform fails naming f, df and what was expected.  A call
 * none of whose arguments is active is left alone (df is not called).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <llvm-c/DebugInfo.h>

#include "common/alloc.h"
#include "ad/ad.h"
#include "ad/analysis/activity.h"
#include "ad/core/context.h"
#include "ad/core/diag.h"
#include "ad/core/map.h"
#include "ad/ir/ir.h"
#include "ad/registry/registry.h"
#include "ad/rules/rules.h"
#include "ad/tangent/tangent.h"
#include "common/rename.h"
#include "common/strbuf.h"

/* ---- the registry of tanjit_register_fwd_rule ---- */

typedef struct custom_rule {
  ad_call_rule rule; /* rule.data points back here */
  char *function, *derivative;
  unsigned flags;
} custom_rule;

struct ad_custom_registry {
  pthread_mutex_t lock;
  /* Each rule is allocated on its own and freed only with the registry: a
   * transform on another thread may hold a pointer to it. */
  custom_rule **rules;
  size_t n, cap;
};

ad_custom_registry *ad_custom_registry_new(void) {
  ad_custom_registry *r = tj_calloc(1, sizeof *r);
  if (!r)
    return NULL;
  if (pthread_mutex_init(&r->lock, NULL) != 0) {
    free(r);
    return NULL;
  }
  return r;
}

void ad_custom_registry_free(ad_custom_registry *r) {
  if (!r)
    return;
  for (size_t i = 0; i < r->n; i++) {
    free(r->rules[i]->function);
    free(r->rules[i]->derivative);
    free(r->rules[i]);
  }
  free(r->rules);
  pthread_mutex_destroy(&r->lock);
  free(r);
}

int ad_custom_registry_has_rules(ad_custom_registry *r) {
  if (!r)
    return 0;
  pthread_mutex_lock(&r->lock);
  int any = r->n > 0;
  pthread_mutex_unlock(&r->lock);
  return any;
}

static int emit_registered(ad_fn_ctx *fc, const ad_call_rule *rule,
                           LLVMValueRef call, LLVMValueRef clone);

int ad_engine_register_rule(ad_engine *e, const char *function,
                            const char *derivative, unsigned flags,
                            tanjit_error **err) {
  if (!e || !function || !derivative || !*function || !*derivative)
    return tj_fail(err, TANJIT_ERR_INVALID_ARGUMENT,
                   "custom rule: engine, function and derivative names are "
                   "required");
  if (flags & ~(unsigned)TANJIT_RULE_RETURNS_PRIMAL)
    return tj_fail(err, TANJIT_ERR_INVALID_ARGUMENT,
                   "custom rule for %s: unknown flags 0x%x (only "
                   "TANJIT_RULE_RETURNS_PRIMAL is defined)",
                   function, flags);
  ad_custom_registry *r = ad_engine_custom(e);
  custom_rule *cr = tj_calloc(1, sizeof *cr);
  if (!r || !cr || !(cr->function = tj_strdup(function)) ||
      !(cr->derivative = tj_strdup(derivative))) {
    if (cr) {
      free(cr->function);
      free(cr);
    }
    return tj_fail(err, TANJIT_ERR_NO_MEMORY,
                   "custom rule for %s: out of memory", function);
  }
  cr->flags = flags;
  cr->rule.name = cr->function;
  cr->rule.emit = emit_registered;
  cr->rule.data = cr;
  /* df may write through any pointer it is given (its shadow). */
  cr->rule.writes_pointer_args = 1;
  int rc = 0;
  pthread_mutex_lock(&r->lock);
  if (r->n == r->cap) {
    size_t ncap = r->cap ? r->cap * 2 : 8;
    custom_rule **g = tj_realloc(r->rules, ncap * sizeof *g);
    if (g) {
      r->rules = g;
      r->cap = ncap;
    } else {
      rc = -1;
    }
  }
  if (rc == 0)
    r->rules[r->n++] = cr;
  pthread_mutex_unlock(&r->lock);
  if (rc) {
    free(cr->function);
    free(cr->derivative);
    free(cr);
    return tj_fail(err, TANJIT_ERR_NO_MEMORY,
                   "custom rule for %s: out of memory", function);
  }
  return 0;
}

/* The latest rule registered for `name`, or NULL. */
static const ad_call_rule *registered_rule(ad_custom_registry *r,
                                           const char *name) {
  const ad_call_rule *found = NULL;
  if (!r || !name)
    return NULL;
  pthread_mutex_lock(&r->lock);
  for (size_t i = r->n; i-- > 0 && !found;)
    if (strcmp(r->rules[i]->function, name) == 0)
      found = &r->rules[i]->rule;
  pthread_mutex_unlock(&r->lock);
  return found;
}

/* ---- in-IR registrations ---- */

static const char derivative_md[] = "enzyme_derivative";
static const char inactive_attr[] = "enzyme_inactive";

/* What a registration's entries are read through: casts, and the zero
 * offsets of typed-pointer IR (a string as a GEP of its array). */
enum { ENTRY_CASTS = AD_STRIP_INT_CASTS | AD_STRIP_GEPS };

/* Whether a constant is an array, struct or vector of constants (Enzyme's
 * ConstantAggregate).  Zero initializers and data arrays are not. */
static int is_aggregate(LLVMValueRef c) {
  return c && (LLVMIsAConstantArray(c) || LLVMIsAConstantStruct(c) ||
               LLVMIsAConstantVector(c));
}

/* The function an entry of a registration names: casts stripped, and a
 * nested aggregate stands for its first element (as in Enzyme). */
static LLVMValueRef entry_function(LLVMValueRef v) {
  v = ad_strip_casts(v, ENTRY_CASTS);
  if (is_aggregate(v) && LLVMGetNumOperands(v) > 0)
    v = ad_strip_casts(LLVMGetOperand(v, 0), ENTRY_CASTS);
  return v && LLVMIsAFunction(v) ? v : NULL;
}

static int name_contains(LLVMValueRef g, const char *what) {
  size_t n;
  const char *name = LLVMGetValueName2(g, &n);
  return n && strstr(name, what) != NULL;
}

static int registration_kind(LLVMValueRef g) {
  if (name_contains(g, "__enzyme_register_derivative"))
    return 1;
  if (name_contains(g, "__enzyme_register_gradient"))
    return 4;
  if (name_contains(g, "__enzyme_inactivefn"))
    return 2;
  if (name_contains(g, "__enzyme_function_like"))
    return 3;
  return 0;
}

static int bad_registration(tanjit_error **err, LLVMValueRef g,
                            const char *why) {
  return tj_fail(err, TANJIT_ERR_DIFFERENTIATE,
                 "in-IR registration %s: %s", ad_value_name(g), why);
}

/* The C string a constant global `"name"` holds, copied into buf. */
static int cstring_of(LLVMValueRef v, char *buf, size_t bufsize) {
  v = ad_strip_casts(v, ENTRY_CASTS);
  if (!v || !LLVMIsAGlobalVariable(v) || !LLVMIsGlobalConstant(v))
    return -1;
  LLVMValueRef init = LLVMGetInitializer(v);
  if (!init || !LLVMIsConstantString(init))
    return -1;
  size_t len;
  const char *s = LLVMGetAsString(init, &len);
  size_t n = strnlen(s, len);
  if (n == 0 || n >= bufsize)
    return -1;
  memcpy(buf, s, n);
  buf[n] = 0;
  return 0;
}

static void add_fn_string_attr(LLVMValueRef fn, const char *key,
                               const char *value) {
  LLVMContextRef c = LLVMGetModuleContext(LLVMGetGlobalParent(fn));
  LLVMAttributeRef a =
      LLVMCreateStringAttribute(c, key, (unsigned)strlen(key), value,
                                (unsigned)strlen(value));
  LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex, a);
}

static int read_derivative(LLVMValueRef g, LLVMValueRef init,
                           tanjit_error **err) {
  if (!is_aggregate(init) || LLVMGetNumOperands(init) < 2)
    return bad_registration(err, g,
                            "must be a constant array {function, derivative}");
  LLVMValueRef f = entry_function(LLVMGetOperand(init, 0));
  LLVMValueRef df = entry_function(LLVMGetOperand(init, 1));
  if (!f || !df)
    return bad_registration(err, g,
                            "both entries must be functions {function, "
                            "derivative}");
  LLVMContextRef c = LLVMGetModuleContext(LLVMGetGlobalParent(f));
  LLVMMetadataRef ref = LLVMValueAsMetadata(df);
  LLVMGlobalSetMetadata(
      f, LLVMGetMDKindIDInContext(c, derivative_md, sizeof derivative_md - 1),
      LLVMMDNodeInContext2(c, &ref, 1));
  return 0;
}

/* {f, augmented, reverse} -> !enzyme_gradient !{augmented, reverse} on f,
 * which reverse mode reads (rev/custom.c). */
static int read_gradient(LLVMValueRef g, LLVMValueRef init,
                         tanjit_error **err) {
  LLVMValueRef fns[3] = {NULL, NULL, NULL};
  if (is_aggregate(init) && LLVMGetNumOperands(init) >= 3)
    for (unsigned k = 0; k < 3; k++)
      fns[k] = entry_function(LLVMGetOperand(init, k));
  if (!fns[0] || !fns[1] || !fns[2])
    return bad_registration(err, g,
                            "must be a constant array of three functions "
                            "{function, augmented forward, reverse}");
  LLVMContextRef c = LLVMGetModuleContext(LLVMGetGlobalParent(fns[0]));
  LLVMMetadataRef refs[2] = {LLVMValueAsMetadata(fns[1]),
                             LLVMValueAsMetadata(fns[2])};
  LLVMGlobalSetMetadata(
      fns[0],
      LLVMGetMDKindIDInContext(c, AD_GRADIENT_MD, sizeof AD_GRADIENT_MD - 1),
      LLVMMDNodeInContext2(c, refs, 2));
  return 0;
}

static int read_inactive(LLVMValueRef g, LLVMValueRef init,
                         tanjit_error **err) {
  /* Enzyme reads the first entry; every function entry is taken here, so a
   * list of several functions does what it says. */
  int found = 0;
  if (is_aggregate(init)) {
    int n = LLVMGetNumOperands(init);
    for (int k = 0; k < n; k++) {
      LLVMValueRef fn = entry_function(LLVMGetOperand(init, (unsigned)k));
      if (fn) {
        add_fn_string_attr(fn, inactive_attr, "");
        found = 1;
      }
    }
  } else {
    LLVMValueRef fn = entry_function(init);
    if (fn) {
      add_fn_string_attr(fn, inactive_attr, "");
      found = 1;
    }
  }
  return found ? 0
               : bad_registration(err, g, "must hold a function pointer");
}

static int read_function_like(LLVMValueRef g, LLVMValueRef init,
                              tanjit_error **err) {
  if (!is_aggregate(init) || LLVMGetNumOperands(init) < 2)
    return bad_registration(err, g,
                            "must be a constant array {function, \"name\"}");
  LLVMValueRef fn = entry_function(LLVMGetOperand(init, 0));
  char name[256];
  if (!fn)
    return bad_registration(err, g, "its first entry must be a function");
  if (cstring_of(LLVMGetOperand(init, 1), name, sizeof name))
    return bad_registration(err, g,
                            "its second entry must be a non-empty constant C "
                            "string naming a known function");
  add_fn_string_attr(fn, "enzyme_math", name);
  return 0;
}

/* Rebuilds llvm.used / llvm.compiler.used without `g` (an appending array
 * changes type when it shrinks, so it is replaced, not edited). */
static void drop_from_used_lists(LLVMModuleRef m, LLVMValueRef g) {
  static const char *const lists[] = {"llvm.used", "llvm.compiler.used"};
  for (size_t l = 0; l < 2; l++) {
    LLVMValueRef used = LLVMGetNamedGlobal(m, lists[l]);
    LLVMValueRef init = used ? LLVMGetInitializer(used) : NULL;
    if (!init || !LLVMIsAConstantArray(init))
      continue;
    unsigned n = (unsigned)LLVMGetNumOperands(init), kept = 0;
    LLVMValueRef *keep = tj_malloc((n ? n : 1) * sizeof *keep);
    if (!keep)
      continue;
    for (unsigned k = 0; k < n; k++) {
      LLVMValueRef e = LLVMGetOperand(init, k);
      if (ad_strip_casts(e, ENTRY_CASTS) != g)
        keep[kept++] = e;
    }
    if (kept < n) {
      LLVMTypeRef et = LLVMGetElementType(LLVMTypeOf(init));
      if (kept) {
        LLVMValueRef arr = LLVMConstArray2(et, keep, kept);
        LLVMValueRef nu = LLVMAddGlobal(m, LLVMTypeOf(arr), "");
        LLVMSetInitializer(nu, arr);
        LLVMSetLinkage(nu, LLVMAppendingLinkage);
        LLVMSetSection(nu, "llvm.metadata");
        LLVMDeleteGlobal(used);
        LLVMSetValueName2(nu, lists[l], strlen(lists[l]));
      } else {
        LLVMDeleteGlobal(used);
      }
    }
    free(keep);
  }
}

/* Once read, a registration must neither reach codegen with its references
 * nor be differentiated.  Before the JIT sees the module it is erased; at
 * transform the JIT already expects the module to define every non-local
 * global, so such a definition is kept, emptied to zeros. */
static void retire_registration(LLVMModuleRef m, LLVMValueRef g, int at_load) {
  LLVMLinkage l = LLVMGetLinkage(g);
  int local = l == LLVMInternalLinkage || l == LLVMPrivateLinkage;
  if (!at_load && !local && LLVMGetInitializer(g)) {
    LLVMSetInitializer(g, LLVMConstNull(LLVMGlobalGetValueType(g)));
    LLVMSetGlobalConstant(g, 1);
    return;
  }
  drop_from_used_lists(m, g);
  if (LLVMGetFirstUse(g))
    LLVMReplaceAllUsesWith(g, LLVMConstNull(LLVMTypeOf(g)));
  LLVMDeleteGlobal(g);
}

int ad_custom_read_registrations(LLVMModuleRef m, int at_load,
                                 tanjit_error **err) {
  size_t n = 0, cap = 0;
  LLVMValueRef *found = NULL;
  for (LLVMValueRef g = LLVMGetFirstGlobal(m); g; g = LLVMGetNextGlobal(g)) {
    if (!registration_kind(g))
      continue;
    if (n == cap) {
      cap = cap ? cap * 2 : 8;
      LLVMValueRef *nf = tj_realloc(found, cap * sizeof *nf);
      if (!nf) {
        free(found);
        return tj_fail(err, TANJIT_ERR_NO_MEMORY,
                       "out of memory reading in-IR registrations");
      }
      found = nf;
    }
    found[n++] = g;
  }
  int rc = 0;
  for (size_t i = 0; i < n && rc == 0; i++) {
    LLVMValueRef g = found[i];
    LLVMValueRef init = LLVMGetInitializer(g);
    /* A declaration (a module that only sees another's registration, e.g.
     * a derivative's view of a loaded module) carries nothing to read. */
    if (init) {
      switch (registration_kind(g)) {
      case 1:
        rc = read_derivative(g, init, err);
        break;
      case 2:
        rc = read_inactive(g, init, err);
        break;
      case 4:
        rc = read_gradient(g, init, err);
        break;
      default:
        rc = read_function_like(g, init, err);
        break;
      }
    }
    if (rc == 0)
      retire_registration(m, g, at_load);
  }
  free(found);
  return rc;
}

/* The in-IR derivative registered for `fn` (from !enzyme_derivative), or
 * NULL. */
static LLVMValueRef in_ir_derivative(LLVMValueRef fn) {
  size_t n = 0;
  LLVMValueMetadataEntry *md = LLVMGlobalCopyAllMetadata(fn, &n);
  if (!md)
    return NULL;
  LLVMContextRef c = LLVMGetModuleContext(LLVMGetGlobalParent(fn));
  unsigned kind =
      LLVMGetMDKindIDInContext(c, derivative_md, sizeof derivative_md - 1);
  LLVMValueRef df = NULL;
  for (unsigned i = 0; i < n && !df; i++) {
    if (LLVMValueMetadataEntriesGetKind(md, i) != kind)
      continue;
    LLVMValueRef node =
        LLVMMetadataAsValue(c, LLVMValueMetadataEntriesGetMetadata(md, i));
    if (LLVMGetMDNodeNumOperands(node) >= 1) {
      LLVMValueRef op;
      LLVMGetMDNodeOperands(node, &op);
      df = entry_function(op);
    }
  }
  LLVMDisposeValueMetadataEntries(md);
  return df;
}

/* ---- the rules ---- */

static int emit_nothing(ad_fn_ctx *fc, const ad_call_rule *r, LLVMValueRef call,
                        LLVMValueRef clone) {
  (void)fc, (void)r, (void)call, (void)clone;
  return 0;
}

static int emit_in_ir(ad_fn_ctx *fc, const ad_call_rule *rule,
                      LLVMValueRef call, LLVMValueRef clone);

static const ad_call_rule inactive_rule = {
    .name = "enzyme_inactive", .emit = emit_nothing, .inactive = 1};
static const ad_call_rule in_ir_rule = {
    .name = "enzyme_derivative", .emit = emit_in_ir, .writes_pointer_args = 1};

static int has_inactive_attr(LLVMValueRef call, LLVMValueRef fn) {
  if (LLVMGetCallSiteStringAttribute(call, LLVMAttributeFunctionIndex,
                                     inactive_attr, sizeof inactive_attr - 1))
    return 1;
  return fn && LLVMGetStringAttributeAtIndex(fn, LLVMAttributeFunctionIndex,
                                             inactive_attr,
                                             sizeof inactive_attr - 1);
}

const ad_call_rule *ad_custom_lookup(const ad_engine *e, LLVMValueRef call) {
  LLVMValueRef fn = ad_called_function(call);
  if (has_inactive_attr(call, fn))
    return &inactive_rule;
  if (!fn)
    return NULL;
  if (in_ir_derivative(fn))
    return &in_ir_rule;
  ad_custom_registry *r = e ? ad_engine_custom(e) : NULL;
  if (!r)
    return NULL;
  size_t n;
  const char *plain = LLVMGetValueName2(fn, &n);
  const ad_call_rule *found = registered_rule(r, plain);
  if (!found) {
    char buf[256];
    const char *name = ad_call_rule_name(e, call, buf, sizeof buf);
    if (name && strcmp(name, plain) != 0)
      found = registered_rule(r, name);
  }
  return found;
}

int ad_custom_answers_function(const ad_engine *e, LLVMValueRef fn) {
  if (!fn)
    return 0;
  if (LLVMGetStringAttributeAtIndex(fn, LLVMAttributeFunctionIndex,
                                    inactive_attr, sizeof inactive_attr - 1) ||
      in_ir_derivative(fn))
    return 1;
  ad_custom_registry *r = e ? ad_engine_custom(e) : NULL;
  size_t n;
  return r && registered_rule(r, LLVMGetValueName2(fn, &n)) != NULL;
}

const ad_rule_family ad_custom_family = {
    .name = "custom",
    .lookup_call = ad_custom_lookup,
};

static int takes_shadow(LLVMTypeRef t) {
  return ad_type_is_float(t) || ad_type_is_pointerish(t);
}

static int any_active(ad_fn_ctx *fc, LLVMValueRef call) {
  if (ad_is_active(fc, call))
    return 1;
  unsigned n = LLVMGetNumArgOperands(call);
  for (unsigned k = 0; k < n; k++)
    if (ad_is_active(fc, LLVMGetOperand(call, k)))
      return 1;
  return 0;
}

/* The parameter types df must take for `call` (see the file comment);
 * *count gets their number.  NULL on out of memory. */
static LLVMTypeRef *derivative_params(LLVMValueRef call, unsigned *count) {
  unsigned na = LLVMGetNumArgOperands(call), k = 0;
  LLVMTypeRef *t = tj_malloc((2 * na + 1) * sizeof *t);
  if (!t)
    return NULL;
  for (unsigned i = 0; i < na; i++) {
    LLVMTypeRef at = LLVMTypeOf(LLVMGetOperand(call, i));
    t[k++] = at;
    if (takes_shadow(at))
      t[k++] = at;
  }
  *count = k;
  return t;
}

/*
 * Calls df (type ft, convention cc) next to `clone` once per lane and
 * records the call's shadow.  With `pair`, df returns {primal, tangent} and
 * replaces the primal call: the clone is erased and the call maps to the
 * primal df computed.  Without, df runs BEFORE the primal call, so a rule
 * for a function that updates memory in place reads the inputs, not the
 * results (Enzyme replaces the call; the primal call is kept here for its
 * result).
 */
static int call_derivative(ad_fn_ctx *fc, LLVMValueRef call, LLVMValueRef clone,
                           LLVMValueRef df, LLVMTypeRef ft, int pair) {
  ad_module_ctx *mc = fc->mc;
  LLVMValueRef after_clone = LLVMGetNextInstruction(clone);
  if (!pair)
    LLVMPositionBuilderBefore(fc->b, clone);
  unsigned na = LLVMGetNumArgOperands(call);
  unsigned np = LLVMCountParamTypes(ft);
  LLVMValueRef *shadows = tj_malloc((na + 1) * sizeof *shadows);
  LLVMValueRef *args = tj_malloc((np + 1) * sizeof *args);
  LLVMValueRef tangents[AD_MAX_WIDTH];
  if (!shadows || !args) {
    free(shadows);
    free(args);
    return ad_fail_code(mc, TANJIT_ERR_NO_MEMORY, call, "out of memory");
  }
  for (unsigned i = 0; i < na; i++) {
    LLVMValueRef a = LLVMGetOperand(call, i);
    shadows[i] = takes_shadow(LLVMTypeOf(a)) ? ad_shadow_value(fc, a) : NULL;
  }
  LLVMTypeRef rt = LLVMTypeOf(call);
  int has_result = LLVMGetTypeKind(rt) != LLVMVoidTypeKind;
  LLVMValueRef primal = NULL;
  LLVMMetadataRef loc = LLVMInstructionGetDebugLoc(call);
  for (unsigned lane = 0; lane < fc->width && lane < AD_MAX_WIDTH; lane++) {
    unsigned k = 0;
    for (unsigned i = 0; i < na; i++) {
      args[k++] = ad_primal(fc, LLVMGetOperand(call, i));
      if (shadows[i])
        args[k++] = ad_lane(fc, shadows[i], lane);
    }
    LLVMValueRef c = LLVMBuildCall2(fc->b, ft, df, args, k, "");
    LLVMSetInstructionCallConv(c, LLVMGetFunctionCallConv(df));
    if (loc)
      LLVMInstructionSetDebugLoc(c, loc);
    if (!has_result)
      continue;
    if (pair) {
      if (lane == 0)
        primal = LLVMBuildExtractValue(fc->b, c, 0, "");
      tangents[lane] = LLVMBuildExtractValue(fc->b, c, 1, "");
    } else {
      tangents[lane] = c;
    }
  }
  free(shadows);
  free(args);
  if (!pair) {
    /* back after the primal call, where the caller expects the builder */
    if (after_clone)
      LLVMPositionBuilderBefore(fc->b, after_clone);
    else
      LLVMPositionBuilderAtEnd(fc->b, LLVMGetInstructionParent(clone));
  }
  if (pair) {
    /* df did the primal work: the clone goes (nothing uses it yet; later
     * instructions map the call through vmap). */
    if (ad_map_put(&fc->vmap, call, primal) != 0)
      return ad_fail_code(mc, TANJIT_ERR_NO_MEMORY, call, "out of memory");
    LLVMInstructionEraseFromParent(clone);
  }
  if (has_result && ad_is_active(fc, call) && ad_type_can_carry(rt))
    ad_set_shadow(fc, call, ad_pack(fc, rt, tangents));
  return 0;
}

static int emit_registered(ad_fn_ctx *fc, const ad_call_rule *rule,
                           LLVMValueRef call, LLVMValueRef clone) {
  const custom_rule *cr = rule->data;
  if (!any_active(fc, call))
    return 0;
  if (fc->width > AD_MAX_WIDTH)
    return ad_fail(fc->mc, call, "custom rule for %s: width %u exceeds %d",
                   cr->function, fc->width, AD_MAX_WIDTH);
  unsigned np;
  LLVMTypeRef *pt = derivative_params(call, &np);
  if (!pt)
    return ad_fail_code(fc->mc, TANJIT_ERR_NO_MEMORY, call, "out of memory");
  LLVMTypeRef rt = LLVMTypeOf(call);
  int has_result = LLVMGetTypeKind(rt) != LLVMVoidTypeKind;
  int pair = (cr->flags & TANJIT_RULE_RETURNS_PRIMAL) != 0;
  LLVMTypeRef drt = rt;
  if (pair && has_result) {
    LLVMTypeRef two[2] = {rt, rt};
    drt = LLVMStructTypeInContext(fc->mc->llctx, two, 2, 0);
  }
  LLVMTypeRef ft = LLVMFunctionType(drt, pt, np, 0);
  free(pt);
  LLVMModuleRef m = fc->mc->mod;
  LLVMValueRef df;
  if (tj_parse_rename(cr->derivative, NULL) != 0) {
    /* already a rename (even a malformed one, which the JIT then reports):
     * declared as given */
    df = LLVMGetNamedFunction(m, cr->derivative);
    if (!df && !LLVMGetNamedGlobal(m, cr->derivative)) {
      df = LLVMAddFunction(m, cr->derivative, ft);
      LLVMSetFunctionCallConv(df, LLVMGetInstructionCallConv(call));
    }
  } else if (LLVMGetNamedGlobal(m, cr->derivative)) {
    df = NULL; /* a variable holds the name */
  } else {
    df = ad_get_or_insert_helper(m, call, cr->derivative, ft);
  }
  if (!df)
    return ad_fail(fc->mc, call,
                   "custom rule for %s: cannot declare its derivative %s in "
                   "this module (the name is taken by a variable)",
                   cr->function, cr->derivative);
  if (call_derivative(fc, call, clone, df, ft, pair && has_result))
    return -1;
  if (pair && !has_result) {
    /* a void f whose df does the primal work */
    ad_map_put(&fc->vmap, call, NULL);
    LLVMInstructionEraseFromParent(clone);
  }
  return 0;
}

static int emit_in_ir(ad_fn_ctx *fc, const ad_call_rule *rule,
                      LLVMValueRef call, LLVMValueRef clone) {
  (void)rule;
  LLVMValueRef fn = ad_called_function(call);
  LLVMValueRef df = fn ? in_ir_derivative(fn) : NULL;
  if (!df)
    return ad_fail(fc->mc, call, "internal: custom derivative of %s vanished",
                   fn ? ad_value_name(fn) : "?");
  if (!any_active(fc, call))
    return 0;
  if (fc->width > AD_MAX_WIDTH)
    return ad_fail(fc->mc, call, "custom derivative of %s: width %u exceeds %d",
                   ad_value_name(fn), fc->width, AD_MAX_WIDTH);
  LLVMTypeRef ft = LLVMGlobalGetValueType(df);
  unsigned np;
  LLVMTypeRef *want = derivative_params(call, &np);
  if (!want)
    return ad_fail_code(fc->mc, TANJIT_ERR_NO_MEMORY, call, "out of memory");
  unsigned have = LLVMCountParamTypes(ft);
  int bad = LLVMIsFunctionVarArg(ft) || have != np;
  if (!bad && np) {
    LLVMTypeRef *got = tj_malloc(np * sizeof *got);
    if (!got) {
      free(want);
      return ad_fail_code(fc->mc, TANJIT_ERR_NO_MEMORY, call, "out of memory");
    }
    LLVMGetParamTypes(ft, got);
    for (unsigned k = 0; k < np && !bad; k++)
      bad = got[k] != want[k];
    free(got);
  }
  free(want);
  if (bad)
    return ad_fail(fc->mc, call,
                   "custom derivative %s of %s does not take %u parameter%s of "
                   "the expected types (each argument of the call, every "
                   "float, float vector or pointer one followed by its shadow)",
                   ad_value_name(df), ad_value_name(fn), np, np == 1 ? "" : "s");
  LLVMTypeRef rt = LLVMTypeOf(call), drt = LLVMGetReturnType(ft);
  int pair = 0;
  if (LLVMGetTypeKind(rt) != LLVMVoidTypeKind && drt != rt) {
    pair = LLVMGetTypeKind(drt) == LLVMStructTypeKind &&
           LLVMCountStructElementTypes(drt) == 2 &&
           LLVMStructGetTypeAtIndex(drt, 0) == rt &&
           LLVMStructGetTypeAtIndex(drt, 1) == rt;
    if (!pair) {
      char *want_text = LLVMPrintTypeToString(rt);
      int rc = ad_fail(fc->mc, call,
                       "custom derivative %s of %s must return %s (the "
                       "tangent) or { %s, %s } (primal and tangent)",
                       ad_value_name(df), ad_value_name(fn), want_text,
                       want_text, want_text);
      LLVMDisposeMessage(want_text);
      return rc;
    }
  }
  return call_derivative(fc, call, clone, df, ft, pair);
}

/*
 * Which rule a call gets: the registered families in order (custom rules
 * first), by the call's rule name.
 */
#include <string.h>

#include "ad/ad.h"
#include "ad/ir/ir.h"
#include "ad/registry/registry.h"
#include "common/rename.h"

/*
 * The registered families, in the order they are asked: custom rules
 * first (they override the tables), then the inactive table (so that an
 * I/O or locale call never reaches a numeric family), then the built-in
 * families, and last the calls no family covers that never return (no
 * derivative of theirs is ever read).  Registering a family is one line
 * here; its descriptor is `ad_<id>_family`, defined in its own file.
 */
#define AD_RULE_FAMILIES(X)                                                    \
  X(custom)   /* rules/custom.c */                                             \
  X(inactive) /* registry/inactive.c */                                        \
  X(math)     /* rules/math.c */                                               \
  X(memory)   /* rules/memory.c */                                             \
  X(vector)   /* rules/vector.c */                                             \
  X(cuda)     /* rules/cuda.c */                                               \
  X(complex)  /* rules/complex.c */                                            \
  X(tree)     /* rules/tree.c */                                             \
  X(blas)     /* rules/blas.c */                                             \
  X(noreturn) /* registry/inactive.c: never returning, no rule, no body */

#define AD_DECLARE_FAMILY(id) extern const ad_rule_family ad_##id##_family;
AD_RULE_FAMILIES(AD_DECLARE_FAMILY)
#undef AD_DECLARE_FAMILY

static const ad_rule_family *const ad_rule_families[] = {
#define AD_LIST_FAMILY(id) &ad_##id##_family,
    AD_RULE_FAMILIES(AD_LIST_FAMILY)
#undef AD_LIST_FAMILY
};

#define AD_NFAMILIES (sizeof ad_rule_families / sizeof *ad_rule_families)

size_t ad_rule_family_count(void) { return AD_NFAMILIES; }

const ad_rule_family *ad_rule_family_at(size_t i) {
  return i < AD_NFAMILIES ? ad_rule_families[i] : NULL;
}

const char *ad_call_rule_name(const ad_engine *e, LLVMValueRef call, char *buf,
                              size_t bufsize) {
  LLVMValueRef fn = ad_called_function(call);
  if (!fn)
    return NULL;
  size_t n;
  const char *name = LLVMGetValueName2(fn, &n);
  (void)e; /* rule names come from the IR; registered rules are rules/custom.c's */
  /* the call site's tag first, as Enzyme reads it: a Julia ccall through
   * its GOT (jit/julia_plt.c) is bound to a declaration tagged with the
   * function's own name, which a frontend's "enzyme_math"="cos" on the
   * call must override */
  LLVMAttributeRef a = LLVMGetCallSiteStringAttribute(
      call, LLVMAttributeFunctionIndex, "enzyme_math", 11);
  if (!a)
    a = LLVMGetStringAttributeAtIndex(fn, LLVMAttributeFunctionIndex,
                                      "enzyme_math", 11);
  if (a) {
    unsigned len;
    const char *v = LLVMGetStringAttributeValue(a, &len);
    if (len < bufsize) {
      memcpy(buf, v, len);
      buf[len] = 0;
      return buf;
    }
  }
  tj_rename rn;
  if (tj_parse_rename(name, &rn) == 1 && rn.fn_len < bufsize) {
    memcpy(buf, rn.fn, rn.fn_len);
    buf[rn.fn_len] = 0;
    return buf;
  }
  return name;
}

const ad_call_rule *ad_find_call_rule_in(const ad_rule_family *const *families,
                                         size_t n, const ad_engine *e,
                                         LLVMValueRef call) {
  char buf[256];
  const char *name = NULL;
  int named = 0; /* the rule name is resolved once, when first needed */
  for (size_t i = 0; i < n; i++) {
    const ad_rule_family *f = families[i];
    const ad_call_rule *r = NULL;
    if (f->lookup_call) {
      r = f->lookup_call(e, call);
    } else if (f->lookup) {
      if (!named) {
        name = ad_call_rule_name(e, call, buf, sizeof buf);
        named = 1;
      }
      r = name ? f->lookup(name) : NULL;
    }
    if (r)
      return r;
  }
  return NULL;
}

const ad_call_rule *ad_find_call_rule(const ad_engine *e, LLVMValueRef call) {
  return ad_find_call_rule_in(ad_rule_families, AD_NFAMILIES, e, call);
}

const ad_typed_rule *ad_typed_rule_of(const char *name) {
  for (size_t i = 0; i < AD_NFAMILIES; i++) {
    const ad_typed_rule *r = ad_rule_families[i]->typed_lookup
                                 ? ad_rule_families[i]->typed_lookup(name)
                                 : NULL;
    if (r)
      return r;
  }
  return NULL;
}

unsigned long long ad_rule_handle_args(const ad_call_rule *r) {
  if (!r || !r->name)
    return 0;
  /* the typed row of the same name must be r itself: a custom rule or an
   * earlier family's row of that name classifies nothing */
  const ad_typed_rule *t = ad_typed_rule_of(r->name);
  if (!t || &t->rule != r || !t->arg_types)
    return 0;
  unsigned long long handles = 0;
  for (unsigned k = 0; t->arg_types[k] && k < 64; k++)
    if (t->arg_types[k] == 'h')
      handles |= 1ull << k;
  return handles;
}

void ad_rule_memo_init(ad_rule_memo *m) {
  ad_map_init(&m->rule);
  ad_map_init(&m->callee);
  m->lookups = 0;
}

void ad_rule_memo_free(ad_rule_memo *m) {
  ad_map_free(&m->rule);
  ad_map_free(&m->callee);
}

/* The memo's value for a call with no rule (NULL means "not asked yet"). */
static const char no_rule;

const ad_call_rule *ad_rule_of_call(ad_module_ctx *mc, LLVMValueRef call) {
  LLVMValueRef callee = LLVMGetCalledValue(call);
  void *known = ad_map_get(&mc->rules->rule, call);
  if (known && ad_map_get(&mc->rules->callee, call) == (void *)callee)
    return known == &no_rule ? NULL : known;
  const ad_call_rule *r = ad_find_call_rule(mc->engine, call);
  mc->rules->lookups++;
  /* out of memory only costs the memo */
  if (ad_map_put(&mc->rules->rule, call, r ? (void *)r : (void *)&no_rule) == 0)
    ad_map_put(&mc->rules->callee, call, callee);
  return r;
}

LLVMValueRef ad_declared_target_with_rule(ad_module_ctx *mc, LLVMValueRef call,
                                          LLVMValueRef f,
                                          const ad_call_rule **rule, int *oom) {
  *rule = NULL;
  if (!ad_may_be_declared_indirect_target(call, f))
    return NULL;
  LLVMValueRef w = ad_direct_call_wrapper(mc->mod, f);
  if (!w) {
    *oom = 1;
    return NULL;
  }
  LLVMValueRef direct = LLVMGetFirstInstruction(LLVMGetEntryBasicBlock(w));
  if ((*rule = ad_rule_of_call(mc, direct)) != NULL)
    return w;
  if (!LLVMGetFirstUse(w))
    LLVMDeleteFunction(w);
  return NULL;
}

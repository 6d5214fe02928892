/*
 * Which requests of a lazily compiled module are differentiated together,
 * when the first function holding one of them is compiled (lazy.c).
 *
 * Differentiating requests apart must make the code a whole-module
 * transform makes, bit for bit.  A derivative depends on the functions
 * the request's target reaches; two requests whose targets reach a common
 * function share its derivative in a whole-module transform (one private
 * function used by both: its own unit, partition.c), and a request whose
 * target reaches a function holding another request differentiates the
 * rewritten inner one.  So the functions holding requests are joined into
 * groups (union-find): two holders are in one group when their requests'
 * targets reach a common function, or one reaches the other.  A group is
 * differentiated at once, in a module of its holders and the bodies their
 * requests reach; what it makes is then what the whole module made for
 * those requests.  Each function is walked once (a walk stops where an
 * earlier one passed, joining its group), so planning is linear in the
 * module.
 *
 * The rest of a whole-module transform must not depend on the other
 * requests, so a module is planned only when (else it is differentiated
 * whole at its first lookup, as in eager mode):
 *   - every request is forward mode (__enzyme_fwddiff) naming a function
 *     with a body (reverse and split modes share tapes and helpers);
 *   - it has no mutable global (their activity is settled against every
 *     request of the module) but Enzyme's markers;
 *   - nothing its requests reach calls through a pointer (the candidates
 *     are every address-taken function of the module) or copies memory
 *     (a copy's layout may be read from the callers of its function);
 *   - nothing its requests reach is declared here and defined by another
 *     loaded module (that code comes in views, views.c, linked into the
 *     whole module).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/alloc.h"
#include "jit/jit.h"

typedef struct planner {
  tj_hashmap holder_index; /* holder -> index + 1 */
  LLVMValueRef *holders;
  size_t n_holders, cap_holders;
  size_t *parent;          /* union-find over holder indices */
  tj_hashmap owner;        /* walked function -> holder index + 1 */
  tj_hashmap declared;     /* declarations the walks reached -> 1 */
  LLVMValueRef *stack;
  size_t sp, cap_stack;
} planner;

static size_t find(planner *p, size_t i) {
  while (p->parent[i] != i)
    i = p->parent[i] = p->parent[p->parent[i]];
  return i;
}

static void join(planner *p, size_t a, size_t b) {
  a = find(p, a), b = find(p, b);
  if (a != b)
    p->parent[a < b ? b : a] = a < b ? a : b;
}

static int has_prefix(const char *s, size_t n, const char *prefix) {
  size_t k = strlen(prefix);
  return n >= k && memcmp(s, prefix, k) == 0;
}

/* A mutable global other than Enzyme's markers (enzyme_dup, ...) and
 * LLVM's own lists. */
static int has_mutable_global(LLVMModuleRef m) {
  for (LLVMValueRef g = LLVMGetFirstGlobal(m); g; g = LLVMGetNextGlobal(g)) {
    size_t n;
    const char *name = LLVMGetValueName2(g, &n);
    if (LLVMIsGlobalConstant(g) || has_prefix(name, n, "enzyme_") ||
        has_prefix(name, n, "llvm."))
      continue;
    return 1;
  }
  return 0;
}

/* The function a forward request names (after an sret pointer, as the
 * engine reads it), or NULL. */
static LLVMValueRef request_target(LLVMValueRef call) {
  unsigned n = LLVMGetNumArgOperands(call);
  LLVMValueRef t = n ? LLVMGetOperand(call, 0) : NULL;
  if (t && !LLVMIsAFunction(t) && n > 1)
    t = LLVMGetOperand(call, 1);
  return t && LLVMIsAFunction(t) ? t : NULL;
}

static int add_holder(planner *p, LLVMValueRef f, size_t *index) {
  uintptr_t k = (uintptr_t)tj_hashmap_get(&p->holder_index, f);
  if (k) {
    *index = k - 1;
    return 0;
  }
  if (p->n_holders == p->cap_holders) {
    size_t cap = p->cap_holders ? 2 * p->cap_holders : 16;
    LLVMValueRef *h = tj_realloc(p->holders, cap * sizeof *h);
    if (!h)
      return -1;
    p->holders = h;
    size_t *par = tj_realloc(p->parent, cap * sizeof *par);
    if (!par)
      return -1;
    p->parent = par;
    p->cap_holders = cap;
  }
  *index = p->n_holders;
  p->holders[p->n_holders] = f;
  p->parent[p->n_holders] = p->n_holders;
  p->n_holders++;
  return tj_hashmap_put(&p->holder_index, f, (void *)(uintptr_t)(*index + 1));
}

static int push(planner *p, LLVMValueRef f) {
  LLVMValueRef *s = tj_grow(p->stack, &p->cap_stack, p->sp + 1, sizeof *s, 64);
  if (!s)
    return -1;
  p->stack = s;
  p->stack[p->sp++] = f;
  return 0;
}

/* Whether a call's callee is a copy the engine may lay out from callers. */
static int is_copy(LLVMValueRef callee) {
  size_t n;
  const char *name = LLVMGetValueName2(callee, &n);
  return has_prefix(name, n, "llvm.memcpy") || has_prefix(name, n, "llvm.memmove") ||
         (n == 6 && memcmp(name, "memcpy", 6) == 0) ||
         (n == 7 && memcmp(name, "memmove", 7) == 0);
}

/*
 * Walks what the target of a request of holder `h` reaches, claiming each
 * function not walked before for h's group and joining the group of any
 * walked before or holding requests.  1 when the walk found nothing that
 * keeps the module from being planned, 0 when it did, -1 on out of memory.
 */
static int walk(planner *p, size_t h, LLVMValueRef target) {
  p->sp = 0;
  if (push(p, target))
    return -1;
  while (p->sp) {
    LLVMValueRef f = p->stack[--p->sp];
    uintptr_t k = (uintptr_t)tj_hashmap_get(&p->holder_index, f);
    if (k)
      join(p, h, k - 1);
    uintptr_t o = (uintptr_t)tj_hashmap_get(&p->owner, f);
    if (o) { /* its callees were walked by that walk */
      join(p, h, o - 1);
      continue;
    }
    size_t n;
    LLVMGetValueName2(f, &n);
    if (!n || tj_hashmap_put(&p->owner, f, (void *)(uintptr_t)(h + 1)))
      return n ? -1 : 0;
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb; bb = LLVMGetNextBasicBlock(bb))
      for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i)) {
        if (!LLVMIsACallInst(i) && !LLVMIsAInvokeInst(i))
          continue;
        LLVMValueRef callee = LLVMGetCalledValue(i);
        if (callee && LLVMIsAInlineAsm(callee))
          continue;
        if (!callee || !LLVMIsAFunction(callee) || is_copy(callee))
          return 0;
        if (LLVMIsDeclaration(callee)
                ? !LLVMGetIntrinsicID(callee) && !ad_is_request_function(callee) &&
                      tj_hashmap_put(&p->declared, callee, (void *)1)
                : push(p, callee))
          return -1;
      }
  }
  return 1;
}

/* Fills g from the walks; 0, or -1 on out of memory. */
static int record_groups(planner *p, jit_request_groups *g) {
  size_t *compact = tj_malloc((p->n_holders ? p->n_holders : 1) * sizeof *compact);
  if (!compact)
    return -1;
  for (size_t i = 0; i < p->n_holders; i++)
    compact[i] = 0;
  for (size_t i = 0; i < p->n_holders; i++) {
    size_t r = find(p, i);
    if (!compact[r])
      compact[r] = ++g->n_groups;
  }
  int rc = 0;
  for (size_t i = 0; i < p->n_holders && !rc; i++)
    rc = strmap_put(&g->holders, LLVMGetValueName2(p->holders[i], &(size_t){0}),
                    (void *)(uintptr_t)compact[find(p, i)]);
  for (size_t i = 0; i < p->owner.cap && !rc; i++) {
    if (!p->owner.keys[i])
      continue;
    size_t h = (uintptr_t)p->owner.vals[i] - 1;
    rc = strmap_put(&g->member, LLVMGetValueName2(p->owner.keys[i], &(size_t){0}),
                    (void *)(uintptr_t)compact[find(p, h)]);
  }
  for (size_t i = 0; i < p->n_holders && !rc; i++)
    rc = strmap_put(&g->member, LLVMGetValueName2(p->holders[i], &(size_t){0}),
                    (void *)(uintptr_t)compact[find(p, i)]);
  free(compact);
  return rc;
}

/* Whether another loaded module defines a function the walks reached
 * declared: its request would be differentiated through that module's
 * code (a view, views.c), which only a whole-module transform links. */
static int reaches_other_modules(tanjit_session *s, LLVMModuleRef m, planner *p,
                                 int *oom) {
  if (!p->declared.count)
    return 0;
  strmap elsewhere;
  strmap_init(&elsewhere);
  unsigned long id = jit_module_id_of(m);
  jit_session_lock(s);
  for (size_t i = 0; i < s->n_modules && !*oom; i++) {
    const jit_module *rec = &s->modules[i];
    if (rec->generated || rec->id == id)
      continue;
    for (size_t k = 0; k < rec->n_defined && !*oom; k++)
      *oom = strmap_put(&elsewhere, rec->defined[k], (void *)1) != 0;
  }
  jit_session_unlock(s);
  int found = 0;
  for (size_t i = 0; i < p->declared.cap && !found && elsewhere.count; i++)
    found = p->declared.keys[i] &&
            strmap_get(&elsewhere, LLVMGetValueName2(p->declared.keys[i], &(size_t){0}));
  strmap_free(&elsewhere);
  return found;
}

int jit_request_groups_plan(tanjit_session *s, LLVMModuleRef m,
                            jit_request_groups *g) {
  memset(g, 0, sizeof *g);
  strmap_init(&g->holders);
  strmap_init(&g->member);
  if (has_mutable_global(m))
    return 0;
  planner p;
  memset(&p, 0, sizeof p);
  tj_hashmap_init(&p.holder_index, TJ_KEYS_POINTERS);
  tj_hashmap_init(&p.owner, TJ_KEYS_POINTERS);
  tj_hashmap_init(&p.declared, TJ_KEYS_POINTERS);
  int rc = 1;
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f && rc == 1; f = LLVMGetNextFunction(f)) {
    ad_request_kind kind = ad_request_kind_of(f);
    if (kind == AD_NOT_A_REQUEST)
      continue;
    g->prepare = 1;
    if (kind != AD_REQUEST_FORWARD || !LLVMIsDeclaration(f)) {
      rc = 0;
      break;
    }
    for (LLVMUseRef u = LLVMGetFirstUse(f); u && rc == 1; u = LLVMGetNextUse(u)) {
      LLVMValueRef call = LLVMGetUser(u);
      if (!LLVMIsACallInst(call) || LLVMGetCalledValue(call) != f) {
        rc = 0;
        break;
      }
      LLVMValueRef holder = LLVMGetBasicBlockParent(LLVMGetInstructionParent(call));
      LLVMValueRef target = request_target(call);
      size_t h, n;
      LLVMGetValueName2(holder, &n);
      if (!target || LLVMIsDeclaration(target) || !n) {
        rc = 0;
        break;
      }
      if (add_holder(&p, holder, &h)) {
        rc = -1;
        break;
      }
      g->n_requests++;
      rc = walk(&p, h, target);
    }
  }
  int oom = 0;
  if (rc == 1 && reaches_other_modules(s, m, &p, &oom))
    rc = 0;
  if (oom)
    rc = -1;
  if (rc == 1 && record_groups(&p, g))
    rc = -1;
  tj_hashmap_free(&p.holder_index);
  tj_hashmap_free(&p.owner);
  tj_hashmap_free(&p.declared);
  free(p.holders);
  free(p.parent);
  free(p.stack);
  if (rc != 1)
    jit_request_groups_free(g);
  return rc;
}

void jit_request_groups_free(jit_request_groups *g) {
  strmap_free(&g->holders);
  strmap_free(&g->member);
  strmap_init(&g->holders);
  strmap_init(&g->member);
  g->n_groups = g->n_requests = 0;
  g->prepare = 0;
}

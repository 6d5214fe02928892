/*
 * Counted loops: what the tape need not record every iteration.
 *
 * A natural loop (found from the dominators of the reachable CFG) is
 * managed when its header has exactly two predecessors, one outside (the
 * preheader) and one inside (the latch), no block of it returns, every
 * edge leaving it is a two-way or plain branch to a distinct block, and its
 * header has an induction variable: a PHI whose latch value is itself plus
 * a nonzero constant (`add`/`sub` with nsw or nuw, or on 64 bits or more,
 * where wrapping back takes longer than any run; `getelementptr inbounds`
 * by a constant index).  Its values are distinct on every iteration of one
 * run of the loop, so in the reverse:
 *  - each induction variable lives in a slot of the reverse body, set when
 *    the reverse enters the loop (the reverse of an exit edge) and stepped
 *    back by the constant when the header's reverse goes to the latch;
 *  - the header's reverse knows the edge taken without an id: the
 *    iteration is the first when the counter equals its start value;
 *  - a value defined before the loop that the reverse of a block in it
 *    would record (and cannot recompute) is recorded once per run instead,
 *    when the loop is left, and read from a slot.
 * What the reverse needs at its entry into a loop goes in the exit record:
 * the final values of the induction variables (none for the counter when
 * the latch leaves on `icmp eq/ne next, N` with N a constant or parameter,
 * or one widened or narrowed: the final value is N minus the step; none
 * for another whose start is a constant or parameter either, when that
 * counter steps by one: it moved its step times as often), the
 * loop-invariant values asked for, and the id of the exiting block when
 * the exit block's reverse asks which predecessor ran.  The aug pushes it
 * on the exit edge (a block of its own on that edge), the reverse pops it
 * on the reverse edge, before the exiting block's reverse.  A loop run
 * with nothing to record in its blocks and a computable trip count leaves
 * nothing on the tape.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ad/core/context.h"
#include "ad/core/diag.h"
#include "ad/core/map.h"
#include "ad/ir/ir.h"
#include "ad/rev/rev.h"
#include "ad/tangent/tangent.h"
#include "common/alloc.h"

#define NONE ((size_t)-1)

typedef struct rev_iv {
  LLVMValueRef phi, start, next;
  LLVMValueRef delta; /* add/sub: next = phi + delta (an integer constant) */
  LLVMTypeRef gep_type; /* gep: next = gep gep_type, phi, delta */
  LLVMValueRef slot;    /* the reverse's copy (alloca) */
} rev_iv;

typedef struct rev_slotted {
  LLVMValueRef v;
  int shadow;
  LLVMValueRef slot;
} rev_slotted;

typedef struct rev_loop {
  size_t header, pre, latch;
  unsigned char *in; /* per rpo index */
  size_t parent;     /* the innermost loop containing this one, or NONE */
  int managed;
  rev_iv *ivs;
  size_t nivs, counter;
  rev_slotted *inv;
  size_t ninv, capinv;
  LLVMValueRef back; /* the reverse's branch from the header to the latch */
} rev_loop;

typedef struct rev_exit {
  size_t from, to;
  LLVMBasicBlockRef aug_edge, rev_edge;
  int with_id;
} rev_exit;

struct ad_rev_loops {
  rev_loop *l;
  size_t n;
  rev_exit *x;
  size_t nx;
  size_t *innermost; /* per rpo index: its innermost loop, or NONE */
  size_t *idom;      /* per rpo index: its immediate dominator */
};

static size_t index_of(ad_rev_fn *r, LLVMBasicBlockRef bb) {
  uintptr_t i = (uintptr_t)ad_map_get(&r->block_id, LLVMBasicBlockAsValue(bb));
  return i ? (size_t)i - 1 : NONE;
}

void ad_rev_loops_free(ad_rev_fn *r) {
  struct ad_rev_loops *ls = r->loops;
  if (!ls)
    return;
  for (size_t i = 0; i < ls->n; i++) {
    free(ls->l[i].in);
    free(ls->l[i].ivs);
    free(ls->l[i].inv);
  }
  free(ls->l);
  free(ls->x);
  free(ls->innermost);
  free(ls->idom);
  free(ls);
  r->loops = NULL;
}

/* Cooper, Harvey and Kennedy's iteration over rpo indices. */
static size_t intersect(const size_t *idom, size_t a, size_t b) {
  while (a != b) {
    while (a > b)
      a = idom[a];
    while (b > a)
      b = idom[b];
  }
  return a;
}

static int dominates(const size_t *idom, size_t a, size_t b) {
  while (b != a && b != 0)
    b = idom[b];
  return b == a;
}

static int nonzero_constant(LLVMValueRef c) {
  return c && LLVMIsAConstantInt(c) && LLVMConstIntGetSExtValue(c) != 0;
}

/* Whether phi (of a header with preheader block pre and latch block latch)
 * is an induction variable; fills iv. */
static int induction(LLVMValueRef phi, LLVMBasicBlockRef pre,
                     LLVMBasicBlockRef latch, rev_iv *iv) {
  if (LLVMCountIncoming(phi) != 2)
    return 0;
  LLVMValueRef start = NULL, next = NULL;
  for (unsigned k = 0; k < 2; k++) {
    if (LLVMGetIncomingBlock(phi, k) == pre)
      start = LLVMGetIncomingValue(phi, k);
    else if (LLVMGetIncomingBlock(phi, k) == latch)
      next = LLVMGetIncomingValue(phi, k);
  }
  /* an undef start compares equal to anything: the reverse could not
   * tell the first iteration */
  if (!start || !next || !LLVMIsAInstruction(next) || LLVMIsUndef(start))
    return 0;
  memset(iv, 0, sizeof *iv);
  iv->phi = phi;
  iv->start = start;
  iv->next = next;
  LLVMTypeRef t = LLVMTypeOf(phi);
  LLVMOpcode op = LLVMGetInstructionOpcode(next);
  if (LLVMGetTypeKind(t) == LLVMIntegerTypeKind &&
      (op == LLVMAdd || op == LLVMSub) && LLVMGetOperand(next, 0) == phi) {
    LLVMValueRef c = LLVMGetOperand(next, 1);
    if (!nonzero_constant(c))
      return 0;
    /* no repeated value in one run: no wrap (flags), or a wrap needing
     * more iterations than any run has (2^48 and more) */
    long long s = LLVMConstIntGetSExtValue(c);
    unsigned w = LLVMGetIntTypeWidth(t);
    unsigned tz = 0;
    for (unsigned long long u = (unsigned long long)s; !(u & 1) && tz < 64;
         u >>= 1)
      tz++;
    if (!LLVMGetNSW(next) && !LLVMGetNUW(next) && (w < 64 || w - tz < 48))
      return 0;
    iv->delta = op == LLVMAdd ? c
                              : LLVMConstInt(t, -(unsigned long long)s, 1);
    return 1;
  }
  if (op == LLVMGetElementPtr && LLVMGetOperand(next, 0) == phi &&
      LLVMGetNumOperands(next) == 2 && LLVMIsInBounds(next)) {
    LLVMValueRef c = LLVMGetOperand(next, 1);
    LLVMTypeRef et = LLVMGetGEPSourceElementType(next);
    /* a step over a zero-sized type never moves the pointer */
    LLVMTargetDataRef td = LLVMGetModuleDataLayout(LLVMGetGlobalParent(
        LLVMGetBasicBlockParent(LLVMGetInstructionParent(next))));
    if (!nonzero_constant(c) || !LLVMTypeIsSized(et) ||
        LLVMABISizeOfType(td, et) == 0)
      return 0;
    iv->delta = c;
    iv->gep_type = et;
    return 1;
  }
  return 0;
}

static int add_exit(struct ad_rev_loops *ls, size_t from, size_t to) {
  for (size_t i = 0; i < ls->nx; i++)
    if (ls->x[i].from == from && ls->x[i].to == to)
      return 0;
  rev_exit *g = tj_realloc(ls->x, (ls->nx + 1) * sizeof *g);
  if (!g)
    return -1;
  ls->x = g;
  memset(&ls->x[ls->nx], 0, sizeof ls->x[ls->nx]);
  ls->x[ls->nx].from = from;
  ls->x[ls->nx].to = to;
  ls->nx++;
  return 0;
}

static int never_finishes(LLVMBasicBlockRef bb) {
  LLVMOpcode op = LLVMGetInstructionOpcode(LLVMGetBasicBlockTerminator(bb));
  return op == LLVMUnreachable || op == LLVMResume;
}

/* Decides which loops are managed and lists their exit edges. */
static int manage(ad_rev_fn *r, struct ad_rev_loops *ls, rev_loop *L,
                  const size_t *npred) {
  size_t nb = r->nblocks;
  if (npred[L->header] != 2 || L->pre == NONE || L->latch == NONE)
    return 0;
  for (size_t b = 0; b < nb; b++) {
    if (!L->in[b])
      continue;
    LLVMValueRef term = LLVMGetBasicBlockTerminator(r->rpo[b]);
    if (LLVMGetInstructionOpcode(term) == LLVMRet)
      return 0;
    unsigned ns = LLVMGetNumSuccessors(term);
    for (unsigned k = 0; k < ns; k++) {
      size_t s = index_of(r, LLVMGetSuccessor(term, k));
      if (s == NONE || L->in[s] || never_finishes(r->rpo[s]))
        continue;
      if (!LLVMIsABranchInst(term) ||
          (ns == 2 && LLVMGetSuccessor(term, 0) == LLVMGetSuccessor(term, 1)))
        return 0;
    }
  }
  /* the induction variables */
  LLVMBasicBlockRef h = r->rpo[L->header];
  size_t cap = 0;
  for (LLVMValueRef i = LLVMGetFirstInstruction(h); i && LLVMIsAPHINode(i);
       i = LLVMGetNextInstruction(i)) {
    rev_iv iv;
    if (!induction(i, r->rpo[L->pre], r->rpo[L->latch], &iv))
      continue;
    if (L->nivs == cap) {
      cap = cap ? 2 * cap : 4;
      rev_iv *g = tj_realloc(L->ivs, cap * sizeof *g);
      if (!g)
        return -1;
      L->ivs = g;
    }
    L->ivs[L->nivs++] = iv;
  }
  if (!L->nivs)
    return 0;
  /* the counter: one whose start costs nothing to read, if any */
  L->counter = 0;
  for (size_t k = 0; k < L->nivs; k++)
    if (!LLVMIsAInstruction(L->ivs[k].start)) {
      L->counter = k;
      break;
    }
  L->managed = 1;
  for (size_t b = 0; b < nb; b++) {
    if (!L->in[b])
      continue;
    LLVMValueRef term = LLVMGetBasicBlockTerminator(r->rpo[b]);
    unsigned ns = LLVMGetNumSuccessors(term);
    for (unsigned k = 0; k < ns; k++) {
      size_t s = index_of(r, LLVMGetSuccessor(term, k));
      if (s != NONE && !L->in[s] && !never_finishes(r->rpo[s]) &&
          add_exit(ls, b, s) != 0)
        return -1;
    }
  }
  return 0;
}

int ad_rev_plan_loops(ad_rev_fn *r) {
  size_t nb = r->nblocks, ne = 0;
  struct ad_rev_loops *ls = tj_calloc(1, sizeof *ls);
  size_t *idom = tj_malloc((nb ? nb : 1) * sizeof *idom);
  size_t *npred = tj_calloc(nb ? nb : 1, sizeof *npred);
  size_t *pstart = tj_calloc(nb + 1, sizeof *pstart);
  size_t *stack = tj_malloc((nb ? nb : 1) * sizeof *stack);
  size_t *size = NULL, *plist = NULL;
  int rc = 0;
  r->loops = ls;
  if (!ls || !idom || !npred || !pstart || !stack ||
      !(ls->innermost = tj_malloc((nb ? nb : 1) * sizeof *ls->innermost))) {
    rc = -1;
    goto out;
  }
  for (size_t i = 0; i < nb; i++)
    idom[i] = NONE, ls->innermost[i] = NONE;
  if (nb)
    idom[0] = 0;
  /* distinct predecessors (CSR), then the dominator tree */
  for (int pass = 0; pass < 2; pass++) {
    for (size_t i = 0; i < nb; i++) {
      LLVMValueRef term = LLVMGetBasicBlockTerminator(r->rpo[i]);
      unsigned ns = LLVMGetNumSuccessors(term);
      for (unsigned k = 0; k < ns; k++) {
        int repeat = 0;
        for (unsigned j = 0; j < k; j++)
          repeat |= LLVMGetSuccessor(term, j) == LLVMGetSuccessor(term, k);
        size_t s = index_of(r, LLVMGetSuccessor(term, k));
        if (repeat || s == NONE)
          continue;
        if (pass == 0)
          npred[s]++, ne++;
        else
          plist[pstart[s] + npred[s]++] = i;
      }
    }
    if (pass == 0) {
      for (size_t i = 0; i < nb; i++)
        pstart[i + 1] = pstart[i] + npred[i];
      memset(npred, 0, (nb ? nb : 1) * sizeof *npred);
      if (!(plist = tj_malloc((ne ? ne : 1) * sizeof *plist))) {
        rc = -1;
        goto out;
      }
    }
  }
  for (int changed = 1; changed;) {
    changed = 0;
    for (size_t i = 1; i < nb; i++) {
      size_t d = NONE;
      for (size_t q = pstart[i]; q < pstart[i + 1]; q++) {
        size_t p = plist[q];
        if (idom[p] != NONE)
          d = d == NONE ? p : intersect(idom, p, d);
      }
      if (d != NONE && idom[i] != d) {
        idom[i] = d;
        changed = 1;
      }
    }
  }
  /* natural loops: one per header, the union of its back edges' loops */
  for (size_t u = 0; u < nb && rc == 0; u++) {
    LLVMValueRef term = LLVMGetBasicBlockTerminator(r->rpo[u]);
    unsigned ns = LLVMGetNumSuccessors(term);
    for (unsigned k = 0; k < ns && rc == 0; k++) {
      size_t h = index_of(r, LLVMGetSuccessor(term, k));
      if (h == NONE || !dominates(idom, h, u))
        continue;
      rev_loop *L = NULL;
      for (size_t j = 0; j < ls->n; j++)
        if (ls->l[j].header == h)
          L = &ls->l[j];
      if (!L) {
        rev_loop *g = tj_realloc(ls->l, (ls->n + 1) * sizeof *g);
        if (!g) {
          rc = -1;
          break;
        }
        ls->l = g;
        L = &ls->l[ls->n++];
        memset(L, 0, sizeof *L);
        L->header = h;
        L->pre = L->latch = L->parent = NONE;
        if (!(L->in = tj_calloc(nb, 1))) {
          rc = -1;
          break;
        }
        L->in[h] = 1;
      }
      L->latch = L->latch == NONE || L->latch == u ? u : nb; /* nb: several */
      size_t sp = 0;
      if (!L->in[u]) {
        L->in[u] = 1;
        stack[sp++] = u;
      }
      while (sp) {
        size_t b = stack[--sp];
        for (size_t q = pstart[b]; q < pstart[b + 1]; q++)
          if (!L->in[plist[q]]) {
            L->in[plist[q]] = 1;
            stack[sp++] = plist[q];
          }
      }
    }
  }
  if (rc || !ls->n)
    goto out;
  if (!(size = tj_calloc(ls->n, sizeof *size))) {
    rc = -1;
    goto out;
  }
  for (size_t j = 0; j < ls->n; j++) {
    rev_loop *L = &ls->l[j];
    if (L->latch == nb)
      L->latch = NONE;
    /* the preheader: the header's one predecessor outside */
    for (size_t q = pstart[L->header]; q < pstart[L->header + 1]; q++)
      if (!L->in[plist[q]])
        L->pre = L->pre == NONE ? plist[q] : nb;
    if (L->pre == nb)
      L->pre = NONE;
    for (size_t b = 0; b < nb; b++)
      size[j] += L->in[b];
  }
  /* nesting: the smallest enclosing loop */
  for (size_t j = 0; j < ls->n; j++) {
    size_t best = NONE;
    for (size_t o = 0; o < ls->n; o++)
      if (o != j && ls->l[o].in[ls->l[j].header] &&
          (best == NONE || size[o] < size[best]))
        best = o;
    ls->l[j].parent = best;
  }
  for (size_t b = 0; b < nb; b++) {
    size_t best = NONE;
    for (size_t o = 0; o < ls->n; o++)
      if (ls->l[o].in[b] && (best == NONE || size[o] < size[best]))
        best = o;
    ls->innermost[b] = best;
  }
  for (size_t j = 0; j < ls->n && rc == 0; j++)
    rc = manage(r, ls, &ls->l[j], npred);
out:
  if (ls)
    ls->idom = idom;
  else
    free(idom);
  free(npred);
  free(pstart);
  free(plist);
  free(stack);
  free(size);
  if (rc)
    return ad_fail_code(r->mc, TANJIT_ERR_NO_MEMORY, NULL, "out of memory");
  return 0;
}

int ad_rev_loops_dominates(ad_rev_fn *r, size_t a, size_t b) {
  struct ad_rev_loops *ls = r->loops;
  return ls && ls->idom && a < r->nblocks && b < r->nblocks &&
         dominates(ls->idom, a, b);
}

static rev_exit *exit_of(ad_rev_fn *r, size_t from, size_t to) {
  struct ad_rev_loops *ls = r->loops;
  for (size_t i = 0; ls && i < ls->nx; i++)
    if (ls->x[i].from == from && ls->x[i].to == to)
      return &ls->x[i];
  return NULL;
}

int ad_rev_loops_exit_carries_id(ad_rev_fn *r, size_t from, size_t to) {
  rev_exit *x = exit_of(r, from, to);
  if (!x || !x->aug_edge)
    return 0;
  x->with_id = 1;
  return 1;
}

int ad_rev_loops_split_aug(ad_rev_fn *r) {
  struct ad_rev_loops *ls = r->loops;
  ad_fn_ctx *fc = &r->fc;
  for (size_t i = 0; ls && i < ls->nx; i++) {
    rev_exit *x = &ls->x[i];
    LLVMValueRef fromv =
        ad_map_get(&fc->exit_block, LLVMBasicBlockAsValue(r->rpo[x->from]));
    LLVMValueRef tov = ad_map_get(&fc->vmap, LLVMBasicBlockAsValue(r->rpo[x->to]));
    if (!fromv || !tov)
      continue;
    LLVMBasicBlockRef to = LLVMValueAsBasicBlock(tov);
    LLVMValueRef term = LLVMGetBasicBlockTerminator(LLVMValueAsBasicBlock(fromv));
    x->aug_edge =
        LLVMAppendBasicBlockInContext(r->mc->llctx, r->aug, "loop.exit");
    LLVMBuilderRef b = LLVMCreateBuilderInContext(r->mc->llctx);
    LLVMPositionBuilderAtEnd(b, x->aug_edge);
    LLVMBuildBr(b, to);
    LLVMDisposeBuilder(b);
    unsigned ns = LLVMGetNumSuccessors(term);
    for (unsigned k = 0; k < ns; k++)
      if (LLVMGetSuccessor(term, k) == to)
        LLVMSetSuccessor(term, k, x->aug_edge);
  }
  return 0;
}

LLVMBasicBlockRef ad_rev_loops_aug_edge(ad_rev_fn *r, LLVMBasicBlockRef from,
                                        LLVMBasicBlockRef to) {
  rev_exit *x = exit_of(r, index_of(r, from), index_of(r, to));
  return x ? x->aug_edge : NULL;
}

LLVMBasicBlockRef ad_rev_loops_to_pred(ad_rev_fn *r, size_t s, size_t pi) {
  rev_exit *x = exit_of(r, pi, s);
  if (!x || !x->aug_edge)
    return r->heads[pi];
  if (!x->rev_edge) {
    x->rev_edge =
        LLVMAppendBasicBlockInContext(r->mc->llctx, r->rev, "loop.enter");
    LLVMBuilderRef b = LLVMCreateBuilderInContext(r->mc->llctx);
    LLVMPositionBuilderAtEnd(b, x->rev_edge);
    LLVMBuildBr(b, r->heads[pi]);
    LLVMDisposeBuilder(b);
  }
  return x->rev_edge;
}

static LLVMValueRef new_slot(ad_rev_fn *r, LLVMTypeRef t) {
  LLVMPositionBuilderBefore(r->eb, r->entry_term);
  return LLVMBuildAlloca(r->eb, t, "loop.slot");
}

static rev_loop *managed_header(ad_rev_fn *r, size_t index) {
  struct ad_rev_loops *ls = r->loops;
  for (size_t i = 0; ls && i < ls->n; i++)
    if (ls->l[i].managed && ls->l[i].header == index)
      return &ls->l[i];
  return NULL;
}

int ad_rev_loops_is_managed_header(ad_rev_fn *r, size_t index) {
  return managed_header(r, index) != NULL;
}

/* v as an induction variable of a managed loop containing block, or NULL. */
static rev_iv *iv_at(ad_rev_fn *r, LLVMValueRef v, size_t block) {
  struct ad_rev_loops *ls = r->loops;
  if (!ls || !LLVMIsAPHINode(v) || block >= r->nblocks)
    return NULL;
  size_t h = index_of(r, LLVMGetInstructionParent(v));
  rev_loop *L = h == NONE ? NULL : managed_header(r, h);
  if (!L || !L->in[block])
    return NULL;
  for (size_t k = 0; k < L->nivs; k++)
    if (L->ivs[k].phi == v)
      return &L->ivs[k];
  return NULL;
}

int ad_rev_loops_has_iv(ad_rev_fn *r, LLVMValueRef v, size_t block) {
  return iv_at(r, v, block) != NULL;
}

LLVMValueRef ad_rev_loops_iv_slot(ad_rev_fn *r, LLVMValueRef v, int shadow) {
  rev_iv *iv = shadow ? NULL : iv_at(r, v, r->cur_block);
  if (!iv)
    return NULL;
  if (!iv->slot)
    iv->slot = new_slot(r, LLVMTypeOf(v));
  return iv->slot;
}

/* The outermost managed loop containing block and not v's definition,
 * inside the innermost loop containing both (its exits record v once per
 * run), or NULL. */
static rev_loop *invariant_loop(ad_rev_fn *r, LLVMValueRef v, size_t block) {
  struct ad_rev_loops *ls = r->loops;
  if (!ls || !LLVMIsAInstruction(v) || block >= r->nblocks)
    return NULL;
  size_t d = index_of(r, LLVMGetInstructionParent(v));
  if (d == NONE)
    return NULL;
  rev_loop *best = NULL;
  for (size_t j = ls->innermost[block]; j != NONE; j = ls->l[j].parent) {
    if (ls->l[j].in[d])
      break;
    if (ls->l[j].managed)
      best = &ls->l[j];
  }
  return best;
}

int ad_rev_loops_has_invariant(ad_rev_fn *r, LLVMValueRef v, size_t block) {
  return invariant_loop(r, v, block) != NULL;
}

size_t ad_rev_loops_idom(ad_rev_fn *r, size_t b) {
  struct ad_rev_loops *ls = r->loops;
  return ls && ls->idom && b < r->nblocks && ls->idom[b] != NONE
             ? ls->idom[b]
             : r->nblocks;
}

int ad_rev_loops_same_loop(ad_rev_fn *r, size_t a, size_t b) {
  struct ad_rev_loops *ls = r->loops;
  if (!ls || a >= r->nblocks || b >= r->nblocks)
    return !ls;
  return ls->innermost[a] == ls->innermost[b];
}

LLVMValueRef ad_rev_loops_invariant_slot(ad_rev_fn *r, LLVMValueRef v,
                                         int shadow) {
  rev_loop *best = invariant_loop(r, v, r->cur_block);
  if (!best)
    return NULL;
  for (size_t k = 0; k < best->ninv; k++)
    if (best->inv[k].v == v && best->inv[k].shadow == shadow)
      return best->inv[k].slot;
  if (best->ninv == best->capinv) {
    size_t cap = best->capinv ? 2 * best->capinv : 8;
    rev_slotted *g = tj_realloc(best->inv, cap * sizeof *g);
    if (!g) {
      ad_fail_code(r->mc, TANJIT_ERR_NO_MEMORY, NULL, "out of memory");
      return NULL;
    }
    best->inv = g;
    best->capinv = cap;
  }
  LLVMTypeRef t =
      LLVMTypeOf(shadow == 2 ? ad_map_get(&r->recorded, v) : v);
  rev_slotted *s = &best->inv[best->ninv++];
  s->v = v;
  s->shadow = shadow;
  s->slot = new_slot(r, t);
  return s->slot;
}

/* The reverse of a managed header: the first iteration when the counter
 * is at its start, else every induction variable steps back and the
 * latch's reverse runs.  Adds the PHIs' adjoints to the edge taken. */
int ad_rev_loops_route_header(ad_rev_fn *r, size_t index, LLVMValueRef *phis,
                              LLVMValueRef *ds, unsigned n) {
  rev_loop *L = managed_header(r, index);
  LLVMContextRef c = r->mc->llctx;
  rev_iv *cv = &L->ivs[L->counter];
  LLVMValueRef now = ad_rev_primal(r, cv->phi);
  LLVMValueRef start = ad_rev_primal(r, cv->start);
  if (r->mc->diag.failed)
    return -1;
  LLVMValueRef first = LLVMBuildICmp(r->rb, LLVMIntEQ, now, start, "first");
  LLVMBasicBlockRef to_pre = LLVMAppendBasicBlockInContext(c, r->rev, "loop.first");
  LLVMBasicBlockRef to_latch = LLVMAppendBasicBlockInContext(c, r->rev, "loop.back");
  LLVMBuildCondBr(r->rb, first, to_pre, to_latch);
  LLVMBasicBlockRef preds[2] = {r->rpo[L->pre], r->rpo[L->latch]};
  LLVMBasicBlockRef at[2] = {to_pre, to_latch};
  size_t pis[2] = {L->pre, L->latch};
  for (int e = 0; e < 2; e++) {
    LLVMPositionBuilderAtEnd(r->rb, at[e]);
    for (unsigned j = 0; j < n; j++) {
      unsigned ni = LLVMCountIncoming(phis[j]);
      for (unsigned k = 0; k < ni; k++)
        if (LLVMGetIncomingBlock(phis[j], k) == preds[e]) {
          ad_rev_accumulate(r, LLVMGetIncomingValue(phis[j], k), ds[j], phis[j]);
          break;
        }
    }
    LLVMValueRef br = LLVMBuildBr(r->rb, ad_rev_loops_to_pred(r, index, pis[e]));
    if (e == 1)
      L->back = br;
  }
  return r->mc->diag.failed ? -1 : 0;
}

/* The final value of iv on the exit edge from block `from`, when the
 * latch's branch gives it (`icmp eq next, N` leaving on true, `ne` on
 * false, N a constant or parameter): N - delta at b; else NULL. */
static LLVMValueRef final_from_exit(ad_rev_fn *r, rev_loop *L, rev_iv *iv,
                                    rev_exit *x, LLVMBuilderRef b) {
  if (x->from != L->latch || iv->gep_type)
    return NULL;
  LLVMValueRef term = LLVMGetBasicBlockTerminator(r->rpo[x->from]);
  if (!LLVMIsConditional(term))
    return NULL;
  LLVMValueRef cmp = LLVMGetCondition(term);
  if (!LLVMIsAICmpInst(cmp))
    return NULL;
  LLVMIntPredicate p = LLVMGetICmpPredicate(cmp);
  int exit_on_true = LLVMGetSuccessor(term, 0) == r->rpo[x->to];
  if (!((p == LLVMIntEQ && exit_on_true) || (p == LLVMIntNE && !exit_on_true)))
    return NULL;
  LLVMValueRef a = LLVMGetOperand(cmp, 0), n = LLVMGetOperand(cmp, 1);
  if (n == iv->next) {
    LLVMValueRef t = a;
    a = n;
    n = t;
  }
  if (a != iv->next)
    return NULL;
  /* N, or N widened or narrowed (an `int n` bound of a 64-bit index) */
  LLVMOpcode cast = LLVMIsACastInst(n) ? LLVMGetInstructionOpcode(n) : 0;
  LLVMValueRef base = n;
  if (cast == LLVMZExt || cast == LLVMSExt || cast == LLVMTrunc)
    base = LLVMGetOperand(n, 0);
  else if (cast)
    return NULL;
  LLVMValueRef nv = NULL;
  if (LLVMIsAConstantInt(base))
    nv = base;
  else if (LLVMIsAArgument(base))
    nv = ad_map_get(&r->rparam, base);
  if (!nv)
    return NULL;
  if (base != n)
    nv = LLVMBuildCast(b, cast, nv, LLVMTypeOf(n), "trip");
  return LLVMBuildSub(b, nv, iv->delta, "iv.final");
}

/* A loop-invariant integer the reverse has without a record: a constant
 * or a parameter; else NULL. */
static LLVMValueRef free_in_reverse(ad_rev_fn *r, LLVMValueRef v) {
  if (LLVMIsAConstantInt(v))
    return v;
  if (LLVMIsAArgument(v))
    return ad_map_get(&r->rparam, v);
  return NULL;
}

/* The final value of integer iv on exit x, from another induction
 * variable of L whose final value the latch's branch gives
 * (final_from_exit) and which steps by 1 or -1: the loop ran t = (its
 * final - its start) * its step iterations past the first, so iv ends at
 * its start + t * iv's step.  Exact in wrapping arithmetic, whatever the
 * flags.  Both starts must be free in the reverse (free_in_reverse), the
 * two types one.  (A pointer induction variable's loads are recorded, so
 * none is asked for here.)  n-body's triangular loop: the inner
 * start j = i + 1 is an induction variable of the outer loop beside i,
 * and its final value is no longer recorded.  NULL when none fits. */
static LLVMValueRef final_in_step(ad_rev_fn *r, rev_loop *L, rev_iv *iv,
                                  rev_exit *x, LLVMBuilderRef b) {
  LLVMValueRef iv_start = iv->gep_type ? NULL : free_in_reverse(r, iv->start);
  if (!iv_start)
    return NULL;
  for (size_t k = 0; k < L->nivs; k++) {
    rev_iv *a = &L->ivs[k];
    if (a == iv || a->gep_type || LLVMTypeOf(a->phi) != LLVMTypeOf(iv->delta))
      continue;
    long long step = LLVMConstIntGetSExtValue(a->delta);
    LLVMValueRef a_start = free_in_reverse(r, a->start);
    if ((step != 1 && step != -1) || !a_start)
      continue;
    LLVMValueRef a_final = final_from_exit(r, L, a, x, b);
    if (!a_final)
      continue;
    LLVMValueRef t = step == 1 ? LLVMBuildSub(b, a_final, a_start, "trip")
                               : LLVMBuildSub(b, a_start, a_final, "trip");
    LLVMValueRef moved = LLVMBuildMul(b, t, iv->delta, "iv.moved");
    return LLVMBuildAdd(b, iv_start, moved, "iv.final");
  }
  return NULL;
}

/* Each induction variable the reverse reads steps back on the way from
 * its header's reverse to the latch's. */
static void step_back(ad_rev_fn *r, rev_loop *L) {
  LLVMBuilderRef b = LLVMCreateBuilderInContext(r->mc->llctx);
  LLVMPositionBuilderBefore(b, L->back);
  for (size_t k = 0; k < L->nivs; k++) {
    rev_iv *iv = &L->ivs[k];
    if (!iv->slot)
      continue;
    LLVMTypeRef t = LLVMTypeOf(iv->phi);
    LLVMValueRef cur = LLVMBuildLoad2(b, t, iv->slot, "iv");
    LLVMValueRef back;
    if (iv->gep_type) {
      LLVMValueRef neg = LLVMConstInt(
          LLVMTypeOf(iv->delta),
          -(unsigned long long)LLVMConstIntGetSExtValue(iv->delta), 1);
      back = LLVMBuildGEP2(b, iv->gep_type, cur, &neg, 1, "iv.back");
    } else {
      back = LLVMBuildSub(b, cur, iv->delta, "iv.back");
    }
    LLVMBuildStore(b, back, iv->slot);
  }
  LLVMDisposeBuilder(b);
}

int ad_rev_loops_finish(ad_rev_fn *r) {
  struct ad_rev_loops *ls = r->loops;
  ad_fn_ctx *fc = &r->fc;
  LLVMContextRef c = r->mc->llctx;
  for (size_t j = 0; ls && j < ls->n; j++)
    if (ls->l[j].managed && ls->l[j].back)
      step_back(r, &ls->l[j]);
  for (size_t i = 0; ls && i < ls->nx; i++) {
    rev_exit *x = &ls->x[i];
    if (!x->aug_edge || !x->rev_edge)
      continue;
    size_t cap = 0, nv = 0;
    LLVMValueRef *vals = NULL, *slots = NULL;
    LLVMBuilderRef rb = LLVMCreateBuilderInContext(c);
    LLVMPositionBuilderBefore(rb, LLVMGetBasicBlockTerminator(x->rev_edge));
    LLVMPositionBuilderBefore(fc->b, LLVMGetBasicBlockTerminator(x->aug_edge));
    int rc = 0;
    for (size_t j = 0; j < ls->n && rc == 0; j++) {
      rev_loop *L = &ls->l[j];
      if (!L->managed || !L->in[x->from] || L->in[x->to])
        continue;
      size_t need = L->nivs + L->ninv;
      if (nv + need > cap) {
        cap = 2 * (nv + need);
        LLVMValueRef *gv = tj_realloc(vals, cap * sizeof *gv);
        if (gv)
          vals = gv;
        LLVMValueRef *gs = gv ? tj_realloc(slots, cap * sizeof *gs) : NULL;
        if (!gv || !gs) {
          rc = -1;
          break;
        }
        slots = gs;
      }
      for (size_t k = 0; k < L->nivs; k++) {
        rev_iv *iv = &L->ivs[k];
        if (!iv->slot)
          continue;
        LLVMValueRef f = final_from_exit(r, L, iv, x, rb);
        if (!f)
          f = final_in_step(r, L, iv, x, rb);
        if (f) {
          LLVMBuildStore(rb, f, iv->slot);
          continue;
        }
        vals[nv] = ad_primal(fc, iv->phi);
        slots[nv++] = iv->slot;
      }
      for (size_t k = 0; k < L->ninv; k++) {
        rev_slotted *s = &L->inv[k];
        vals[nv] = s->shadow == 2 ? ad_map_get(&r->recorded, s->v)
                   : s->shadow    ? ad_shadow_value(fc, s->v)
                                  : ad_primal(fc, s->v);
        slots[nv++] = s->slot;
      }
    }
    if (rc == 0 && (nv || x->with_id)) {
      uintptr_t id = x->from + 1;
      rc = ad_rev_edge_record(r, fc->b, rb, vals, slots, nv,
                              x->with_id ? (long long)id : -1);
    }
    free(vals);
    free(slots);
    LLVMDisposeBuilder(rb);
    if (rc)
      return ad_fail_code(r->mc, TANJIT_ERR_NO_MEMORY, NULL, "out of memory");
  }
  return r->mc->diag.failed ? -1 : 0;
}

/*
 * Reverse post-order of a function's blocks: the order both derivative
 * builders (fwd/derivative.c, rev/cache.c) walk a body in, so that a value
 * is cloned before its uses in the blocks it dominates.  A depth-first walk on
 * an explicit stack (a long chain of blocks needs no deep recursion).
 */
#include <stdint.h>
#include <stdlib.h>

#include "ad/core/cfg.h"
#include "ad/core/map.h"
#include "common/alloc.h"

LLVMBasicBlockRef *ad_reverse_post_order(LLVMValueRef fn, size_t *count) {
  size_t nb = LLVMCountBasicBlocks(fn);
  LLVMBasicBlockRef *order = tj_malloc(nb * sizeof *order);
  LLVMBasicBlockRef *stack = tj_malloc(nb * sizeof *stack);
  unsigned *next = tj_calloc(nb, sizeof *next);
  ad_map index, seen;
  ad_map_init(&index);
  ad_map_init(&seen);
  size_t i = 0, sp = 0, n = 0;
  int ok = order && stack && next;
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb && ok;
       bb = LLVMGetNextBasicBlock(bb))
    ok = ad_map_put(&index, bb, (void *)(uintptr_t)(++i)) == 0;
  if (ok) {
    LLVMBasicBlockRef entry = LLVMGetEntryBasicBlock(fn);
    stack[sp++] = entry;
    ok = ad_map_put(&seen, entry, (void *)1) == 0;
  }
  while (ok && sp) {
    LLVMBasicBlockRef bb = stack[sp - 1];
    size_t bi = (uintptr_t)ad_map_get(&index, bb) - 1;
    LLVMValueRef term = LLVMGetBasicBlockTerminator(bb);
    unsigned ns = term ? LLVMGetNumSuccessors(term) : 0;
    if (next[bi] < ns) {
      LLVMBasicBlockRef s = LLVMGetSuccessor(term, next[bi]++);
      if (!ad_map_get(&seen, s)) {
        ok = ad_map_put(&seen, s, (void *)1) == 0;
        stack[sp++] = s;
      }
    } else {
      order[n++] = bb;
      sp--;
    }
  }
  ad_map_free(&seen);
  ad_map_free(&index);
  free(stack);
  free(next);
  if (!ok) {
    free(order);
    return NULL;
  }
  for (size_t a = 0, b = n ? n - 1 : 0; a < b; a++, b--) {
    LLVMBasicBlockRef t = order[a];
    order[a] = order[b];
    order[b] = t;
  }
  *count = n;
  return order;
}

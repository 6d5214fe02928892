/*
 * Type classification from LLVM types alone (which types can carry a
 * derivative, Enzyme's default activity for unmarked request arguments),
 * and the copy-layout query, which asks the byte-level type analysis
 * (type_transfer.c) about the function holding the copy.
 */
#include <stdlib.h>

#include "common/alloc.h"
#include "ad/analysis/type_model.h"
#include "ad/analysis/types.h"
#include "ad/core/context.h"
#include "ad/core/diag.h"

/* The analysis of the function being differentiated runs once, on its
 * first copy, and is kept in the context (fc->types) for the others. */
int ad_copy_layout_of(ad_fn_ctx *fc, LLVMValueRef call, LLVMValueRef dst,
                      LLVMValueRef src, LLVMValueRef len, ad_copy_layout *out) {
  out->segs = NULL;
  out->n = 0;
  out->period = 0;
  LLVMValueRef fn = LLVMGetBasicBlockParent(LLVMGetInstructionParent(call));
  int cacheable = fn == fc->primal_fn;
  ad_types *t = cacheable ? fc->types : NULL;
  if (!t)
    t = ad_types_analyze(fc->mc->engine, fc->mc->mod, fc->mc->td, fn);
  if (cacheable)
    fc->types = t;
  int rc = t ? ad_types_copy_layout(t, dst, src, len, out) : -1;
  if (!cacheable)
    ad_types_free(t);
  if (rc != 0) {
    ad_copy_layout_free(out);
    return ad_fail_code(fc->mc, TANJIT_ERR_NO_MEMORY, call, "out of memory");
  }
  return 0;
}

void ad_copy_layout_free(ad_copy_layout *l) {
  free(l->segs);
  l->segs = NULL;
  l->n = 0;
}

/* ---- copy layouts ---- */

static ad_byte_kind byte_kind(tfact f) {
  switch (f.kind) {
  case AD_T_FLOAT:
    return AD_BYTES_FLOAT;
  case AD_T_POINTER:
    return AD_BYTES_POINTER;
  case AD_T_INTEGER:
    return AD_BYTES_INTEGER;
  default:
    return AD_BYTES_UNKNOWN; /* unknown or conflict: the conservative copy */
  }
}

/* Segment list under construction: per byte kinds over [0, span). */
static int push_seg(ad_copy_layout *out, size_t *cap, unsigned long long off,
                    unsigned long long size, ad_byte_kind k) {
  if (size == 0)
    return 0;
  if (out->n && out->segs[out->n - 1].kind == k &&
      out->segs[out->n - 1].offset + out->segs[out->n - 1].size == off) {
    out->segs[out->n - 1].size += size;
    return 0;
  }
  if (out->n == *cap) {
    size_t ncap = *cap ? 2 * *cap : 8;
    ad_segment *g = tj_realloc(out->segs, ncap * sizeof *g);
    if (!g)
      return -1;
    out->segs = g;
    *cap = ncap;
  }
  out->segs[out->n].offset = off;
  out->segs[out->n].size = size;
  out->segs[out->n].kind = k;
  out->n++;
  return 0;
}

/* The kind of copy-relative bytes [rel, rel+size) seen from one side. */
static tfact side_fact(const ad_types *t, int obj, long long base,
                       unsigned long long rel, unsigned long long size) {
  if (obj < 0)
    return ta_fact(AD_T_UNKNOWN, 0);
  return ta_mem_get(t, obj, base + (long long)rel, size, 1);
}

int ad_types_copy_layout(const ad_types *t, LLVMValueRef dst, LLVMValueRef src,
                         LLVMValueRef len, ad_copy_layout *out) {
  const tval *vd = ta_vget(t, dst), *vs = ta_vget(t, src);
  int od = vd ? vd->obj : -1, os = vs ? vs->obj : -1;
  long long fd = vd ? vd->off : 0, fs = vs ? vs->off : 0;
  out->segs = NULL;
  out->n = 0;
  out->period = 0;
  size_t cap = 0;
  long long n =
      len && LLVMIsAConstantInt(len) ? LLVMConstIntGetSExtValue(len) : -1;
  unsigned long long period = 0;
  if (os >= 0 && t->objs[os].period)
    period = t->objs[os].period;
  if (od >= 0 && t->objs[od].period)
    period = period ? ta_gcd(period, t->objs[od].period) : t->objs[od].period;
  tfact summary = ta_fact(AD_T_UNKNOWN, 0); /* of collapsed sides */
  if (os >= 0 && t->objs[os].collapsed)
    summary = ta_join(summary, t->objs[os].summary), period = 0;
  if (od >= 0 && t->objs[od].collapsed)
    summary = ta_join(summary, t->objs[od].summary), period = 0;
  unsigned long long span;
  if (n >= 0 && (!period || (unsigned long long)n <= period))
    span = (unsigned long long)n, period = 0;
  else if (period)
    span = period;
  else
    span = 0; /* unknown length and no period: scan what the sides know */
  if (span == 0 && n < 0) {
    /* the extent both sides know about, from the copy's start */
    unsigned long long ext = 0;
    for (int side = 0; side < 2; side++) {
      int o = side ? os : od;
      long long b = side ? fs : fd;
      if (o < 0 || t->objs[o].collapsed)
        continue;
      for (size_t i = 0; i < t->objs[o].n; i++) {
        long long end =
            t->objs[o].e[i].off + (long long)t->objs[o].e[i].size - b;
        if (end > (long long)ext)
          ext = (unsigned long long)end;
      }
    }
    span = ext;
  }
  /* Walk the span at the granularity of the entries (byte by byte would be
   * simplest; entries are at least a byte and spans are small). */
  unsigned long long pos = 0;
  while (pos < span && span <= (1ull << 16)) {
    tfact f =
        ta_join(side_fact(t, os, fs, pos, 1), side_fact(t, od, fd, pos, 1));
    unsigned long long step = 1;
    /* extend over bytes of the same kind */
    while (pos + step < span) {
      tfact g = ta_join(side_fact(t, os, fs, pos + step, 1),
                        side_fact(t, od, fd, pos + step, 1));
      if (!ta_same(g, f))
        break;
      step++;
    }
    if (push_seg(out, &cap, pos, step, byte_kind(f)) != 0)
      return -1;
    pos += step;
  }
  if (n < 0 && !period) {
    /* bytes past what is known */
    if (push_seg(out, &cap, pos, ~0ull - pos, byte_kind(summary)) != 0)
      return -1;
  } else if (pos < span) {
    if (push_seg(out, &cap, pos, span - pos, AD_BYTES_UNKNOWN) != 0)
      return -1;
  }
  if (out->n == 0 &&
      push_seg(out, &cap, 0, n >= 0 ? (unsigned long long)n : ~0ull,
               AD_BYTES_UNKNOWN) != 0)
    return -1;
  out->period = period;
  return 0;
}

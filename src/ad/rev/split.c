/*
 * Split reverse mode, Enzyme's C convention: `__enzyme_augmentfwd(f, ...)`
 * runs f's augmented forward pass and hands the tape to the caller;
 * `__enzyme_reverse(f, ..., [d result], tape)` runs the reverse pass from
 * it later, from another function if need be.  Both name the same pair
 * (cache.c), so the same markers give the same tape layout.
 *
 * The tape header {ptr, size, cap} (tape.c) gains a fourth word, a tag
 * naming the pair (ad_rev_sig_tag), and a fifth, the owned list of the
 * shadows aug allocated (needed only while aug runs: exceptions.c), and
 * must outlive the augmented call:
 *
 *   no enzyme_allocated    the header is calloc'd by tanjit.split.tape; its
 *                          address is the tape (returned, or stored at p
 *                          with enzyme_tape p); the reverse frees the
 *                          records and the header
 *   enzyme_allocated N,    the header itself is kept in the caller's N
 *   enzyme_tape p          bytes at p (N >= AD_REV_SPLIT_TAPE_BYTES); the
 *                          reverse frees the records
 *
 * The reverse checks the tag first (tanjit.split.check) and traps on a
 * tape of another pair, or one already consumed, rather than replay the
 * wrong records.  Where the tape's origin is visible at load time (a value
 * or a local variable from __enzyme_augmentfwd), ad_rev_split_check turns
 * the same mismatch into a load error.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ad/core/context.h"
#include "ad/core/diag.h"
#include "ad/ir/ir.h"
#include "ad/rev/rev.h"
#include "ad/tangent/tangent.h"
#include "common/alloc.h"
#include "common/strbuf.h"

static const char tape_fn_name[] = "tanjit.split.tape";
static const char check_fn_name[] = "tanjit.split.check";

/* {ptr, size, cap, tag, owned}: tape.c's header, the pair's tag and the
 * owned list aug's shadow blocks are on while it runs (exceptions.c). */
static LLVMTypeRef split_header_type(ad_module_ctx *mc) {
  return ad_rev_header_type(mc);
}

/* tanjit.split.tape(tag): a zeroed heap header carrying tag; traps when
 * memory runs out (generated code has no error channel). */
static LLVMValueRef tape_fn(ad_module_ctx *mc) {
  LLVMContextRef c = mc->llctx;
  LLVMTypeRef ptr = LLVMPointerTypeInContext(c, 0);
  LLVMTypeRef i64 = LLVMInt64TypeInContext(c);
  LLVMValueRef fn;
  LLVMBuilderRef b = ad_get_or_define_internal(
      mc->mod, tape_fn_name, LLVMFunctionType(ptr, &i64, 1, 0), &fn);
  if (!b)
    return fn;
  LLVMBasicBlockRef oom = LLVMAppendBasicBlockInContext(c, fn, "oom");
  LLVMBasicBlockRef ok = LLVMAppendBasicBlockInContext(c, fn, "ok");
  LLVMValueRef args[2] = {
      LLVMConstInt(i64, 1, 0),
      LLVMConstInt(i64, LLVMABISizeOfType(mc->td, split_header_type(mc)), 0)};
  LLVMValueRef h = ad_rev_call_libc(mc, b, "calloc", args, 2);
  LLVMBuildCondBr(b, LLVMBuildIsNull(b, h, ""), oom, ok);
  LLVMPositionBuilderAtEnd(b, oom);
  ad_build_trap(mc->mod, b);
  LLVMPositionBuilderAtEnd(b, ok);
  LLVMBuildStore(b, LLVMGetParam(fn, 0),
                 LLVMBuildStructGEP2(b, split_header_type(mc), h, 3, ""));
  LLVMBuildRet(b, h);
  LLVMDisposeBuilder(b);
  return fn;
}

/* tanjit.split.check(header, tag): traps unless the header carries tag,
 * then clears it (a tape is consumed once).  Byte-aligned: the header may
 * be in the caller's char buffer. */
static LLVMValueRef check_fn(ad_module_ctx *mc) {
  LLVMContextRef c = mc->llctx;
  LLVMTypeRef ptr = LLVMPointerTypeInContext(c, 0);
  LLVMTypeRef i64 = LLVMInt64TypeInContext(c);
  LLVMTypeRef params[2] = {ptr, i64};
  LLVMValueRef fn;
  LLVMBuilderRef b = ad_get_or_define_internal(
      mc->mod, check_fn_name,
      LLVMFunctionType(LLVMVoidTypeInContext(c), params, 2, 0), &fn);
  if (!b)
    return fn;
  LLVMBasicBlockRef read = LLVMAppendBasicBlockInContext(c, fn, "read");
  LLVMBasicBlockRef bad = LLVMAppendBasicBlockInContext(c, fn, "wrong.tape");
  LLVMBasicBlockRef ok = LLVMAppendBasicBlockInContext(c, fn, "ok");
  LLVMValueRef h = LLVMGetParam(fn, 0);
  LLVMBuildCondBr(b, LLVMBuildIsNull(b, h, ""), bad, read);
  LLVMPositionBuilderAtEnd(b, read);
  LLVMValueRef at = LLVMBuildStructGEP2(b, split_header_type(mc), h, 3, "");
  LLVMValueRef tag = LLVMBuildLoad2(b, i64, at, "tag");
  LLVMSetAlignment(tag, 1);
  LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntEQ, tag, LLVMGetParam(fn, 1), ""),
                  ok, bad);
  LLVMPositionBuilderAtEnd(b, bad);
  ad_build_trap(mc->mod, b);
  LLVMPositionBuilderAtEnd(b, ok);
  LLVMSetAlignment(LLVMBuildStore(b, LLVMConstInt(i64, 0, 0), at), 1);
  LLVMBuildRetVoid(b);
  LLVMDisposeBuilder(b);
  return fn;
}

/* The tag a tape of pair sig carries: ad_rev_sig_tag, told apart by the
 * width when lanes keep copies on it (t->lanes): a reverse of another
 * width would read the records without the list on top, or with it. */
static LLVMValueRef tape_tag(ad_module_ctx *mc, const ad_rev_sig *sig,
                             const ad_rev_split_tape *t) {
  unsigned long long tag = ad_rev_sig_tag(sig);
  if (t->lanes)
    tag ^= 0x9e3779b97f4a7c15ull * t->lanes;
  return LLVMConstInt(LLVMInt64TypeInContext(mc->llctx), tag ? tag : 1, 0);
}

static LLVMValueRef call_fn(LLVMBuilderRef b, LLVMValueRef fn,
                            LLVMValueRef *args, unsigned n, const char *name) {
  return LLVMBuildCall2(b, LLVMGlobalGetValueType(fn), fn, args, n, name);
}

/* args then one more value (the tape or the seed and the tape). */
static LLVMValueRef call_pair_fn(ad_module_ctx *mc, LLVMBuilderRef b,
                                 LLVMValueRef fn, LLVMValueRef *args,
                                 unsigned nargs, LLVMValueRef seed,
                                 LLVMValueRef tape) {
  LLVMValueRef *a = tj_malloc((nargs + 2) * sizeof *a);
  if (!a) {
    ad_fail_code(mc, TANJIT_ERR_NO_MEMORY, NULL, "out of memory");
    return NULL;
  }
  memcpy(a, args, nargs * sizeof *a);
  unsigned k = nargs;
  if (seed)
    a[k++] = seed;
  a[k++] = tape;
  LLVMValueRef res = call_fn(b, fn, a, k, "");
  free(a);
  return res;
}

LLVMValueRef ad_rev_split_augment(ad_module_ctx *mc, LLVMBuilderRef b,
                                  LLVMValueRef holder, const ad_rev_sig *sig,
                                  const ad_rev_pair *p, LLVMValueRef *args,
                                  unsigned nargs, const ad_rev_split_tape *t,
                                  LLVMValueRef *tape_out) {
  LLVMTypeRef ht = split_header_type(mc);
  LLVMTypeRef i64 = LLVMInt64TypeInContext(mc->llctx);
  LLVMValueRef tag = tape_tag(mc, sig, t);
  LLVMValueRef header;
  if (t->allocated) {
    header = ad_entry_alloca(holder, ht, "split.tape");
    LLVMValueRef init = LLVMConstNull(ht);
    init = LLVMBuildInsertValue(b, init, tag, 3, "");
    LLVMBuildStore(b, init, header);
  } else {
    LLVMValueRef fn = tape_fn(mc);
    header = call_fn(b, fn, &tag, 1, "split.tape");
  }
  /* an exception out of aug frees its records (and a heap header) */
  LLVMValueRef aug = ad_rev_guarded_aug(mc, p->aug, !t->allocated);
  LLVMValueRef res =
      aug ? call_pair_fn(mc, b, aug, args, nargs, NULL, header) : NULL;
  if (!res)
    return NULL;
  if (t->lanes)
    ad_rev_lanes_keep_on_tape(mc, b, header);
  *tape_out = NULL;
  if (t->allocated) {
    LLVMBuildMemCpy(b, t->into, 1, header, 8,
                    LLVMConstInt(i64, AD_REV_SPLIT_TAPE_BYTES, 0));
  } else if (t->into) {
    LLVMSetAlignment(LLVMBuildStore(b, header, t->into), 1);
  } else {
    *tape_out = header;
  }
  return LLVMGetTypeKind(LLVMTypeOf(res)) == LLVMVoidTypeKind ? NULL : res;
}

/* The reverse from tape t, lane by lane: rev runs `width` times, lane w
 * with its shadows (lane_shadows[d * width + w] at args[shadow_pos[d]])
 * and the records' size put back to what aug left before each lane after
 * the first (rev only pops); the records are freed after the last.
 * Results in lane_res.  0 or -1. */
static int reverse_lanes(ad_module_ctx *mc, LLVMBuilderRef b,
                         LLVMValueRef holder, const ad_rev_sig *sig,
                         const ad_rev_pair *p, LLVMValueRef *args,
                         unsigned nargs, LLVMValueRef seed,
                         const ad_rev_split_tape *t, const unsigned *shadow_pos,
                         LLVMValueRef *lane_shadows, unsigned ndup,
                         unsigned width, LLVMValueRef *lane_res) {
  LLVMTypeRef ht = split_header_type(mc);
  LLVMTypeRef ptr = LLVMPointerTypeInContext(mc->llctx, 0);
  LLVMTypeRef i64 = LLVMInt64TypeInContext(mc->llctx);
  LLVMValueRef tag = tape_tag(mc, sig, t);
  LLVMValueRef header;
  if (t->allocated) {
    header = ad_entry_alloca(holder, ht, "split.tape");
    LLVMBuildMemCpy(b, header, 8, t->into, 1,
                    LLVMConstInt(i64, AD_REV_SPLIT_TAPE_BYTES, 0));
  } else if (t->into) {
    header = LLVMBuildLoad2(b, ptr, t->into, "split.tape");
    LLVMSetAlignment(header, 1);
  } else {
    header = t->value;
  }
  LLVMValueRef check_args[2] = {t->allocated ? t->into : header, tag};
  call_fn(b, check_fn(mc), check_args, 2, "");
  LLVMValueRef blocks =
      t->lanes ? ad_rev_lanes_take_from_tape(mc, b, header) : NULL;
  LLVMValueRef psize = LLVMBuildStructGEP2(b, ht, header, 1, "");
  LLVMValueRef size = width > 1 ? LLVMBuildLoad2(b, i64, psize, "") : NULL;
  for (unsigned w = 0; w < width; w++) {
    for (unsigned d = 0; width > 1 && d < ndup; d++)
      args[shadow_pos[d]] = lane_shadows[d * width + w];
    if (w && blocks)
      ad_rev_lanes_restore(mc, b, blocks, w == width - 1);
    if (w)
      LLVMBuildStore(b, size, psize);
    LLVMValueRef res = call_pair_fn(mc, b, p->rev, args, nargs, seed, header);
    if (!res)
      return -1;
    lane_res[w] =
        LLVMGetTypeKind(LLVMTypeOf(res)) == LLVMVoidTypeKind ? NULL : res;
  }
  LLVMValueRef records = LLVMBuildLoad2(b, ptr, header, "");
  ad_rev_call_libc(mc, b, "free", &records, 1);
  if (!t->allocated)
    ad_rev_call_libc(mc, b, "free", &header, 1);
  return mc->diag.failed ? -1 : 0;
}

LLVMValueRef ad_rev_split_reverse(ad_module_ctx *mc, LLVMBuilderRef b,
                                  LLVMValueRef holder, const ad_rev_sig *sig,
                                  const ad_rev_pair *p, LLVMValueRef *args,
                                  unsigned nargs, LLVMValueRef seed,
                                  const ad_rev_split_tape *t) {
  LLVMValueRef res = NULL;
  if (reverse_lanes(mc, b, holder, sig, p, args, nargs, seed, t, NULL, NULL, 0,
                    1, &res) != 0)
    return NULL;
  return res;
}

int ad_rev_split_reverse_lanes(ad_module_ctx *mc, LLVMBuilderRef b,
                               LLVMValueRef holder, LLVMValueRef where,
                               const ad_rev_sig *sig, const ad_rev_pair *p,
                               LLVMValueRef *args, unsigned nargs,
                               const unsigned *shadow_pos,
                               LLVMValueRef *lane_shadows, unsigned ndup,
                               unsigned width, const ad_rev_split_tape *t,
                               LLVMValueRef *lane_res) {
  int keeps;
  if (ad_rev_lanes_share_or_fail(mc, where, sig->fn, p, shadow_pos, ndup,
                                 width, &keeps) != 0)
    return -1;
  ad_rev_split_tape lt = *t;
  lt.lanes = keeps ? width : 0;
  return reverse_lanes(mc, b, holder, sig, p, args, nargs, NULL, &lt,
                       shadow_pos, lane_shadows, ndup, width, lane_res);
}

/* What a tape value was made by, looking through casts and a local
 * variable stored once: the tanjit.split.tape call, or NULL. */
static LLVMValueRef tape_origin(LLVMValueRef v) {
  for (int depth = 0; v && depth < 16; depth++) {
    v = ad_strip_casts(v, AD_STRIP_INT_CASTS | AD_STRIP_INSTRUCTIONS);
    if (LLVMIsACallInst(v)) {
      LLVMValueRef f = LLVMGetCalledValue(v);
      size_t n;
      const char *name = LLVMIsAFunction(f) ? LLVMGetValueName2(f, &n) : "";
      return strcmp(name, tape_fn_name) == 0 ? v : NULL;
    }
    if (!LLVMIsALoadInst(v) || !LLVMIsAAllocaInst(LLVMGetOperand(v, 0)))
      return NULL;
    LLVMValueRef slot = LLVMGetOperand(v, 0), stored = NULL;
    for (LLVMUseRef u = LLVMGetFirstUse(slot); u; u = LLVMGetNextUse(u)) {
      LLVMValueRef user = LLVMGetUser(u);
      if (LLVMIsALoadInst(user))
        continue;
      if (!LLVMIsAStoreInst(user) || LLVMGetOperand(user, 1) != slot ||
          stored)
        return NULL; /* escapes, or stored twice: not followed */
      stored = LLVMGetOperand(user, 0);
    }
    v = stored;
  }
  return NULL;
}

static void activity_text(const ad_rev_sig *sig, char *buf, size_t size) {
  static const char *const names[] = {"const", "dup", "out",
                                      "dup (checked at run time)"};
  size_t at = 0;
  buf[0] = 0;
  for (unsigned i = 0; i < sig->nparams && at + 8 < size; i++)
    at += (size_t)snprintf(buf + at, size - at, "%s%s", i ? ", " : "",
                           names[sig->activity[i] & 3]);
  if (!sig->nparams)
    snprintf(buf, size, "no parameters");
}

static void where_text(LLVMValueRef inst, char *buf, size_t size) {
  unsigned len = 0;
  const char *file = LLVMGetDebugLocFilename(inst, &len);
  unsigned line = LLVMGetDebugLocLine(inst);
  if (file && line)
    snprintf(buf, size, " (%.*s:%u)", (int)len, file, line);
  else
    snprintf(buf, size, " (in %s)",
             ad_value_name(LLVMGetBasicBlockParent(LLVMGetInstructionParent(inst))));
}

int ad_rev_split_check(ad_module_ctx *mc) {
  LLVMValueRef check = LLVMGetNamedFunction(mc->mod, check_fn_name);
  for (LLVMUseRef u = check ? LLVMGetFirstUse(check) : NULL; u;
       u = LLVMGetNextUse(u)) {
    LLVMValueRef call = LLVMGetUser(u);
    if (!LLVMIsACallInst(call))
      continue;
    LLVMValueRef origin = tape_origin(LLVMGetOperand(call, 0));
    if (!origin)
      continue;
    unsigned long long want = LLVMConstIntGetZExtValue(LLVMGetOperand(call, 1));
    unsigned long long have = LLVMConstIntGetZExtValue(LLVMGetOperand(origin, 0));
    if (want == have)
      continue;
    const ad_rev_sig *rs = ad_rev_sig_by_tag(mc, want);
    const ad_rev_sig *as = ad_rev_sig_by_tag(mc, have);
    if (!rs || !as)
      continue;
    char ra[160], aa[160], at[160];
    activity_text(rs, ra, sizeof ra);
    activity_text(as, aa, sizeof aa);
    where_text(origin, at, sizeof at);
    if (rs->fn != as->fn)
      return ad_fail(mc, call,
                     "__enzyme_reverse of %s: its tape comes from "
                     "__enzyme_augmentfwd of %s%s; a tape is replayed only "
                     "by the reverse of the function that made it",
                     ad_value_name(rs->fn), ad_value_name(as->fn), at);
    return ad_fail(mc, call,
                   "__enzyme_reverse of %s: its tape comes from "
                   "__enzyme_augmentfwd%s with other markers (augmentfwd: "
                   "%s%s; reverse: %s%s); both requests must give each "
                   "argument the same activity and treat the result alike",
                   ad_value_name(rs->fn), at, aa,
                   as->ret_adjoint ? "; active result" : "", ra,
                   rs->ret_adjoint ? "; active result" : "");
  }
  return 0;
}

/* A function named prefix + fn's name, internal. */
static LLVMValueRef add_wrapper(ad_module_ctx *mc, const char *prefix,
                                LLVMValueRef fn, LLVMTypeRef t) {
  strbuf sb;
  sb_init(&sb);
  sb_append(&sb, prefix);
  sb_append(&sb, ad_value_name(fn));
  LLVMValueRef w = NULL;
  if (!sb.failed && sb.data) {
    w = ad_add_generated_function(mc->mod, sb.data, t);
    LLVMSetLinkage(w, LLVMInternalLinkage);
    ad_copy_fn_environment(fn, w);
  }
  sb_free(&sb);
  return w;
}

/*
 * __enzyme_virtualreverse(f): a constant table {augmented, reverse} in
 * Enzyme's split calling convention, the shadow a function pointer to f
 * takes:
 *   augmented(params..., shadow after each DUP param)
 *       -> tape, or {tape, primal[, shadow]}
 *   reverse(params..., shadows, [d result], tape) -> the OUT adjoints
 */
LLVMValueRef ad_rev_virtual_table(ad_module_ctx *mc, const ad_rev_sig *sig,
                                  const ad_rev_pair *p) {
  LLVMContextRef c = mc->llctx;
  LLVMTypeRef ptr = LLVMPointerTypeInContext(c, 0);
  LLVMTypeRef at = LLVMGlobalGetValueType(p->aug);
  LLVMTypeRef rt = LLVMGlobalGetValueType(p->rev);
  unsigned na = LLVMCountParamTypes(at), nr = LLVMCountParamTypes(rt);
  LLVMTypeRef *params = tj_malloc((na + nr + 1) * sizeof *params);
  LLVMValueRef *args = tj_malloc((na + nr + 1) * sizeof *args);
  if (!params || !args) {
    free(params);
    free(args);
    ad_fail_code(mc, TANJIT_ERR_NO_MEMORY, NULL, "out of memory");
    return NULL;
  }
  /* augmented: aug's parameters less the tape; returns the tape first */
  LLVMGetParamTypes(at, params);
  LLVMTypeRef res = LLVMGetReturnType(at);
  LLVMTypeRef members[3] = {ptr, NULL, NULL};
  unsigned nm = 1;
  if (LLVMGetTypeKind(res) == LLVMStructTypeKind && sig->ret_shadow) {
    members[nm++] = LLVMStructGetTypeAtIndex(res, 0);
    members[nm++] = LLVMStructGetTypeAtIndex(res, 1);
  } else if (LLVMGetTypeKind(res) != LLVMVoidTypeKind) {
    members[nm++] = res;
  }
  LLVMTypeRef wret = nm == 1 ? ptr : LLVMStructTypeInContext(c, members, nm, 0);
  LLVMValueRef aw = add_wrapper(mc, "tanjit.split.augmented.", sig->fn,
                                LLVMFunctionType(wret, params, na - 1, 0));
  /* reverse: rev's parameters, the tape last as rev has it */
  LLVMGetParamTypes(rt, params);
  LLVMValueRef rw = add_wrapper(mc, "tanjit.split.reverse.", sig->fn,
                                LLVMFunctionType(LLVMGetReturnType(rt), params,
                                                 nr, 0));
  if (!aw || !rw) {
    free(params);
    free(args);
    ad_fail_code(mc, TANJIT_ERR_NO_MEMORY, NULL, "out of memory");
    return NULL;
  }
  LLVMBuilderRef b = LLVMCreateBuilderInContext(c);
  ad_rev_split_tape heap = {NULL, 0, NULL, 0};
  LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(c, aw, "entry"));
  for (unsigned i = 0; i + 1 < na; i++)
    args[i] = LLVMGetParam(aw, i);
  LLVMValueRef tape = NULL;
  LLVMValueRef v = ad_rev_split_augment(mc, b, aw, sig, p, args, na - 1, &heap,
                                        &tape);
  if (nm == 1) {
    LLVMBuildRet(b, tape);
  } else {
    LLVMValueRef agg = LLVMBuildInsertValue(b, LLVMGetPoison(wret), tape, 0, "");
    if (nm == 3) {
      agg = LLVMBuildInsertValue(b, agg, LLVMBuildExtractValue(b, v, 0, ""), 1, "");
      agg = LLVMBuildInsertValue(b, agg, LLVMBuildExtractValue(b, v, 1, ""), 2, "");
    } else {
      agg = LLVMBuildInsertValue(b, agg, v, 1, "");
    }
    LLVMBuildRet(b, agg);
  }
  LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(c, rw, "entry"));
  for (unsigned i = 0; i < nr; i++)
    args[i] = LLVMGetParam(rw, i);
  unsigned nplain = nr - 1 - (sig->ret_adjoint ? 1 : 0);
  ad_rev_split_tape by_value = {NULL, 0, LLVMGetParam(rw, nr - 1), 0};
  LLVMValueRef out = ad_rev_split_reverse(
      mc, b, rw, sig, p, args, nplain,
      sig->ret_adjoint ? LLVMGetParam(rw, nplain) : NULL, &by_value);
  if (out)
    LLVMBuildRet(b, out);
  else
    LLVMBuildRetVoid(b);
  LLVMDisposeBuilder(b);
  free(params);
  free(args);
  LLVMValueRef entries[2] = {aw, rw};
  LLVMValueRef table_init = LLVMConstArray2(ptr, entries, 2);
  LLVMValueRef table = LLVMAddGlobal(mc->mod, LLVMTypeOf(table_init),
                                     "tanjit.split.virtual");
  LLVMSetInitializer(table, table_init);
  LLVMSetGlobalConstant(table, 1);
  LLVMSetLinkage(table, LLVMInternalLinkage);
  return mc->diag.failed ? NULL : table;
}

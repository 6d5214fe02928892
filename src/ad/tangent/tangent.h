/*
 * What a rule writes tangents with: shadows of primal values, lanes of a
 * batched shadow, the arithmetic of tangents, run-time activity guards,
 * shadows of constants and globals, and the clone of a primal instruction.
 * Everything here emits at fc->b into the body being built.
 */
#ifndef TANJIT_AD_TANGENT_TANGENT_H
#define TANJIT_AD_TANGENT_TANGENT_H

#include <llvm-c/Core.h>

#include "ad/core/context.h"
#include "ad/core/map.h"

/* The shadow globals one transform made (a part of the module context;
 * shadow_globals.c): (global, lane) -> its shadow global, by identity, not
 * by name, since globals may be unnamed or named like a shadow. */
typedef struct ad_global_shadows {
  ad_map by_global_lane;
} ad_global_shadows;
void ad_global_shadows_init(ad_global_shadows *s);
void ad_global_shadows_free(ad_global_shadows *s);

/* ---- tangent.c: shadows, lanes and the arithmetic of tangents ---- */
LLVMValueRef ad_primal(ad_fn_ctx *fc, LLVMValueRef v);
/* The shadow recorded for v, or NULL when v is inactive. */
LLVMValueRef ad_shadow_or_null(ad_fn_ctx *fc, LLVMValueRef v);
/* The shadow as a value: recorded one, else 0 for floats and the primal
 * (replicated per lane) for ints and pointers.  Emits at the builder. */
LLVMValueRef ad_shadow_value(ad_fn_ctx *fc, LLVMValueRef v);
void ad_set_shadow(ad_fn_ctx *fc, LLVMValueRef primal, LLVMValueRef shadow);
/* The type of a shadow of primal type t at `width`: t at width 1, <width x
 * t> for a scalar float t (half, bfloat, float, double), else [width x t].
 * Derivative signatures use it too. */
LLVMTypeRef ad_lanes_type(LLVMTypeRef t, unsigned width);
LLVMTypeRef ad_shadow_type(ad_fn_ctx *fc, LLVMTypeRef t);
/* Packs `width` lanes of primal type t into ad_lanes_type(t, width), at b. */
LLVMValueRef ad_pack_lanes(LLVMBuilderRef b, LLVMTypeRef t, unsigned width,
                           LLVMValueRef *lanes);
/* A shadow's lanes as the array a request's ABI carries ([N x T] for a
 * <N x T>; anything else unchanged), at b. */
LLVMValueRef ad_lanes_to_array(LLVMBuilderRef b, LLVMValueRef v);
LLVMValueRef ad_lane(ad_fn_ctx *fc, LLVMValueRef shadow, unsigned lane);
/* Packs per-lane values into a shadow of primal type t. */
LLVMValueRef ad_pack(ad_fn_ctx *fc, LLVMTypeRef t, LLVMValueRef *lanes);
/* Replicates one primal-typed value into every lane. */
LLVMValueRef ad_splat(ad_fn_ctx *fc, LLVMValueRef v);
/* Whether the shadow of pointer `p` may be `p` itself at run time: it
 * mixes (PHI, select) pointers with a shadow and pointers without one,
 * which stand for themselves.  Loads and stores through such a pointer
 * compare shadow and primal at run time (Enzyme's runtime activity). */
int ad_shadow_may_equal_primal(ad_fn_ctx *fc, LLVMValueRef p);
/* Whether `shadow` is the derivative's shadow parameter of a pointer its
 * caller passed AD_ARG_DUP_RUNTIME. */
int ad_shadow_param_may_be_primal(ad_fn_ctx *fc, LLVMValueRef shadow);
/* The tangent work of load or store `inst` (clone `clone`) through such a
 * pointer, per lane: where shadow == primal a store writes the primal
 * value again (a no-op) and a load reads zero float tangents.  Returns the
 * load's shadow (NULL for a store). */
LLVMValueRef ad_guarded_access(ad_fn_ctx *fc, LLVMValueRef inst,
                               LLVMValueRef clone);

/* ---- error_bound.c: error estimation's bounds ---- */
/* Whether the body being built estimates errors (ad_signature.error). */
int ad_estimates_error(const ad_fn_ctx *fc);
/* One operand of an operation with a rule row: x_k, df/dx_k (NULL means
 * 1) and x_k's error bound (its shadow; NULL: exact). */
typedef struct ad_error_term {
  LLVMValueRef primal, coef, error;
} ad_error_term;
/* The error bound of result r (the clone of `inst`),
 * max(ulp(r), sum_k |coef_k err_k x_k / r|), reported to enzymeLogError
 * where the module has one; NULL after an error. */
LLVMValueRef ad_error_bound(ad_fn_ctx *fc, LLVMValueRef inst, LLVMValueRef r,
                            const ad_error_term *terms, unsigned nterms);

/* One term of a tangent linear combination: sign * coef * tangent.
 * coef NULL means 1; tangent NULL means 0 (the term is skipped). */
typedef struct ad_term {
  LLVMValueRef coef;
  LLVMValueRef tangent; /* a shadow (all lanes) */
  int negate;
} ad_term;
/* sum(terms) [/ divisor], per lane, with ad_tangent_fmf's flags from
 * fmf_src (may be NULL).  Returns the zero tangent when every term is
 * zero. */
LLVMValueRef ad_lincomb(ad_fn_ctx *fc, LLVMTypeRef t, const ad_term *terms,
                        unsigned nterms, LLVMValueRef divisor,
                        LLVMValueRef fmf_src);
/* cond ? a : b for shadows a and b (NULL: zero) of primal type t, cond a
 * primal i1 (or vector of i1 for a vector t): one select where the lanes
 * are a vector's elements. */
LLVMValueRef ad_select_tangent(ad_fn_ctx *fc, LLVMTypeRef t, LLVMValueRef cond,
                               LLVMValueRef a, LLVMValueRef b);
/* Per lane, a copy of `clone` whose operands listed in `ops` are replaced by
 * that lane of ad_shadow_value(primal operand).  The shadow of `primal`. */
LLVMValueRef ad_lanewise(ad_fn_ctx *fc, LLVMValueRef primal, LLVMValueRef clone,
                         const unsigned *ops, unsigned nops);
/* The shadow (lane) of pointer p to write `accessed` through: when it may
 * be p itself at run time (ad_shadow_may_equal_primal: inactive memory), a
 * zeroed scratch slot instead, so that writes land nowhere (and an update
 * reads zeros).  p may be a vector of pointers (scatter).  *same_out (may
 * be NULL) gets the run-time condition, or NULL when there is none. */
LLVMValueRef ad_guard_shadow_pointer(ad_fn_ctx *fc, LLVMValueRef p,
                                     LLVMValueRef shadow_lane,
                                     LLVMTypeRef accessed,
                                     LLVMValueRef *same_out);
/* The shadow (lane) of a by-value argument's pointer p of type t: where it
 * may be p itself, a copy of *p as inactive memory's shadow holds it
 * (floats 0, pointers and integers themselves). */
LLVMValueRef ad_guard_byval_shadow(ad_fn_ctx *fc, LLVMValueRef p,
                                   LLVMValueRef shadow_lane, LLVMTypeRef t);
/* An alloca of t in fn's entry block (so a loop does not grow the stack). */
LLVMValueRef ad_entry_alloca(LLVMValueRef fn, LLVMTypeRef t, const char *name);
/* How a rule's guarded pointer operand is accessed. */
typedef enum ad_access {
  AD_ACCESS_READ,  /* masked.load, gather: through the shadow, then the
                      inactive shadow of what was read where it is p */
  AD_ACCESS_WRITE, /* masked.store, scatter: into the scratch slot there */
  AD_ACCESS_UPDATE /* atomicrmw: written to the scratch slot; the result
                      is the primal's inactive shadow there */
} ad_access;
/* ad_lanewise, with operand `pointer_op` a pointer that may be its own
 * shadow, accessed as `mode` says. */
LLVMValueRef ad_lanewise_guarded(ad_fn_ctx *fc, LLVMValueRef primal,
                                 LLVMValueRef clone, const unsigned *ops,
                                 unsigned nops, unsigned pointer_op,
                                 LLVMTypeRef accessed, ad_access mode);
/* Emits intrinsic `base` (e.g. "llvm.cos") overloaded on the types given. */
LLVMValueRef ad_call_intrinsic(ad_fn_ctx *fc, const char *base,
                               LLVMTypeRef *overload, unsigned noverload,
                               LLVMValueRef *args, unsigned nargs);
/* A float constant of type t (scalar or vector splat). */
LLVMValueRef ad_const_fp(LLVMTypeRef t, double v);
/* 2^-e where frexp(x) = (mantissa, e): the derivative of the mantissa. */
LLVMValueRef ad_frexp_inverse_scale(LLVMBuilderRef b, LLVMValueRef x,
                                    LLVMValueRef mantissa);
void ad_copy_fmf(LLVMValueRef to, LLVMValueRef from);
/* The flags of tangent instruction `to`: those of primal `from` (may be
 * NULL), plus reassoc nsz contract unless the session asked for strict
 * derivatives (tanjit_options.derivative_fp).  Every instruction that
 * combines tangents is given its flags here. */
void ad_tangent_fmf(ad_fn_ctx *fc, LLVMValueRef to, LLVMValueRef from);

/* ---- clone.c ---- */
/* Clones `inst` at the builder with operands mapped to the derivative
 * body, and records it in the value map.  NULL on out of memory. */
LLVMValueRef ad_clone(ad_fn_ctx *fc, LLVMValueRef inst);

/* ---- unneeded.c: enzyme_dupnoneed memory in forward mode ---- */
/* Deletes `clone`, the clone of primal `inst` (a store, copy or set) whose
 * effect lands only in memory whose primal the caller does not need
 * (analysis/unneeded_memory.c); its tangent work is emitted already. */
void ad_drop_unneeded_clone(ad_fn_ctx *fc, LLVMValueRef inst,
                            LLVMValueRef clone);
/* For a call with `rule`: 1 when it is a copy or set into such memory
 * (its clone is dropped once the rule's tangent work is emitted), 0 when
 * no operand points there, else -1 with an error naming the call (the
 * rule would read or write the primal memory). */
struct ad_call_rule;
int ad_unneeded_call_effect(ad_fn_ctx *fc, const struct ad_call_rule *rule,
                            LLVMValueRef call);
/* Records `clone`, primal load `inst` from such memory: it must be dead
 * once the body is built (ad_finish_unneeded_loads).  0 or -1. */
int ad_note_unneeded_load(ad_fn_ctx *fc, LLVMValueRef inst, LLVMValueRef clone);
/* Once the body is built: each recorded load, with the code computed from
 * it alone, is deleted when nothing that stays uses it; a load that stays
 * is an error naming it where primal writes into that memory were dropped
 * (fc->unneeded_written), else kept (memory only read).  0 or -1. */
int ad_finish_unneeded_loads(ad_fn_ctx *fc);

/* ---- shadow_globals.c ---- */
/* The shadow of a constant: constant globals get a read-only `<name>_shadow`
 * holding zero tangents (pointers inside replaced by their shadows); other
 * constants map floats to 0 and keep integers and mutable globals. */
LLVMValueRef ad_constant_shadow(ad_module_ctx *mc, LLVMValueRef c,
                                unsigned lane);
/* Whether constant c's shadow is c itself (no global in it has a shadow
 * global, no float in it is nonzero), answered without making shadow
 * globals: a query, for what a signature depends on. */
int ad_constant_is_own_shadow(ad_module_ctx *mc, LLVMValueRef c);
/* Emits at b, before a request's derivative call, the restoring of every
 * mutable global's shadow to its initial tangents (nothing when the module
 * has no active global). */
void ad_emit_shadow_reset(ad_module_ctx *mc, LLVMBuilderRef b);
/* Writes the body of the restoring, once the module's derivatives exist. */
void ad_finish_shadow_reset(ad_module_ctx *mc);

/* ---- report.c: what derivative code says before it traps ---- */
/* At b, a call of the session's run-time report (ad.h) saying `what` and
 * `why` (copied into the module as constants); with `target` non-NULL,
 * the pointer the code was about to call, which the session describes
 * (its symbol, where one is known) in front of `what`.  Nothing when the
 * engine has no report.  0, or -1 on out of memory. */
int ad_emit_runtime_report(ad_module_ctx *mc, LLVMBuilderRef b,
                           LLVMValueRef target, const char *what,
                           const char *why);
/* After the load `load` (clone `clone`) of a pointer from a mutable
 * global, whose shadow is `shadow`: a run-time check that reports and
 * traps where the shadow is null and the pointer is not (the program set
 * the global outside the differentiated code).  Width 1 only. */
void ad_emit_global_shadow_check(ad_fn_ctx *fc, LLVMValueRef load,
                                 LLVMValueRef clone, LLVMValueRef shadow);
/* Before the trap of a call through `target`, a pointer that is none of
 * the call's possible targets (`cands`, nc of them): the report names the
 * pointer, the call's function and line, and the candidates; `mode` is
 * "forward" or "reverse". */
void ad_emit_unknown_target_report(ad_module_ctx *mc, LLVMBuilderRef b,
                                   LLVMValueRef call, LLVMValueRef target,
                                   const LLVMValueRef *cands, unsigned nc,
                                   const char *mode);

#endif

/*
 * Reverse mode (__enzyme_autodiff): per (function, activity signature) an
 * augmented forward function `augmented_<f>` (the primal, the shadows of
 * pointers, and a record pushed on the tape at the end of every block) and
 * a reverse function `diffe<f>` (pops the records, propagates adjoints,
 * accumulates into shadow memory, returns the adjoints of the active
 * scalar parameters).  README.md in this folder has the design.
 *
 *   cache.c    signatures, the cache and its worklist, function types,
 *              the gradient at a request site (tape made, aug, rev, freed)
 *   tape.c     the tape: its header, the reserve helper, block records
 *   aug.c      the augmented forward body
 *   adjoint.c  the reverse body: blocks, the dispatcher, adjoint slots,
 *              PHIs, the instruction rules
 *   calls.c    calls in both directions (math rows, memory, callees)
 *   byval.c    byval arguments the callee writes to: copies of the primal
 *              and of its shadow, the float adjoints added back
 *   custom.c   custom gradients: in-IR registrations, tanjit_register_rev_rule
 *   lanes.c    enzyme_width N: one aug and a reverse per lane, or a
 *              gradient per lane (the function's writes through its
 *              arguments undone between lanes), whichever is exact
 *   split.c    split mode: the tape handed from __enzyme_augmentfwd to
 *              __enzyme_reverse, __enzyme_virtualreverse's table
 *   cuda.c     CUDA transfers, allocations and frees (the CUDA family's
 *              rows, through the CUDA API only)
 *   julia.c    Julia's runtime calls (the GC allocation)
 *   calls.c    calls in both directions: the table of reverse call rules
 *              (a rule name -> an aug step and a reverse step), math rows
 *              read backwards, callees' pairs, indirect calls
 *   memory.c   allocation, realloc, free, memcpy/memmove/memset, reduce.fadd
 *   mathout.c  math calls with more than one result: sincos, modf, frexp
 *   complex.c  <complex.h> functions and the complex product/quotient
 *              helpers, read backwards from rules/complex.c's rows
 *   vector.c   llvm.vector.reduce.fmul/fmax/fmin/fmaximum/fminimum
 *   blas.c     BLAS calls: adjoints as more BLAS calls (rules/blas.h's
 *              routine table), the inputs cached in aug
 *   openmp.c   libomp's parallel regions: each half forked, a tape per
 *              thread; critical sections and barriers mirrored
 *   exceptions.c  invoke (the normal path, like a call), landing pads
 *   unwinding.c   the clone of a callee whose exception is caught above
 */
#ifndef TANJIT_AD_REV_REV_H
#define TANJIT_AD_REV_REV_H

#include <stddef.h>

#include <llvm-c/Core.h>

#include "ad/core/context.h"
#include "ad/core/map.h"

/* How a parameter takes part in a reverse derivative. */
typedef enum ad_rev_activity {
  AD_REV_CONST = 0, /* no derivative */
  AD_REV_DUP = 1,   /* a pointer (or an integer holding one) with a shadow */
  AD_REV_OUT = 2,   /* an active scalar (float, float vector or aggregate of
                       floats): its adjoint is returned by the reverse */
  /* AD_REV_DUP whose shadow the caller cannot vouch for: it may be the
   * primal itself at run time (an inactive pointer stands for its own
   * shadow, ad_shadow_may_equal_primal), so the derivative checks before
   * it adds adjoints into that memory, which is then the user's */
  AD_REV_DUP_RUNTIME = 3
} ad_rev_activity;

/* Whether a parameter of that activity comes with a shadow. */
static inline int ad_rev_has_shadow_param(unsigned char activity) {
  return activity == AD_REV_DUP || activity == AD_REV_DUP_RUNTIME;
}

/* What one aug/rev pair computes; the cache key. */
typedef struct ad_rev_sig {
  LLVMValueRef fn;
  unsigned nparams;
  unsigned char *activity; /* ad_rev_activity per parameter (owned in the cache) */
  unsigned char ret_adjoint; /* rev takes the adjoint of the float result */
  unsigned char ret_shadow;  /* aug returns {primal, shadow} (a pointer) */
  /* rev runs right after aug, nothing else in between (a gradient request
   * site): memory the body never writes still holds, in rev, what aug
   * read (tape.c reloads it instead of storing it) */
  unsigned char back_to_back;
  /* the pair runs on several threads at once, on shared shadows (an
   * OpenMP region and the functions it calls, openmp.c): a load's adjoint
   * is added into shadow memory with an atomic fadd */
  unsigned char parallel;
  /* the pair's aug saves what the function's own stores through its
   * arguments overwrite, so that enzyme_width's lanes can each run a whole
   * gradient from the same memory (lanes.c's path 3); its tape header is
   * lanes.c's, with the log after it */
  unsigned char lanes_undo;
} ad_rev_sig;

typedef struct ad_rev_pair {
  LLVMValueRef aug, rev;
} ad_rev_pair;

/* ---- cache.c ---- */
/* The pair for `sig` (declared now, built by ad_rev_build_all).  0, or -1
 * with the error in mc (`where` locates it). */
int ad_rev_get(ad_module_ctx *mc, const ad_rev_sig *sig, LLVMValueRef where,
               ad_rev_pair *out);
/* Builds every pair declared and not built yet (a worklist).  0 or -1. */
int ad_rev_build_all(ad_module_ctx *mc);
/* Whether fn is the engine's own code (a pair, a tanjit.* helper, a
 * forward derivative): ad_is_generated_function's mark. */
int ad_rev_is_generated(ad_module_ctx *mc, LLVMValueRef fn);
/* Frees the module's reverse state (NULL-tolerant; engine.c). */
void ad_rev_state_free(ad_module_ctx *mc);
/* Emits at b, in function `holder`, the gradient: a tape header alloca'd
 * in holder's entry, aug then rev called on args (the primal arguments
 * with the shadows after each DUP one, as both take them), `seed` (the
 * result's adjoint, or NULL when rev takes none), the tape's memory freed.
 * Returns rev's result (a struct of the OUT adjoints in parameter order),
 * or NULL when there is none. */
LLVMValueRef ad_rev_emit_gradient(ad_module_ctx *mc, LLVMBuilderRef b,
                                  LLVMValueRef holder, const ad_rev_pair *p,
                                  LLVMValueRef *args, unsigned nargs,
                                  LLVMValueRef seed);
/* A 64-bit tag naming sig (function name, activities, result needs), the
 * same in every module: split mode's tapes carry it. */
unsigned long long ad_rev_sig_tag(const ad_rev_sig *sig);
/* The signature of a pair declared in this module with that tag, or NULL. */
const ad_rev_sig *ad_rev_sig_by_tag(ad_module_ctx *mc, unsigned long long tag);

/* ---- lanes.c ---- */
/* Emits at b (in function holder) the N = width lanes of the gradient of
 * sig's function with pair p: args as for ad_rev_emit_gradient, the DUP
 * shadows at args[shadow_pos[d]], lane w's at lane_shadows[d * width + w]
 * (args' shadows are overwritten), `seed` every lane's result adjoint (or
 * NULL).  One augmented pass and the reverse once per lane on its tape
 * when that is exact, else one whole gradient per lane when that is (the
 * function's writes through its arguments undone between lanes, on a
 * pair of sig with lanes_undo); else an error naming what stops them.  lane_res[w] is lane w's rev result (NULL when
 * void).  0, or -1 with the error in mc. */
int ad_rev_emit_lanes(ad_module_ctx *mc, LLVMBuilderRef b, LLVMValueRef holder,
                      const ad_rev_sig *sig, const ad_rev_pair *p,
                      LLVMValueRef *args, unsigned nargs,
                      const unsigned *shadow_pos, LLVMValueRef *lane_shadows,
                      unsigned ndup, unsigned width, LLVMValueRef seed,
                      LLVMValueRef *lane_res);

/* Split mode's half of that decision: 0 when one augmented pass of p
 * (its shadows at aug's parameters shadow_pos) serves every lane, with
 * *keeps set when the lanes need copies of the shadow blocks it allocates
 * (ad_rev_lanes_keep_on_tape after it, ad_rev_lanes_take_from_tape and
 * ad_rev_lanes_restore in the reverse), else -1 with an error located at
 * `where` saying what stops it. */
int ad_rev_lanes_share_or_fail(ad_module_ctx *mc, LLVMValueRef where,
                               LLVMValueRef fn, const ad_rev_pair *p,
                               const unsigned *shadow_pos, unsigned ndup,
                               unsigned width, int *keeps);
/* Emits at b, right after the augmented pass on tape `header`: a copy of
 * every shadow block it allocated (kept below the block), and the list of
 * those blocks pushed on the tape's records. */
void ad_rev_lanes_keep_on_tape(ad_module_ctx *mc, LLVMBuilderRef b,
                               LLVMValueRef header);
/* Emits at b, before the first lane's reverse: the list pushed by
 * ad_rev_lanes_keep_on_tape, popped off the records. */
LLVMValueRef ad_rev_lanes_take_from_tape(ad_module_ctx *mc, LLVMBuilderRef b,
                                         LLVMValueRef header);
/* Emits at b, before a further lane's reverse: every block on the list
 * from `blocks` put back as the augmented pass left it; `last` (the last
 * lane) frees the copies too, so that lane's reverse frees the blocks. */
void ad_rev_lanes_restore(ad_module_ctx *mc, LLVMBuilderRef b,
                          LLVMValueRef blocks, int last);

/* ---- split.c ---- */
/* The bytes enzyme_allocated must give: the tape header {ptr, size, cap,
 * tag} kept in the caller's buffer (the owned list after them lives only
 * while aug runs, on the stack). */
enum { AD_REV_SPLIT_TAPE_BYTES = 32 };
/* Where a split request's tape goes (augment) or comes from (reverse). */
typedef struct ad_rev_split_tape {
  LLVMValueRef into;  /* enzyme_tape p (NULL: the tape is a value) */
  int allocated;      /* enzyme_allocated: the header itself lives at p */
  LLVMValueRef value; /* reverse without enzyme_tape: the tape passed */
  /* enzyme_width N whose lanes keep copies of the shadow blocks aug
   * allocated (lanes.c), else 0: their list rides on the records, and the
   * tape's tag names N, so that a reverse of another width traps */
  unsigned lanes;
} ad_rev_split_tape;
/* Emits at b (in function holder) the augmented forward pass of pair p on
 * args (primal arguments, each DUP one's shadow after it).  Returns aug's
 * result (NULL for void); *tape_out is the tape when it is a value, NULL
 * when it went to the caller's memory. */
LLVMValueRef ad_rev_split_augment(ad_module_ctx *mc, LLVMBuilderRef b,
                                  LLVMValueRef holder, const ad_rev_sig *sig,
                                  const ad_rev_pair *p, LLVMValueRef *args,
                                  unsigned nargs, const ad_rev_split_tape *t,
                                  LLVMValueRef *tape_out);
/* Emits the reverse pass from the tape t: checks its tag (a trap on a
 * tape of another pair), runs rev with `seed` (NULL when rev takes none),
 * frees the tape.  Returns rev's result (NULL when void). */
LLVMValueRef ad_rev_split_reverse(ad_module_ctx *mc, LLVMBuilderRef b,
                                  LLVMValueRef holder, const ad_rev_sig *sig,
                                  const ad_rev_pair *p, LLVMValueRef *args,
                                  unsigned nargs, LLVMValueRef seed,
                                  const ad_rev_split_tape *t);
/* __enzyme_reverse with enzyme_width `width` > 1 (lanes.c decides that one
 * augmented pass serves every lane, else an error located at `where`):
 * the reverse from tape t once per lane, lane w with its shadows
 * (lane_shadows[d * width + w] put at args[shadow_pos[d]]); rev takes no
 * result adjoint.  lane_res[w]: lane w's rev result (NULL when void).
 * 0, or -1 with the error in mc. */
int ad_rev_split_reverse_lanes(ad_module_ctx *mc, LLVMBuilderRef b,
                               LLVMValueRef holder, LLVMValueRef where,
                               const ad_rev_sig *sig, const ad_rev_pair *p,
                               LLVMValueRef *args, unsigned nargs,
                               const unsigned *shadow_pos,
                               LLVMValueRef *lane_shadows, unsigned ndup,
                               unsigned width, const ad_rev_split_tape *t,
                               LLVMValueRef *lane_res);
/* After every request is rewritten: a load error for each reverse whose
 * tape visibly comes from the augmented pass of another pair.  0 or -1. */
int ad_rev_split_check(ad_module_ctx *mc);
/* __enzyme_virtualreverse(f): a constant [2 x ptr] {augmented, reverse}
 * in Enzyme's split convention; NULL with the error in mc. */
LLVMValueRef ad_rev_virtual_table(ad_module_ctx *mc, const ad_rev_sig *sig,
                                  const ad_rev_pair *p);

/* virtual.c: __enzyme_virtualreverse.  The table of defined function fn
 * for Enzyme's default activities (floats active, pointers duplicated,
 * integers constant), pair built; or a pointer into the shadow copy of the
 * constant global (vtable) that constant pointer arg points into.  Errors
 * located at `call`; NULL with the error in mc. */
LLVMValueRef ad_rev_virtual_of_function(ad_module_ctx *mc, LLVMValueRef fn,
                                        LLVMValueRef call);
LLVMValueRef ad_rev_virtual_of_vtable(ad_module_ctx *mc, LLVMValueRef arg,
                                      LLVMValueRef call);
/* The same, with *primal set to aug's result (the primal result, for
 * enzyme_primal_return). */
LLVMValueRef ad_rev_emit_gradient_primal(ad_module_ctx *mc, LLVMBuilderRef b,
                                         LLVMValueRef holder,
                                         const ad_rev_pair *p,
                                         LLVMValueRef *args, unsigned nargs,
                                         LLVMValueRef seed,
                                         LLVMValueRef *primal);

/* ---- folder internals ---- */

/* One tape slot of the block being reversed: primal value v (or its shadow)
 * at `off` bytes below the record's top. */
typedef struct ad_rev_item {
  LLVMValueRef v;
  int shadow; /* 0: v, 1: its shadow, 2: the aug value recorded for v */
  int recomputed; /* rebuilt in the head from other items: no slot */
  unsigned long long off;
  LLVMValueRef loaded; /* its value in the reverse body */
} ad_rev_item;

struct ad_rev_call_plan;
struct ad_rev_call_row;

/* One aug/rev pair being built. */
typedef struct ad_rev_fn {
  ad_module_ctx *mc;
  ad_fn_ctx fc; /* the aug body: vmap (primal -> aug), shadow, active, types */
  ad_signature fsig; /* the forward-style signature activity reads */
  const ad_rev_sig *sig;
  LLVMValueRef aug, rev;
  LLVMValueRef aug_tape, rev_tape;
  LLVMValueRef aug_ltape, rev_ltape; /* the bodies' own header copies (tape.c) */
  LLVMBasicBlockRef *rpo;
  size_t nblocks;
  ad_map block_id; /* primal block -> 1 + its index in rpo */
  ad_map plans;    /* primal call -> struct ad_rev_call_plan * */
  /* the reverse body */
  LLVMBuilderRef rb;       /* where reverse code goes */
  LLVMBuilderRef eb;       /* rev's entry: adjoint slots */
  LLVMValueRef entry_term; /* rev entry's branch to the dispatcher */
  LLVMBasicBlockRef dispatch;
  LLVMValueRef dispatch_switch;
  ad_map adj;     /* primal value -> adjoint slot (alloca in rev) */
  ad_map rparam;  /* primal param -> rev's copy; its shadow in rshadow */
  ad_map rshadow;
  LLVMValueRef dret; /* rev's result adjoint parameter, or NULL */
  ad_map custom;     /* primal call -> its custom rule's plan (custom.c) */
  /* custom_inputs.c: whether frees wait for the end of the reverse (0
   * unasked, 1 no, 2 yes), and rev's slot holding the list of them */
  int defer_frees;
  LLVMValueRef deferred;
  /* the block being reversed */
  LLVMBasicBlockRef head;  /* pops the record, loads the slots */
  LLVMBasicBlockRef body;  /* the first block of its reverse */
  LLVMValueRef head_term;
  LLVMValueRef top;        /* the record's top (rev) */
  ad_rev_item *items;
  size_t nitems, capitems;
  unsigned long long bytes; /* the record's size so far (id included) */
  /* adjoint.c, while the reverse is built: per block (its index in rpo)
   * whether its record carries its id (some successor's reverse must ask
   * which predecessor ran), and each block's reverse head */
  unsigned char *needs_id;
  LLVMBasicBlockRef *heads;
  size_t *pred_start, *pred_list; /* distinct reachable predecessors (CSR) */
  /* a join whose predecessor one branch decides: its condition, and the
   * predecessors (rpo indices) it selects when true [2i] and false [2i+1] */
  LLVMValueRef *route_cond;
  size_t *route_pred;
  /* a join whose predecessor the reverse finds by replaying the branches
   * from its immediate dominator (adjoint.c's replay_region) */
  unsigned char *route_replay;
  size_t cur_block; /* the index of the block being reversed */
  int reload; /* loads through parameters may be reloaded (tape.c) */
  /* primal instruction -> an aug value a rule records for its reverse
   * (ad_rev_record); zero-initialized maps are empty */
  ad_map recorded;
  ad_map cuda_plans; /* primal call -> rev/cuda.c's plan */
  struct ad_rev_loops *loops; /* counted loops (loops.c) */
} ad_rev_fn;

/* ---- loops.c: counted loops, their slots and exit records ---- */
/* Finds the loops of r->rpo and which are managed; before the aug. */
int ad_rev_plan_loops(ad_rev_fn *r);
void ad_rev_loops_free(ad_rev_fn *r);
/* After the aug's blocks are cloned: a block on each exit edge. */
int ad_rev_loops_split_aug(ad_rev_fn *r);
/* The aug block on the exit edge from -> to, or NULL (primal blocks). */
LLVMBasicBlockRef ad_rev_loops_aug_edge(ad_rev_fn *r, LLVMBasicBlockRef from,
                                        LLVMBasicBlockRef to);
/* Where the reverse of block s goes to reach predecessor pi's reverse (rpo
 * indices): its head, or the block popping the exit record on the way. */
LLVMBasicBlockRef ad_rev_loops_to_pred(ad_rev_fn *r, size_t s, size_t pi);
/* 1 when the exit record of edge from -> to carries from's id (then from
 * need not record it for to's reverse). */
int ad_rev_loops_exit_carries_id(ad_rev_fn *r, size_t from, size_t to);
int ad_rev_loops_is_managed_header(ad_rev_fn *r, size_t index);
/* Whether block a dominates block b (rpo indices). */
int ad_rev_loops_dominates(ad_rev_fn *r, size_t a, size_t b);
/* The reverse's slot holding v (an induction variable of a managed loop
 * containing the block being reversed; or a value defined before such a
 * loop, recorded at its exits), or NULL. */
LLVMValueRef ad_rev_loops_iv_slot(ad_rev_fn *r, LLVMValueRef v, int shadow);
LLVMValueRef ad_rev_loops_invariant_slot(ad_rev_fn *r, LLVMValueRef v,
                                         int shadow);
/* Whether the reverse of block would read v from one of those slots
 * (an induction variable; a value from before a managed loop). */
int ad_rev_loops_has_iv(ad_rev_fn *r, LLVMValueRef v, size_t block);
int ad_rev_loops_has_invariant(ad_rev_fn *r, LLVMValueRef v, size_t block);
/* Block b's immediate dominator (the entry's is itself), or nblocks. */
size_t ad_rev_loops_idom(ad_rev_fn *r, size_t b);
/* Whether blocks a and b have the same innermost loop (or none). */
int ad_rev_loops_same_loop(ad_rev_fn *r, size_t a, size_t b);
/* The reverse of managed header `index`: routes its PHIs' adjoints (n of
 * them, ds their adjoints) to the edge the forward pass took. */
int ad_rev_loops_route_header(ad_rev_fn *r, size_t index, LLVMValueRef *phis,
                              LLVMValueRef *ds, unsigned n);
/* Once every block is reversed: the exit records and the steps back. */
int ad_rev_loops_finish(ad_rev_fn *r);

/* ---- adjoint.c: joins whose edge the branches decide ---- */
/* Whether the reverse of join `index` (rpo) finds the edge the forward
 * pass took from branch conditions alone (route_cond, route_replay), not
 * from an id its predecessors record. */
int ad_rev_join_known(ad_rev_fn *r, size_t index);
/* Reads (ad_rev_primal) every condition ad_rev_join_edges will branch on,
 * so they are in the head before anything splits it.  0 or -1. */
int ad_rev_join_conditions(ad_rev_fn *r, size_t index);
/* Emits at the end of block `from` (no terminator yet) the branches to the
 * edge the forward pass took into join `index`: edge[p] (nblocks entries,
 * zeroed by the caller) becomes a new, unterminated block for each
 * predecessor p that may have run.  0 or -1. */
int ad_rev_join_edges(ad_rev_fn *r, size_t index, LLVMBasicBlockRef from,
                      LLVMBasicBlockRef *edge);

/* ---- tape.c ---- */
LLVMTypeRef ad_rev_tape_type(ad_module_ctx *mc);
/* The record's value of primal v (shadow: of its shadow) in the block being
 * reversed: constants and parameters directly, instructions from the tape
 * (a slot added to the record). */
LLVMValueRef ad_rev_primal(ad_rev_fn *r, LLVMValueRef v);
LLVMValueRef ad_rev_shadow(ad_rev_fn *r, LLVMValueRef v);
/* Whether ad_rev_primal(v) in the reverse of block `at` costs the record
 * no slot (tape.c says which values); v may be integer arithmetic not
 * dominating at, over values that do. */
int ad_rev_free_at(ad_rev_fn *r, LLVMValueRef v, size_t at);
/* Records aug value `value` (dominating the end of the aug block where
 * primal instruction `key`'s block ends) for key's reverse, which reads it
 * back with ad_rev_recorded (a tape slot like a primal's).  0 or -1. */
int ad_rev_record(ad_rev_fn *r, LLVMValueRef key, LLVMValueRef value);
LLVMValueRef ad_rev_recorded(ad_rev_fn *r, LLVMValueRef key);
/* Starts reversing primal block bb: the head block (record popped) and the
 * builder at the start of the body. */
void ad_rev_begin_block(ad_rev_fn *r, LLVMBasicBlockRef bb,
                        LLVMBasicBlockRef head, LLVMBasicBlockRef body);
/* Ends it: the record's size known, the head pops it, aug pushes it at the
 * end of bb.  0 or -1. */
int ad_rev_end_block(ad_rev_fn *r, LLVMBasicBlockRef bb);
/* Emits at b a load of the id on top of the tape (the record below the
 * current one), as i64. */
LLVMValueRef ad_rev_peek_id(ad_rev_fn *r, LLVMBuilderRef b);
/* Once both bodies are built: their header copies synchronized with the
 * caller's (at the entry, around calls taking the tape, at returns). */
void ad_rev_sync_tape(ad_rev_fn *r);
/* A record of n values pushed at aug builder ab (aug values vals) and
 * popped at rev builder rb into the reverse's slots; with id >= 0 the id
 * on top.  0 or -1. */
int ad_rev_edge_record(ad_rev_fn *r, LLVMBuilderRef ab, LLVMBuilderRef rb,
                       LLVMValueRef *vals, LLVMValueRef *slots, size_t n,
                       long long id);
/* Decides r->reload before the reverse is built. */
void ad_rev_plan_reloads(ad_rev_fn *r);
/* malloc-family helpers declared in the module. */
LLVMValueRef ad_rev_libc(ad_module_ctx *mc, const char *name);
LLVMValueRef ad_rev_call_libc(ad_module_ctx *mc, LLVMBuilderRef b,
                              const char *name, LLVMValueRef *args,
                              unsigned n);

/* ---- nested.c ---- */
/* Reverse over reverse: a call to generated function fn (an inner
 * gradient's pair or helper) in the outer aug: 0 or -1 when nested.c
 * handled it (the inner tape's pushes), 1 when it is differentiated as
 * ordinary code. */
int ad_rev_nested_aug(ad_rev_fn *r, LLVMValueRef call, LLVMValueRef fn);
/* `__enzyme_iter(n, step)` in the outer aug: cloned as
 * `__enzyme_iter(n + step, step)` (0 or -1), or 1 when call is not one. */
int ad_rev_iter_aug(ad_rev_fn *r, LLVMValueRef call);
/* After every request is rewritten: each `__enzyme_iter(n, step)` left
 * becomes n. */
void ad_rev_iter_finish(LLVMModuleRef m);

/* ---- aug.c ---- */
int ad_rev_build_aug(ad_rev_fn *r);
/* Whether pointer p, which has no shadow, points into the memory of an
 * enzyme_const parameter of a gradient's own function (sig.back_to_back)
 * that nothing the function runs reads back: active values written there
 * carry no derivative the gradient depends on (the caller declared the
 * memory constant), so the write is taken without one, as Enzyme does. */
int ad_rev_into_unread_constant(ad_rev_fn *r, LLVMValueRef p);
/* Leaves of t: any float, any pointer or integer. */
void ad_rev_leaves(LLVMTypeRef t, int *has_float, int *has_other);
/* Whether primal v has an adjoint: active, with float leaves, or an
 * integer holding one float's bits (ad_rev_adjoint_type). */
int ad_rev_has_adjoint(ad_rev_fn *r, LLVMValueRef v);
/* The type of v's adjoint: v's own, except for an integer (vector) type
 * analysis says holds the bits of a float of its width (a bitcast, a
 * union, memcpy into an integer): that float type, so its adjoint adds as
 * the float's does. */
LLVMTypeRef ad_rev_adjoint_type(ad_rev_fn *r, LLVMValueRef v);
/* The float type of integer (vector) type t's width (i64: double), else
 * t: the adjoint type a pair's signature gives an OUT parameter or an
 * active result of integer type, one that holds a float's bits (calls.c
 * gives such activities only then). */
LLVMTypeRef ad_rev_bits_float(ad_module_ctx *mc, LLVMTypeRef t);

/* ---- exceptions.c ---- */
/* The aug of invoke `inv` (the builder at its block's end): the call's
 * work, made to unwind to a fresh pad of `inv` (the primal landingpad's
 * clauses, then a branch into the landing pad block's aug copy, found in
 * fc.exit_block under `inv`), then a branch to the normal destination.
 * 0 or -1. */
int ad_rev_aug_invoke(ad_rev_fn *r, LLVMValueRef inv);
/* The fresh pad of the invoke ending primal block bb when an exception
 * from its call leaves nothing to reverse: the block's record is pushed
 * there too, for a handler that catches and goes on.  Else NULL. */
LLVMValueRef ad_rev_catch_exit(ad_rev_fn *r, LLVMBasicBlockRef bb);
/* Whether an exception from invoke inv's call is reversed: its handler
 * goes on to a `ret`, or inv is in an unwinding clone (unwinding.c), whose
 * exits by exception are reversed too. */
int ad_rev_unwind_reversed(ad_rev_fn *r, LLVMValueRef inv);
/* Whether a block ending in `term` is an exit the reverse starts from: a
 * `ret`, or in an unwinding clone a `resume`. */
int ad_rev_is_exit(ad_rev_fn *r, LLVMValueRef term);
/* Before every `resume` of aug: the caller's header brought up to date
 * from the body's copy (the records pushed since the landing pad), once
 * the bodies are built. */
void ad_rev_sync_resumes(ad_rev_fn *r);
/* Whether an exception may leave fn (a resume, or a call that may throw,
 * defined callees asked the same; `seen` breaks cycles).  0/1, -1 when
 * memory runs out. */
int ad_rev_body_may_unwind(LLVMValueRef fn, ad_map *seen);
/* A personality for a function of mc made from fn: fn's, another
 * function's of the module, or the Itanium C++ one. */
LLVMValueRef ad_rev_personality(ad_module_ctx *mc, LLVMValueRef fn);
/* The aug of a landingpad: a PHI of the fresh pads' landingpads. */
int ad_rev_aug_landing_pad(ad_rev_fn *r, LLVMValueRef lp);
/* The key of fc.exit_block naming the aug block that ends the edge
 * from -> to: the invoke for its unwind edge, else the block. */
LLVMValueRef ad_rev_edge_key(LLVMBasicBlockRef from, LLVMBasicBlockRef to);
/* A gradient's tape header: tape.c's {ptr, size, cap}, split mode's tag,
 * and the owned list of the shadow blocks aug allocated (memory.c), at
 * AD_REV_TAPE_OWNED_OFFSET, walked when an exception leaves aug. */
enum { AD_REV_TAPE_OWNED_OFFSET = 32 };
/* ... and after it the list of shadows aug allocated that are not host
 * blocks (CUDA's device and pinned memory): nodes {next, shadow, free
 * thunk} the guard walks, calling each thunk(node) then freeing the node. */
enum { AD_REV_TAPE_DEVICE_OFFSET = 40 };
LLVMTypeRef ad_rev_header_type(ad_module_ctx *mc);
/* A gradient's tape from start to end (tape.c): its first buffer sized
 * from the last call's capacity (a global per augmented function aug),
 * and at the end that capacity kept and the buffer freed. */
void ad_rev_tape_begin(ad_module_ctx *mc, LLVMBuilderRef b, LLVMValueRef aug,
                       LLVMValueRef tape);
void ad_rev_tape_end(ad_module_ctx *mc, LLVMBuilderRef b, LLVMValueRef aug,
                     LLVMValueRef tape);
/* Emits at aug builder b a node for `shadow` (8 bytes: a device address or
 * pointer; null when none was made) pushed on the header's device list,
 * `thunk` a `void (ptr node)` that frees node's shadow.  Returns the node;
 * the reverse of the allocation reads the shadow back from it
 * (ad_rev_device_shadow_of), frees it, then frees the node with free(). */
LLVMValueRef ad_rev_own_device_shadow(ad_rev_fn *r, LLVMBuilderRef b,
                                      LLVMValueRef shadow, LLVMValueRef thunk);
LLVMValueRef ad_rev_device_shadow_of(ad_module_ctx *mc, LLVMBuilderRef b,
                                     LLVMValueRef node, LLVMTypeRef t);
/* The guard's cleanup function (heap_header: the split-mode variant that
 * frees the header too), known by name to a gradient over the guard. */
const char *ad_rev_unwound_name(int heap_header);
/* What a gradient calls for pair aug `aug`: aug itself when it cannot
 * unwind, else a guard with aug's type that invokes it and, when an
 * exception leaves it, frees the owned shadows, the tape's records and
 * (heap_header) the header, then resumes unwinding.  NULL on error. */
LLVMValueRef ad_rev_guarded_aug(ad_module_ctx *mc, LLVMValueRef aug,
                                int heap_header);

/* ---- unwinding.c ---- */
/* The function whose pair a call to fn takes when the call's exception is
 * reversed (a handler above catches and goes on): fn's unwinding clone,
 * made on first use, or fn itself when no exception can leave it (or it
 * is a clone).  NULL with the error in mc (located at `where`). */
LLVMValueRef ad_rev_unwinding_clone(ad_module_ctx *mc, LLVMValueRef fn,
                                    LLVMValueRef where);
int ad_rev_is_unwinding_clone(LLVMValueRef fn);

/* ---- adjoint.c ---- */
int ad_rev_build_reverse(ad_rev_fn *r);
/* Whether atomicrmw `inst` is one reverse mode differentiates (a float
 * fadd or fsub). */
int ad_rev_atomic_is_linear(LLVMValueRef inst);
/* The adjoint of v, read and reset to zero (at rb). */
LLVMValueRef ad_rev_take(ad_rev_fn *r, LLVMValueRef v);
/* v's adjoint += d (nothing for constants and inactive values). */
void ad_rev_accumulate(ad_rev_fn *r, LLVMValueRef v, LLVMValueRef d,
                       LLVMValueRef fmf_src);
/* a + d over float leaves (others keep a's). */
LLVMValueRef ad_rev_add(LLVMBuilderRef b, LLVMValueRef a, LLVMValueRef d,
                        LLVMValueRef fmf_src);
/* The value of an adjoint nothing was added to yet: -0.0 in float
 * leaves (the exact additive identity), 0 elsewhere. */
LLVMValueRef ad_rev_empty_adjoint(LLVMTypeRef t);
/* v with -0.0 float leaves made +0.0 (what a gradient returns for an
 * adjoint nothing reached, as Enzyme's +0 accumulators give). */
LLVMValueRef ad_rev_positive_zero(LLVMBuilderRef b, LLVMValueRef v);
/* v with its float leaves zeroed. */
LLVMValueRef ad_rev_zero_floats(LLVMBuilderRef b, LLVMValueRef v);
/* Emits, at rb, the guard for an access through primal pointer p whose
 * shadow may be p itself: the builder continues in a block run only where
 * they differ; returns the block to branch to afterwards (NULL: no guard). */
LLVMBasicBlockRef ad_rev_guard(ad_rev_fn *r, LLVMValueRef p);
void ad_rev_guard_end(ad_rev_fn *r, LLVMBasicBlockRef after);

/* ---- calls.c ---- */
int ad_rev_aug_call(ad_rev_fn *r, LLVMValueRef call);
int ad_rev_reverse_call(ad_rev_fn *r, LLVMValueRef call);
void ad_rev_free_plans(ad_rev_fn *r);

/* ---- overwritten.c: memory written between a call and its reverse ---- */
/* Whether instruction i may write memory the program sees (stores,
 * atomics, fences, volatile loads, calls but for those known to write
 * nothing: math rows without out-parameters, memory(none) or
 * inaccessible-memory-only callees, debug and lifetime markers): the one
 * answer to "what does this instruction write" that tape.c's reloads and
 * the copies below ask. */
int ad_rev_instruction_writes(ad_module_ctx *mc, LLVMValueRef i);
/* Whether memory `array` (an operand of primal call `call`) points to may
 * be written after the call and before its reverse reads it: by the call
 * itself (it writes `outputs`, noutputs of them, NULL entries skipped), by
 * what runs after it in the pair's body, or (a pair not back to back) by
 * its caller.  1 when unsure. */
int ad_rev_may_be_overwritten(ad_rev_fn *r, LLVMValueRef call,
                              LLVMValueRef array, const LLVMValueRef *outputs,
                              unsigned noutputs);

/* ---- byval.c: byval arguments the callee writes to ---- */
/* Whether parameter k of fn is byval and fn may write its copy. */
int ad_rev_byval_written(LLVMValueRef fn, unsigned k);
/* aug, before the callee's augmented pass: for each argument the plan
 * marks copied, primal[k] becomes a copy of its bytes and shadow[k] a
 * shadow copy (non-float bytes from the caller's shadow, floats zero),
 * recorded for the reverse.  Arrays indexed by parameter.  0 or -1. */
int ad_rev_byval_aug(ad_rev_fn *r, LLVMValueRef call,
                     const struct ad_rev_call_plan *p, LLVMValueRef *primal,
                     LLVMValueRef *shadow);
/* reverse, before the callee's reverse: shadow[k] of each copied argument
 * becomes its shadow copy; returns the recorded block (NULL: none, or an
 * error in mc). */
LLVMValueRef ad_rev_byval_rev_shadows(ad_rev_fn *r, LLVMValueRef call,
                                      const struct ad_rev_call_plan *p,
                                      LLVMValueRef *shadow);
/* after it: the copies' float adjoints added into the caller's shadows,
 * the block freed (block NULL: nothing).  0 or -1. */
int ad_rev_byval_reverse(ad_rev_fn *r, LLVMValueRef call,
                         const struct ad_rev_call_plan *p, LLVMValueRef block);

/* ---- custom.c ---- */
typedef struct ad_rev_rules ad_rev_rules; /* tanjit_register_rev_rule's */
ad_rev_rules *ad_rev_rules_new(void);      /* NULL on out of memory */
void ad_rev_rules_free(ad_rev_rules *r);   /* NULL-tolerant */
ad_rev_rules *ad_engine_rev_rules(const ad_engine *e); /* engine.c */
/* The reverse function of fn's in-IR custom gradient, or NULL. */
LLVMValueRef ad_rev_custom_gradient_of(LLVMValueRef fn);
/* Whether a custom gradient (in IR or registered) answers this call. */
int ad_rev_custom_applies(ad_module_ctx *mc, LLVMValueRef call);
/* The call in aug (its plan put in r->custom) and in rev.  0 or -1. */
int ad_rev_custom_aug(ad_rev_fn *r, LLVMValueRef call);
/* cache.c: pair (just asked for) is built as possible target `target` of
 * indirect call `call`: a failure to build it says so. */
void ad_rev_note_indirect_target(ad_module_ctx *mc, const ad_rev_pair *pair,
                                 LLVMValueRef call, LLVMValueRef target);
int ad_rev_custom_reverse(ad_rev_fn *r, LLVMValueRef call);
void ad_rev_custom_free(ad_rev_fn *r);
/* custom_inputs.c: at aug's builder, after the rule's augmented half, a
 * copy of the memory pointer argument `a` of `call` points into where the
 * rule's reverse could not read it otherwise (an alloca of the function,
 * a block of the function's that may be written or freed before the
 * reverse): *block, a recorded aug value (NULL: no copy, the reverse
 * reads the primal memory).  0 or -1. */
int ad_rev_custom_keep_input(ad_rev_fn *r, LLVMValueRef call, LLVMValueRef a,
                             LLVMValueRef *block);
/* At r->rb: the address in the copy `block` (its record's value) that
 * stands for the argument. */
LLVMValueRef ad_rev_custom_kept_address(ad_rev_fn *r, LLVMValueRef block);
/* A free (or delete) in a pair whose body calls a custom gradient with a
 * pointer argument, in aug after its clone: the clone removed, the free
 * made at the end of the reverse instead (the rule's reverse may read the
 * block through memory its copy holds a pointer to).  1: not deferred,
 * the clone stays; 0 or -1. */
int ad_rev_custom_defer_free(ad_rev_fn *r, LLVMValueRef call,
                             LLVMValueRef clone);
/* Once the reverse is built: before each of its returns, the frees
 * deferred in it.  0 or -1. */
int ad_rev_custom_finish_frees(ad_rev_fn *r);
/* ---- cuda.c ---- */
struct ad_call_rule;
/* The aug side of CUDA-family call `call` (`clone` its aug clone, the
 * builder after it): shadows allocated and zeroed, a plan for the
 * reverse.  0 or -1. */
int ad_rev_cuda_aug(ad_rev_fn *r, LLVMValueRef call, LLVMValueRef clone,
                    const struct ad_call_rule *rule);
/* The reverse of `call` when cuda.c planned one (0 when none). */
int ad_rev_cuda_reverse(ad_rev_fn *r, LLVMValueRef call);
void ad_rev_cuda_free_plans(ad_rev_fn *r);

/* ---- julia.c ---- */
/* The aug side of Julia runtime call `call` (the GC allocation): 1 when it
 * is not one, else 0 or -1. */
int ad_rev_julia_aug(ad_rev_fn *r, LLVMValueRef call, LLVMValueRef clone,
                     const struct ad_call_rule *rule);
/* Its reverse (0 when `call` is none). */
int ad_rev_julia_reverse(ad_rev_fn *r, LLVMValueRef call);
/*
 * The reverse call rules, as data: a row names a call (its rule name, as
 * the registry resolves it; ad_name_matches) and gives its two steps.
 * Each concept's rows live in their own file (memory.c, mathout.c, ...),
 * which exports one ad_rev_call_rows; calls.c lists them in the order
 * they are asked.  Math rows (rules/math.c) and defined callees are kinds
 * of their own (PLAN_MATH, PLAN_CALL).
 */
typedef enum ad_rev_plan_kind {
  PLAN_NONE,
  PLAN_MATH,     /* a row of rules/math.c, read backwards */
  PLAN_ROW,      /* a reverse call rule (row->rev) */
  PLAN_CALL,     /* a defined callee's own pair */
  PLAN_INDIRECT  /* a call through a pointer: one pair per target */
} ad_rev_plan_kind;

/* A call's plan, decided in aug and read in rev. */
typedef struct ad_rev_call_plan {
  ad_rev_plan_kind kind;
  const struct ad_call_rule *rule;         /* PLAN_MATH, PLAN_ROW */
  const struct ad_rev_call_row *row;       /* PLAN_ROW */
  LLVMTypeRef elem;                        /* PLAN_ROW: a copy's element */
  /* PLAN_CALL and PLAN_INDIRECT: the callee's activities here */
  ad_rev_pair pair;
  unsigned char *act;
  unsigned np;
  int ret_adjoint;
  /* PLAN_INDIRECT: the possible targets and their pairs (owned) */
  LLVMValueRef *targets;
  ad_rev_pair *pairs;
  unsigned ntargets;
  /* PLAN_CALL and PLAN_INDIRECT: per parameter, 1 where the argument is
   * an active byval pointer the callee writes to (byval.c); NULL: none */
  unsigned char *copied;
} ad_rev_call_plan;

typedef struct ad_rev_call_row ad_rev_call_row;
struct ad_rev_call_row {
  const char *name; /* a rule name (ad_name_matches: llvm.* overloads) */
  /* The aug step: the primal clone `clone` exists, the builder after it.
   * Makes the shadows the call needs, and a plan (ad_rev_new_plan) when
   * the reverse has work.  0 or -1. */
  int (*aug)(ad_rev_fn *r, const ad_rev_call_row *row, LLVMValueRef call,
             LLVMValueRef clone);
  /* The reverse step at r->rb, for a call whose plan names this row.
   * 0 or -1. */
  int (*rev)(ad_rev_fn *r, const ad_rev_call_row *row, LLVMValueRef call,
             const ad_rev_call_plan *p);
  const void *data; /* the row's own */
};

typedef struct ad_rev_call_rows {
  const char *family;
  const ad_rev_call_row *rows;
  size_t n;
} ad_rev_call_rows;

extern const ad_rev_call_rows ad_rev_memory_rows;  /* memory.c */
extern const ad_rev_call_rows ad_rev_mathout_rows; /* mathout.c */
extern const ad_rev_call_rows ad_rev_vector_rows;  /* vector.c */
extern const ad_rev_call_rows ad_rev_tree_rows;    /* tree.c */
/* openmp.c: the row of libomp entry point fn (a fork of a parallel
 * region, a critical section's ends, a barrier, a reduction's ends), or
 * NULL.  Its aug step
 * replaces the primal call (clone NULL). */
const ad_rev_call_row *ad_rev_openmp_row(LLVMValueRef fn);
/* complex.c: the one reverse step of every row of rules/complex.c */
extern const ad_rev_call_row ad_rev_complex_row;
/* blas.c: the one reverse step of every routine of rules/blas.c's table
 * (a routine without an adjoint is refused there, naming it) */
extern const ad_rev_call_row ad_rev_blas_row;

/* The row for rule name `name`, or NULL (calls.c's table, in order). */
const ad_rev_call_row *ad_rev_row_of(const char *name);
/* A new plan of `kind` for call (owned by r).  NULL on out of memory
 * (the error recorded). */
ad_rev_call_plan *ad_rev_new_plan(ad_rev_fn *r, LLVMValueRef call,
                                  ad_rev_plan_kind kind);
/* A PLAN_ROW plan naming `row`. */
ad_rev_call_plan *ad_rev_plan_row(ad_rev_fn *r, LLVMValueRef call,
                                  const ad_rev_call_row *row);
/* An unsupported-call error: fmt with one %s (name). */
int ad_rev_fail_call(ad_rev_fn *r, LLVMValueRef call, const char *fmt,
                     const char *name);
/* Whether the call or any of its arguments is active. */
int ad_rev_any_active(ad_rev_fn *r, LLVMValueRef call);
/* memory.c: what the bytes a copy (or CUDA transfer) of `len` bytes from
 * src to dst moves hold, by type analysis: counts of float, other (integer,
 * pointer) and unknown segments, and the first float's type (NULL when
 * none or of no float width).  0, or -1 when the layout failed (error
 * set). */
typedef struct ad_rev_bytes_census {
  size_t floats, other, unknown;
  LLVMTypeRef elem;
} ad_rev_bytes_census;
int ad_rev_copy_census(ad_rev_fn *r, LLVMValueRef call, LLVMValueRef dst,
                       LLVMValueRef src, LLVMValueRef len,
                       ad_rev_bytes_census *out);
/* memory.c: a zeroed shadow block of n bytes aligned to align (at least
 * 32), emitted at b in r's aug, pushed on the header's owned list; its
 * free (NULL: nothing); the loop at b freeing every block on header's
 * owned list. */
LLVMValueRef ad_rev_shadow_alloc(ad_rev_fn *r, LLVMBuilderRef b,
                                 LLVMValueRef align, LLVMValueRef n);
void ad_rev_shadow_free(ad_module_ctx *mc, LLVMBuilderRef b, LLVMValueRef s);
void ad_rev_free_owned_shadows(ad_module_ctx *mc, LLVMBuilderRef b,
                               LLVMValueRef header);
/* Below a shadow block's address: its size, its link on the owned list,
 * and the copy lanes.c keeps of it while enzyme_width's lanes share one
 * augmented pass (a block with a copy outlives its reverse's free). */
enum {
  AD_REV_SHADOW_SIZE_OFFSET = -16,
  AD_REV_SHADOW_LINK_OFFSET = -24,
  AD_REV_SHADOW_LANE_COPY_OFFSET = -32
};
/* The float type of `bits` bits, or NULL. */
LLVMTypeRef ad_rev_float_of_bits(ad_module_ctx *mc, unsigned bits);

/* float_loops.c: the per-float-type loops over shadow buffers (the file's
 * head comment gives each one's signature), declared in mc's module on
 * first use; n counts elements of t. */
typedef enum ad_rev_loop {
  AD_REV_LOOP_COPY,      /* (dst', src', n, i1 add): a copy's reverse */
  AD_REV_LOOP_TAKE,      /* (to, from, n): moved out, `from` zeroed */
  AD_REV_LOOP_ACCUMULATE /* (acc, add, n): acc += add */
} ad_rev_loop;
LLVMValueRef ad_rev_typed_helper(ad_module_ctx *mc, ad_rev_loop loop,
                                 LLVMTypeRef t);

struct ad_copy_layout; /* analysis/types.h */
/* memory.c: the refusal of copy `call` (rule `name`, a copy or transfer
 * as `what` says) of layout l when a byte of l is neither a float of a
 * known type, pointer, integer nor padding: -1 with the error (naming the
 * byte); else 0, *floats whether l has floats. */
int ad_rev_refuse_unclassified(ad_rev_fn *r, LLVMValueRef call,
                               const char *name,
                               const struct ad_copy_layout *l,
                               const char *what, int *floats);
/* memory.c: float_loops.c's `loop` (AD_REV_LOOP_TAKE or _ACCUMULATE) on
 * every float segment of layout l over a copy of len bytes (i64), at b,
 * each on (a + off, c + off) for the segment's byte offset off (a periodic
 * layout once per element, the last clipped).  The segment walk of host
 * copies that mix kinds, shared with cuda.c's host scratch buffers. */
void ad_rev_float_segments(ad_rev_fn *r, LLVMBuilderRef b,
                           const struct ad_copy_layout *l, ad_rev_loop loop,
                           LLVMValueRef a, LLVMValueRef c, LLVMValueRef len);

#endif

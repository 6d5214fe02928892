/*
 * The forward-mode engine's cross-file internals (the JIT sees only ad.h).
 *
 * Vocabulary used everywhere below:
 *  - primal: a value of the function being differentiated.  Inside a
 *    derivative body, `ad_primal()` maps it to its clone.
 *  - shadow / tangent: the derivative companion of a primal value.  For a
 *    float it is dv; for a pointer it is the pointer to the shadow memory;
 *    for an integer it is the "shadow integer" (only meaningful when the
 *    integer carries a pointer).  With vector (batched) width N > 1 the
 *    shadow of a value of type T has type [N x T], one lane per direction
 *    (Enzyme's convention).
 *  - active: a primal value that may carry a non-zero tangent (activity.c).
 *    A mutable global that receives active data is active module-wide and
 *    has one shadow global per lane (globals.c).
 *    An inactive float has tangent 0; an inactive int/pointer used where a
 *    shadow value is needed stands for itself (Enzyme does the same for
 *    constant pointers).
 *
 * Grouped by file, as the ad.h pipeline lists them.
 */
#ifndef TANJIT_AD_ENGINE_H
#define TANJIT_AD_ENGINE_H

#include <stddef.h>

#include <llvm-c/Core.h>
#include <llvm-c/DebugInfo.h>
#include <llvm-c/Target.h>

#include "ad/ad.h"
#include "common/error.h"

typedef struct ad_module_ctx ad_module_ctx;
typedef struct ad_fn_ctx ad_fn_ctx;

/* ---- map.c: pointer -> pointer hash map (open addressing) ---- */
typedef struct ad_map {
  void **keys, **vals;
  size_t cap, count;
} ad_map;
void ad_map_init(ad_map *m);
void ad_map_free(ad_map *m);
/* 0, or -1 on out of memory. */
int ad_map_put(ad_map *m, const void *key, void *val);
void *ad_map_get(const ad_map *m, const void *key);

/* ---- engine.c: sessions and one module's transform ---- */
typedef enum ad_arg_activity {
  AD_ARG_CONST = 0,
  AD_ARG_DUP = 1,
  AD_ARG_DUPNONEED = 2,
  /* duplicated by a caller whose shadow of this pointer may be the pointer
   * itself at run time (an enzyme_const pointer kept in shadowed memory):
   * accesses through it are checked as within the caller (run-time
   * activity) */
  AD_ARG_DUP_RUNTIME = 3
} ad_arg_activity;

typedef enum ad_ret_mode {
  AD_RET_VOID,    /* void: nothing returned                        */
  AD_RET_PRIMAL,  /* the primal result only (inactive return)      */
  AD_RET_TANGENT, /* the tangent only (Enzyme's default for fwddiff) */
  AD_RET_BOTH     /* { primal, tangent } (enzyme_primal_return)     */
} ad_ret_mode;

/* What one derivative function computes; the cache key. */
typedef struct ad_signature {
  LLVMValueRef fn;
  unsigned nparams;
  unsigned char *activity; /* ad_arg_activity per parameter (owned) */
  unsigned width;
  ad_ret_mode ret;
} ad_signature;

typedef struct ad_cache_entry {
  ad_signature sig;
  LLVMValueRef derivative;
  size_t prev_same_fn; /* 1 + index of the previous entry for sig.fn, or 0 */
  int built;           /* its body exists (else it waits on the worklist) */
} ad_cache_entry;

struct ad_module_ctx {
  ad_engine *engine;
  LLVMModuleRef mod;
  LLVMContextRef llctx;
  LLVMTargetDataRef td; /* the module's data layout (owned) */
  /* every derivative begun, in creation order; the ones not yet built
   * are the worklist (fwd.c), so that a chain of calls is differentiated
   * by a loop, not by one nested build per callee */
  ad_cache_entry *cache;
  size_t ncache, capcache;
  ad_map cache_index; /* primal fn -> 1 + index of its latest entry */
  size_t cache_built; /* entries below it are all built */
  /* mutable globals that receive active data: they get shadow globals.
   * Complete before the first derivative is emitted (engine.c discovers
   * the set first), so a cached derivative never sees it change. */
  ad_map active_globals;
  /* (global, lane) -> its shadow global (globals.c); by identity, not by
   * name, since globals may be unnamed or named like a shadow */
  ad_map global_shadows;
  /* memos over active_globals, valid while its count equals *_generation:
   * constant globals holding pointers to active globals (globals.c), and
   * functions that reach active globals through direct calls (activity.c) */
  ad_map global_refs_memo, touches_memo;
  size_t global_refs_generation, touches_generation;
  tanjit_error **err;
  int failed; /* an error is already stored in *err */
  tanjit_error_code failed_code; /* its code, also when err is NULL */
};


/* ---- ir.c: how the engine reads IR, the same way everywhere ---- */
/* Opcode classes that activity analysis, type analysis and the instruction
 * rules must agree on (one list, so they cannot drift apart).  Opcodes
 * outside these classes are handled one by one. */
typedef enum ad_opclass {
  AD_OP_OTHER = 0,
  AD_OP_CONTROL,      /* br, switch, unreachable, fence */
  AD_OP_COMPARE,      /* icmp, fcmp */
  AD_OP_FLOAT_TO_INT, /* fptosi, fptoui */
  AD_OP_INT_TO_FLOAT, /* sitofp, uitofp */
  AD_OP_INT_OFFSET,   /* add, sub, and, or, xor: may move an address that
                         an integer holds (p + k, p & mask) */
  AD_OP_INT_NUMBER    /* mul, udiv, sdiv, urem, srem, shl, lshr, ashr: a
                         plain number, operands and result */
} ad_opclass;
ad_opclass ad_opcode_class(LLVMOpcode op);
/* Integer arithmetic (AD_OP_INT_OFFSET or AD_OP_INT_NUMBER). */
int ad_opclass_is_int_arith(ad_opclass c);
/* Never carries a tangent: control flow, comparisons, and conversions
 * between floats and integers (their derivative is zero, exactly).
 * Activity never marks these; the rules only clone them. */
int ad_opclass_has_no_tangent(ad_opclass c);

/* What ad_strip_casts looks through besides bitcast and addrspacecast. */
enum {
  AD_STRIP_INT_CASTS = 1 << 0,   /* ptrtoint, inttoptr */
  AD_STRIP_GEPS = 1 << 1,        /* getelementptr: into the same object */
  AD_STRIP_FREEZE = 1 << 2,      /* freeze (instructions only) */
  AD_STRIP_INSTRUCTIONS = 1 << 3 /* instructions too, not only constant
                                    expressions */
};
/* `v` with the casts selected by `what` (AD_STRIP_*) peeled off. */
LLVMValueRef ad_strip_casts(LLVMValueRef v, unsigned what);

/* ---- preprocess.c: before differentiation ---- */
/* Drops optnone and promotes stack slots (SROA) in a module that requests
 * derivatives.  0, or -1 with *err set. */
int ad_preprocess_module(LLVMModuleRef m, tanjit_error **err);
/* signbits.c: fabs, fneg, copysign written as masks on a float's bits. */
void ad_rewrite_sign_bit_operations(LLVMModuleRef m);

/* ---- diag.c: errors that say what, where and why ---- */
/* Fails with TANJIT_ERR_DIFFERENTIATE: "<message> in <function> at
 * <file>:<line>" (the location from `where`'s !dbg when present; `where` may
 * be an instruction, a function, or NULL).  Returns -1; never overwrites an
 * error already stored. */
int ad_fail(ad_module_ctx *mc, LLVMValueRef where, const char *fmt, ...)
    TJ_PRINTF(3, 4);
int ad_fail_code(ad_module_ctx *mc, tanjit_error_code code, LLVMValueRef where,
                 const char *fmt, ...) TJ_PRINTF(4, 5);
/* The printed text of a value, truncated for messages (caller frees). */
char *ad_value_text(LLVMValueRef v);
/* The name of a value ("<unnamed>" when it has none); borrowed. */
const char *ad_value_name(LLVMValueRef v);

/* ---- types.c: the byte layout of copied memory (type analysis) ---- */
/*
 * What the bytes of a copy hold, so one copy rule (memcpy, memmove, the CUDA
 * transfers) can treat each part as Enzyme does: float and pointer bytes
 * copy their shadow; with an inactive source, float bytes of the
 * destination's shadow are zeroed and pointer bytes get the source's
 * pointer; integer bytes are left alone.  UNKNOWN bytes keep the
 * conservative behaviour (copy the shadow, or zero it).
 */
typedef enum ad_byte_kind {
  AD_BYTES_UNKNOWN = 0,
  AD_BYTES_FLOAT,
  AD_BYTES_POINTER,
  AD_BYTES_INTEGER
} ad_byte_kind;
typedef struct ad_segment {
  unsigned long long offset, size; /* bytes, within one period */
  ad_byte_kind kind;
} ad_segment;
typedef struct ad_copy_layout {
  ad_segment *segs; /* sorted, non-overlapping; malloc'd */
  size_t n;
  /* The pattern repeats every `period` bytes (an array of structs copied
   * with a run-time length); 0: the segments cover the copy once. */
  unsigned long long period;
} ad_copy_layout;
/* The layout of the `len` bytes a copy call moves from `src` to `dst` (the
 * primal operands).  Never fails for lack of knowledge: unknown bytes are
 * one AD_BYTES_UNKNOWN segment.  0, or -1 (out of memory, error in fc). */
int ad_copy_layout_of(ad_fn_ctx *fc, LLVMValueRef call, LLVMValueRef dst,
                      LLVMValueRef src, LLVMValueRef len, ad_copy_layout *out);
void ad_copy_layout_free(ad_copy_layout *l);

/* ---- types.c: type classification ---- */
int ad_type_is_float(LLVMTypeRef t);        /* float scalar or float vector */
int ad_type_is_float_scalar(LLVMTypeRef t); /* half .. fp128, x86_fp80 */
int ad_type_is_pointerish(LLVMTypeRef t);   /* ptr or vector of ptr */
/* Whether values of this type can carry a derivative on their own (float,
 * pointer, or an aggregate holding either); integers cannot. */
int ad_type_can_carry(LLVMTypeRef t);
/* Enzyme's default activity for an unmarked request argument (whatType):
 * float, pointer and aggregates of them are duplicated, integers constant. */
ad_arg_activity ad_type_default_activity(LLVMTypeRef t);

/* ---- activity.c: which primal values may carry a tangent ---- */
/* Fills fc->active for fc->sig's function (fixpoint over the body). */
int ad_activity_analyze(ad_fn_ctx *fc);
/* TANJIT_AD_NO_ACTIVITY is set (read once per process): assume every
 * integer and stack slot may carry a derivative, for measuring. */
int ad_activity_disabled(void);
int ad_is_active(const ad_fn_ctx *fc, LLVMValueRef primal);
/* Strips GEPs and casts from a pointer: the allocation it points into. */
LLVMValueRef ad_pointer_root(LLVMValueRef p);
/* Whether defined function `fn`, or one it calls directly, uses an
 * active global: its calls need its derivative even with no active
 * argument. */
int ad_function_touches_active_globals(ad_module_ctx *mc, LLVMValueRef fn);

/* ---- fwd.c: derivative functions, cloning, the per-body context ---- */
struct ad_fn_ctx {
  ad_module_ctx *mc;
  const ad_signature *sig;
  LLVMValueRef primal_fn, deriv_fn;
  LLVMBuilderRef b;
  unsigned width;
  ad_map vmap;   /* primal value / block -> clone */
  ad_map shadow; /* primal value -> shadow in the derivative */
  ad_map active; /* primal value -> (void*)1 when active */
  /* primal block -> the derivative block holding its terminator (a rule
   * may split the block, e.g. an indirect call's dispatch) */
  ad_map exit_block;
  /* PHIs whose incoming values are filled once every block is cloned */
  struct ad_pending_phi {
    LLVMValueRef primal, clone, shadow;
  } *phis;
  size_t nphis, capphis;
  /* ad_types of primal_fn (typeanalysis.h), computed on first use by
   * ad_copy_layout_of and freed with the context; NULL until then */
  void *types;
};

/* The derivative function for `sig` (cached; created with internal linkage).
 * A new one is only declared: its body is built by ad_build_derivatives,
 * so a derivative calling others (or itself) never nests their builds.
 * `where` locates errors.  NULL on failure with the error in mc. */
LLVMValueRef ad_get_derivative(ad_module_ctx *mc, const ad_signature *sig,
                               LLVMValueRef where);
/* Builds the bodies of every derivative begun at cache index `from` or
 * later, including those their bodies begin (a worklist, in creation
 * order).  0, or -1 with the error in mc. */
int ad_build_derivatives(ad_module_ctx *mc, size_t from);
/* Forgets the derivatives begun at cache index `mark` or later: their
 * functions are deleted (uses replaced by poison) and their entries freed. */
void ad_forget_derivatives(ad_module_ctx *mc, size_t mark);
/* Copies the primal's by-value (byval + align) parameter attributes to the
 * matching parameters of a derivative function or of a call to it (a
 * by-value struct's shadow is passed by value too; batched shadows travel
 * as arrays of pointers, so only the primal is by value there). */
void ad_copy_abi_attrs(const ad_signature *sig, LLVMValueRef target);
/* Derivative's type for a signature. */
LLVMTypeRef ad_derivative_type(ad_module_ctx *mc, const ad_signature *sig);

/* ---- tangent.c: shadows, lanes and the arithmetic of tangents ---- */
LLVMValueRef ad_primal(ad_fn_ctx *fc, LLVMValueRef v);
/* The shadow recorded for v, or NULL when v is inactive. */
LLVMValueRef ad_shadow_or_null(ad_fn_ctx *fc, LLVMValueRef v);
/* The shadow as a value: recorded one, else 0 for floats and the primal
 * (replicated per lane) for ints and pointers.  Emits at the builder. */
LLVMValueRef ad_shadow_value(ad_fn_ctx *fc, LLVMValueRef v);
void ad_set_shadow(ad_fn_ctx *fc, LLVMValueRef primal, LLVMValueRef shadow);
LLVMTypeRef ad_shadow_type(ad_fn_ctx *fc, LLVMTypeRef t);
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
 * caller passed AD_ARG_DUP_RUNTIME.  (tangent.c) */
int ad_shadow_param_may_be_primal(ad_fn_ctx *fc, LLVMValueRef shadow);
/* The tangent work of load or store `inst` (clone `clone`) through such a
 * pointer, per lane: where shadow == primal a store writes the primal
 * value again (a no-op) and a load reads zero float tangents.  Returns the
 * load's shadow (NULL for a store). */
LLVMValueRef ad_guarded_access(ad_fn_ctx *fc, LLVMValueRef inst,
                               LLVMValueRef clone);

/* One term of a tangent linear combination: sign * coef * tangent.
 * coef NULL means 1; tangent NULL means 0 (the term is skipped). */
typedef struct ad_term {
  LLVMValueRef coef;
  LLVMValueRef tangent; /* a shadow (all lanes) */
  int negate;
} ad_term;
/* sum(terms) [/ divisor], per lane, fast-math flags copied from fmf_src
 * (may be NULL).  Returns the zero tangent when every term is zero. */
LLVMValueRef ad_lincomb(ad_fn_ctx *fc, LLVMTypeRef t, const ad_term *terms,
                        unsigned nterms, LLVMValueRef divisor,
                        LLVMValueRef fmf_src);
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
void ad_copy_fmf(LLVMValueRef to, LLVMValueRef from);

/* ---- rules_inst.c: one instruction's primal clone and tangent ---- */
/* Emits the clone (unless the rule replaces it) and the tangent of primal
 * instruction `inst` at fc->b.  0 or -1. */
int ad_emit_instruction(ad_fn_ctx *fc, LLVMValueRef inst);
/* Clones `inst` at the builder with operands mapped to the derivative
 * body, and records it in the value map.  NULL on out of memory. */
LLVMValueRef ad_clone(ad_fn_ctx *fc, LLVMValueRef inst);
/* Name matching for rule tables: exact, or for an "llvm.*" pattern the
 * overloaded form (pattern followed by '.'). */
int ad_name_matches(const char *name, const char *pattern);

/* ---- rules_call.c: call rules by name, in families ----
 *
 * A family is a `lookup(name)` over its own static const table.  The
 * dispatcher asks custom rules first (custom.c), then resolves a call's name
 * (the callee's "enzyme_math" attribute, then the <name> of a renamed ccall
 * `ejlstr$<name>$<lib>` / `ejlptr$<name>$<handle>`, else the plain name)
 * and asks each family in ad_call_families order; the first hit wins.  To
 * add a family (as src/ad/rules_cuda.c did):
 *   1. write `const ad_call_rule *ad_cuda_lookup(const char *name)` returning
 *      a pointer into a `static const ad_call_rule[]`;
 *   2. declare it below and add it to ad_call_families[] in rules_call.c;
 *   3. each rule's emit() receives the primal call and its context; the
 *      primal clone (`clone`, already inserted, operands remapped) exists,
 *      the builder is positioned right after it; emit shadow work there
 *      (before the clone: LLVMPositionBuilderBefore(fc->b, clone)) and
 *      record the call's shadow with ad_set_shadow when the call is active.
 *      Helpers next to the call come from ad_get_or_insert_helper.
 *      Use ad_shadow_or_null / ad_shadow_value / ad_lane for operands,
 *      ad_is_active for activity, ad_fail for errors.
 *   4. activity: rules with `writes_pointer_args` make the roots of their
 *      pointer arguments active when any argument is active;
 *      `returns_allocation` makes the result an allocation root (active
 *      when it receives active data).
 *   5. types: a family whose calls take pointers, sizes or out-parameters
 *      keeps its table as ad_typed_rule entries (below) and exports a typed
 *      lookup that call_types_of in typeanalysis.c asks.
 */
typedef struct ad_call_rule ad_call_rule;
struct ad_call_rule {
  const char *name;
  /* Emits the tangent work of `call` (primal) next to `clone`.  0 or -1. */
  int (*emit)(ad_fn_ctx *fc, const ad_call_rule *rule, LLVMValueRef call,
              LLVMValueRef clone);
  const void *data; /* family-specific (e.g. the math table entry) */
  unsigned char writes_pointer_args;
  unsigned char returns_allocation;
  unsigned char inactive; /* no derivative effect at all */
};
typedef const ad_call_rule *(*ad_call_family_lookup)(const char *name);

/*
 * A rule with what type analysis (typeanalysis.c) learns from its calls'
 * arguments, kept in the same table entry so that a call the rules handle
 * is never one type analysis knows nothing about.  One letter per argument
 * (arguments past the string's end are not classified):
 *   p  a pointer (for an integer: a device pointer, CUdeviceptr)
 *   i  an integer (sizes, flags, directions, byte values)
 *   d s n  a transfer's destination and source (pointers) and byte count
 *      (an integer): the layouts of the two sides are exchanged
 *   P  an out-parameter that receives a pointer (8 bytes at offset 0)
 *   I  an out-parameter that receives an int (4 bytes)
 *   Z  an out-parameter that receives a size_t (pointer-sized integer)
 *   F  an out-parameter that receives a float of the call's result type
 *   -  not classified (a stream, a context)
 * A rule with `returns_allocation` makes its result a fresh object.
 */
typedef struct ad_typed_rule {
  ad_call_rule rule;
  const char *arg_types; /* NULL: nothing known */
} ad_typed_rule;

/* A renamed ccall, as the JIT binds it (src/jit/resolve.c):
 * `ejlstr$<fn>$<lib>` (fn from library lib, opened RTLD_LOCAL) or
 * `ejlptr$<fn>$<handle>` (from a library already open).  lib runs to the end
 * of the name, so a path holding '$' still works. */
typedef struct ad_rename {
  const char *prefix; /* "ejlstr$" or "ejlptr$" (static) */
  const char *fn;     /* fn_len bytes, not NUL-terminated */
  size_t fn_len;
  const char *lib;    /* NUL-terminated: the rest of the name */
} ad_rename;
/* 1: `name` is a rename, parts in *out (may be NULL); 0: it is not; -1: it
 * has a rename's prefix but not its shape (an empty fn or lib: the JIT
 * cannot bind it either). */
int ad_parse_rename(const char *name, ad_rename *out);
/* The rule name of a call (see above); writes into buf. */
const char *ad_call_rule_name(const ad_engine *e, LLVMValueRef call,
                              char *buf, size_t bufsize);
const ad_call_rule *ad_find_call_rule(const ad_engine *e, LLVMValueRef call);
int ad_emit_call(ad_fn_ctx *fc, LLVMValueRef call);
/* The function a call calls after stripping casts, or NULL if indirect. */
LLVMValueRef ad_called_function(LLVMValueRef call);
/* engine.c: the run-time report and its user data (NULL: none), and a copy
 * of s kept as long as the engine (NULL on out of memory). */
ad_runtime_report ad_engine_runtime_report(const ad_engine *e, void **user);
const char *ad_engine_keep_string(ad_engine *e, const char *s);
/* engine.c: whether f may be the target of the indirect call: same type, a
 * body, address taken (ad.h).  The requests' order and the indirect-call
 * rule agree. */
int ad_may_be_indirect_target(LLVMValueRef call, LLVMValueRef f);

const ad_call_rule *ad_math_lookup(const char *name);   /* rules_math.c */
const ad_call_rule *ad_memory_lookup(const char *name); /* rules_memory.c */
const ad_typed_rule *ad_memory_typed_lookup(const char *name);
const ad_call_rule *ad_inactive_lookup(const char *name); /* rules_call.c */
const ad_call_rule *ad_vector_lookup(const char *name); /* rules_vector.c */
const ad_call_rule *ad_complex_lookup(const char *name); /* rules_complex.c */
const ad_call_rule *ad_cuda_lookup(const char *name);   /* rules_cuda.c */
const ad_typed_rule *ad_cuda_typed_lookup(const char *name);
/* rules_math.c self-check: every entry's programs parse.  0 or -1. */
int ad_math_table_check(char *why, size_t whysize);
/* For tests: the math table as (name, arity, float-arg mask) rows. */
size_t ad_math_table_size(void);
const char *ad_math_table_name(size_t i, unsigned which); /* 0 d,1 f,2 l,3 llvm */
unsigned ad_math_table_arity(size_t i);
/* Bit k set: argument k is an integer (not differentiated). */
unsigned ad_math_table_int_args(size_t i);

/* ---- custom.c: custom rules (in-IR registrations, tanjit_register_fwd_rule,
 * the enzyme_inactive attribute); consulted before the built-in tables ---- */
typedef struct ad_custom_registry ad_custom_registry;
ad_custom_registry *ad_custom_registry_new(void); /* NULL on out of memory */
void ad_custom_registry_free(ad_custom_registry *r); /* NULL-tolerant */
/* The engine's registry (engine.c owns it). */
ad_custom_registry *ad_engine_custom(const ad_engine *e);
/* ad_custom_read_registrations: declared in ad.h (the loader calls it). */
/* The custom rule for `call`, or NULL: an inactive rule for an
 * "enzyme_inactive" callee or call site, the in-IR derivative of the callee,
 * or the latest rule registered for its plain or rule name. */
const ad_call_rule *ad_custom_lookup(const ad_engine *e, LLVMValueRef call);

/* ---- copy.c: one copy rule for host and device memory ----
 *
 * memcpy/memmove and every CUDA transfer differentiate the same way; only
 * how bytes are moved or zeroed differs, which an emitter says.  Addresses
 * an emitter receives have the types of the call's own operands (a pointer,
 * or an integer holding a device pointer).  The segment rules are those of
 * ad_copy_layout_of (types.c). */
typedef struct ad_copy_emitter ad_copy_emitter;
struct ad_copy_emitter {
  /* Emits a copy of `n` bytes from `src` to `dst` at fc->b: the call
   * `clone` replayed on these operands (for an LLVM memcpy, the intrinsic;
   * for CUDA, the same API call with its kind and stream).  0 or -1. */
  int (*copy)(ad_fn_ctx *fc, const ad_copy_emitter *em, LLVMValueRef clone,
              LLVMValueRef dst, LLVMValueRef src, LLVMValueRef n);
  /* Emits the zeroing of `n` bytes at `dst` (memset, cuMemsetD8_v2, ...).
   * 0 or -1. */
  int (*zero)(ad_fn_ctx *fc, const ad_copy_emitter *em, LLVMValueRef clone,
              LLVMValueRef dst, LLVMValueRef n);
  const void *data; /* the emitter's own (e.g. a CUDA rule's operands) */
};
/* Differentiates the copy `call` (primal; `clone` its clone, the builder
 * after it) of `len` bytes from `src` to `dst` (primal operands of call).
 * Emits nothing when the destination has no shadow; fails when active
 * bytes would land in memory with no shadow.  0 or -1. */
int ad_differentiate_copy(ad_fn_ctx *fc, LLVMValueRef call, LLVMValueRef clone,
                          LLVMValueRef dst, LLVMValueRef src, LLVMValueRef len,
                          const ad_copy_emitter *em);
/* `addr` + `off` bytes, for a pointer or for an integer that holds one
 * (inttoptr, GEP, ptrtoint: device pointers are offset as pointers). */
LLVMValueRef ad_offset_address(ad_fn_ctx *fc, LLVMValueRef addr,
                               LLVMValueRef off);
/* Converts an address between pointer and integer forms (`to` either). */
LLVMValueRef ad_address_as(ad_fn_ctx *fc, LLVMValueRef addr, LLVMTypeRef to);
/* Emits a copy of call `clone` at fc->b with operand ops[i] replaced by
 * vals[i] (converted to the operand's pointer or integer type; n <= 8):
 * same callee, attributes, calling convention and !dbg, except the
 * alignment and dereferenceability claims of replaced operands (a piece of
 * a copy does not inherit them).  NULL if n > 8. */
LLVMValueRef ad_replay_call(ad_fn_ctx *fc, LLVMValueRef clone,
                            const unsigned *ops, LLVMValueRef *vals,
                            unsigned n);

/* ---- helpers.c ---- */
/* Declares (or finds) `helper_name` with `fn_type` for use next to
 * `accompanied_call`: same calling convention; if the accompanied callee is
 * a rename `ejlstr$<f>$<lib>` (or `ejlptr$<f>$<handle>`), the helper is
 * `ejlstr$<helper_name>$<lib>` (`ejlptr$...`) carrying
 * "enzyme_math"="<helper_name>", so it resolves from the same library. */
LLVMValueRef ad_get_or_insert_helper(LLVMModuleRef m,
                                     LLVMValueRef accompanied_call,
                                     const char *helper_name,
                                     LLVMTypeRef fn_type);
/* Calls a helper made by ad_get_or_insert_helper under its convention. */
LLVMValueRef ad_call_helper(LLVMBuilderRef b, LLVMValueRef helper,
                            LLVMValueRef *args, unsigned nargs,
                            const char *name);

/* ---- globals.c ---- */
/* The shadow of a constant: constant globals get a read-only `<name>_shadow`
 * holding zero tangents (pointers inside replaced by their shadows); other
 * constants map floats to 0 and keep integers and mutable globals. */
LLVMValueRef ad_constant_shadow(ad_module_ctx *mc, LLVMValueRef c,
                                unsigned lane);
/* Empties `memo` (one of ad_module_ctx's memos over active_globals, with
 * its `generation`) if active globals were added since it was filled: its
 * answers depend on that set, which only grows. */
void ad_refresh_globals_memo(ad_module_ctx *mc, ad_map *memo,
                             size_t *generation);
/* Whether a defined mutable global can be given a shadow global. */
int ad_global_can_shadow(LLVMValueRef g);
/* Whether global g has a shadow holding tangents: an active mutable
 * global, or a constant one whose initializer points to active globals
 * (its shadow is a per-lane table of their shadows). */
int ad_global_is_active(ad_module_ctx *mc, LLVMValueRef g);
/* Makes active every mutable global whose address constant global `g`'s
 * initializer holds (a pointer loaded from g must have a shadow).  Returns
 * how many became active, or -1 on out of memory. */
int ad_demand_global_targets(ad_module_ctx *mc, LLVMValueRef g);

/* ---- request.c ---- */
/* Rewrites one __enzyme_fwddiff call.  0 or -1. */
int ad_rewrite_request(ad_module_ctx *mc, LLVMValueRef call);

#endif

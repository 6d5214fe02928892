/*
 * How the engine reads IR, the same way everywhere: opcode classes, casts
 * looked through, what a call calls, LLVM type classes, and helpers declared
 * next to a call.  Depends on nothing of the engine (LLVM-C and src/common
 * only), so every other folder of src/ad may use it.
 */
#ifndef TANJIT_AD_IR_IR_H
#define TANJIT_AD_IR_IR_H

#include <llvm-c/Core.h>

/* ---- ir.c: opcode classes and casts ---- */
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
/* The value of a switch's case k (successor k, 1 <= k < successors). */
LLVMValueRef ad_switch_case_value(LLVMValueRef sw, unsigned k);

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

/* The function a call calls after stripping casts, or NULL if indirect. */
LLVMValueRef ad_called_function(LLVMValueRef call);
/* Whether control never goes on past `call` (a call or an invoke): its
 * callee or the call site is noreturn, or, for a call, the next
 * instruction (debug intrinsics skipped) is `unreachable`, which is how
 * Julia and clang end an error branch after a call that throws or exits
 * (were the call to return there, the program's behavior is undefined).
 * An invoke's unwind edge may still go on: only noreturn counts for it. */
int ad_call_never_returns(LLVMValueRef call);
/* Visits the value of every store into a local slot `addr` (an alloca,
 * or a GEP or cast of one, followed through its GEPs and casts):
 * 1 as soon as `stored` returns nonzero, or when the slot's address goes
 * where its stores cannot be seen (a call other than lifetime and debug
 * markers, the address itself stored); 0 when every stored value gave 0.
 * The walk gives up (1) past 64 levels of GEPs. */
int ad_slot_stores_any(LLVMValueRef addr, int (*stored)(void *ctx, LLVMValueRef v),
                       void *ctx);
/* Whether fn is variadic and its body may read the variadic arguments:
 * it calls llvm.va_start, or forwards them (a musttail call); one without
 * a body may.  A variadic function that does neither (libstdc++'s
 * std::visit lambda `[](auto&& v, ...)`, called with its fixed
 * parameters) is its fixed parameters' function, and is differentiated
 * so. */
int ad_reads_variadic_arguments(LLVMValueRef fn);
/* Whether f may be the target of the indirect call: same type, a body,
 * address taken (ad_function_address_taken, ad.h).  The requests' order
 * (engine.c) and the indirect-call rule (fwd/indirect.c) agree. */
int ad_may_be_indirect_target(LLVMValueRef call, LLVMValueRef f);
/* Whether declared function f (no body) may be the target of the indirect
 * call: same type, address taken (libm's sin in a table of callbacks). */
int ad_may_be_declared_indirect_target(LLVMValueRef call, LLVMValueRef f);
/* An internal function `tanjit.direct.<f>` of f's type whose body only
 * calls declared function f directly (made once; NULL on out of memory).
 * The engine differentiates it as a defined target of an indirect call,
 * and f's call rule applies to that direct call. */
LLVMValueRef ad_direct_call_wrapper(LLVMModuleRef m, LLVMValueRef f);
/* Names v after `from` with `suffix` appended (a clone "x", a shadow
 * "x'"); an unnamed `from` leaves v unnamed, and so does out of memory
 * (a name is only for reading the IR). */
void ad_name_after(LLVMValueRef v, LLVMValueRef from, const char *suffix);
/* Name matching for rule tables: exact, or for an "llvm.*" pattern the
 * overloaded form (pattern followed by '.'). */
int ad_name_matches(const char *name, const char *pattern);
/* A function the engine defines (a derivative, an augmented forward or
 * reverse pass, a tanjit.* helper): LLVMAddFunction, and the string
 * attribute "tanjit-generated" that marks it as the engine's own code, the
 * one mark the analyses read (a name prefix would also match the
 * program's own `difference()`).  Declarations of external functions
 * (libc, the runtime) are added plainly. */
LLVMValueRef ad_add_generated_function(LLVMModuleRef m, const char *name,
                                       LLVMTypeRef fn_type);
/* Whether fn carries the mark ad_add_generated_function sets. */
int ad_is_generated_function(LLVMValueRef fn);

/* A load or store of a tape record (rev/tape.c: a value pushed by the
 * augmented pass, popped by the reverse at the same type and offset):
 * metadata "tanjit.tape" marks it, so type analysis takes the value's
 * type from the access alone (the buffer it goes through holds records of
 * every kind at offsets known only at run time).  Returns inst. */
LLVMValueRef ad_mark_tape_access(LLVMValueRef inst);
int ad_is_tape_access(LLVMValueRef inst);

/* ---- alias_scopes.c: a duplicated pointer and its shadow are disjoint ---- */
enum { AD_MAX_DISJOINT_PAIRS = 64 };
/* A pointer parameter of a derivative and the parameter holding its
 * shadow (a pointer, or [N x ptr] in vector mode), which point to
 * disjoint objects; index: the primal parameter's position (for the
 * scopes' names). */
typedef struct ad_disjoint_params {
  LLVMValueRef primal, shadow;
  unsigned index;
} ad_disjoint_params;
/* Tells LLVM, with alias scopes, that fn's accesses based on each pair's
 * primal do not alias those based on its shadow (the first
 * AD_MAX_DISJOINT_PAIRS pairs).  Run once fn's body is complete. */
void ad_scope_disjoint_params(LLVMValueRef fn, const ad_disjoint_params *pairs,
                              unsigned npairs);

/* ---- fn_env.c: the target and floating-point environment of the
 * functions the engine defines (string attributes such as "target-cpu",
 * "target-features", "denormal-fp-math") ---- */
/* Gives derivative (a forward derivative, an augmented forward or reverse
 * pass, a wrapper of one) the environment of the primal it derives from,
 * so it is compiled as the primal is; never the primal's enum attributes
 * (memory effects, optnone) nor its role marks (enzyme_math, ...). */
void ad_copy_fn_environment(LLVMValueRef primal, LLVMValueRef derivative);
/* Gives each helper the engine defined without an environment (tape,
 * shadow-reset, guard, wrapper functions) the one its callers share, once
 * they have theirs, so LLVM may inline it into them.  Run once, after
 * every derivative of the module is built. */
void ad_settle_helper_environments(LLVMModuleRef m);

/* ---- typeclass.c: classes of LLVM types ---- */
int ad_type_is_float(LLVMTypeRef t);        /* float scalar or float vector */
int ad_type_is_float_scalar(LLVMTypeRef t); /* half .. fp128, x86_fp80 */
int ad_type_is_pointerish(LLVMTypeRef t);   /* ptr or vector of ptr */
/* A pointer, or a struct or array holding one (Julia's {ptr, len} array
 * descriptor by value, an augmented pass's {primal, shadow}), nested up
 * to 8 deep. */
int ad_type_holds_pointer(LLVMTypeRef t);
/* Whether values of this type can carry a derivative on their own (float,
 * pointer, or an aggregate holding either); integers cannot. */
int ad_type_can_carry(LLVMTypeRef t);

/* ---- null_argument.c ---- */
/* Whether argument `a` of `call` to callee `fn` is a null, undef or poison
 * pointer the callee can never dereference (address space 0, fn without
 * null_pointer_is_valid), in code the program wrote, not the engine. */
int ad_is_null_pointer_argument(LLVMValueRef call, LLVMValueRef fn,
                                LLVMValueRef a);

/* ---- helpers.c: helpers declared next to a call ---- */
/* Declares (or finds) `helper_name` with `fn_type` for use next to
 * `accompanied_call`: same calling convention; if the accompanied callee is
 * a rename `ejlstr$<f>$<lib>` (or `ejlptr$<f>$<handle>`, common/rename.h),
 * the helper is `ejlstr$<helper_name>$<lib>` (`ejlptr$...`) carrying
 * "enzyme_math"="<helper_name>", so it resolves from the same library. */
LLVMValueRef ad_get_or_insert_helper(LLVMModuleRef m,
                                     LLVMValueRef accompanied_call,
                                     const char *helper_name,
                                     LLVMTypeRef fn_type);
/* Calls a helper made by ad_get_or_insert_helper under its convention. */
LLVMValueRef ad_call_helper(LLVMBuilderRef b, LLVMValueRef helper,
                            LLVMValueRef *args, unsigned nargs,
                            const char *name);
/* `name` in m, or a new external declaration of it with fn_type. */
LLVMValueRef ad_get_or_declare(LLVMModuleRef m, const char *name,
                               LLVMTypeRef fn_type);
/* Adds an internal function `name` (LLVM uniquifies a taken name) with an
 * empty "entry" block; *fn gets it.  Returns a builder positioned at the
 * entry's end, which the caller fills and disposes. */
LLVMBuilderRef ad_define_internal(LLVMModuleRef m, const char *name,
                                  LLVMTypeRef fn_type, LLVMValueRef *fn);
/* *fn = `name` in m if it exists (returns NULL: nothing to build), else
 * ad_define_internal: a builder at the new function's entry, for the caller
 * to write the body with and dispose. */
LLVMBuilderRef ad_get_or_define_internal(LLVMModuleRef m, const char *name,
                                         LLVMTypeRef fn_type,
                                         LLVMValueRef *fn);

/* ---- unwind.c: emitted calls back onto an unwind edge (Itanium EH) ---- */
/* Copies call-site attributes, calling convention and debug location. */
void ad_copy_call_site_attrs(LLVMValueRef from, LLVMValueRef to);
/* Ends b's block with a call of llvm.trap and `unreachable`: where
 * generated code has no error channel (out of memory, a full tape). */
void ad_build_trap(LLVMModuleRef m, LLVMBuilderRef b);
/* Whether a call may throw (not nounwind, not an intrinsic, inline asm,
 * an engine helper `tanjit.*` or libc's allocator). */
int ad_ir_may_unwind(LLVMValueRef call);
/* Whether bb's first non-PHI is a landingpad; that landingpad (or NULL). */
int ad_ir_is_landing_block(LLVMBasicBlockRef bb);
LLVMValueRef ad_ir_landing_pad_of(LLVMBasicBlockRef bb);
/* A new block at the end of fn holding a landingpad like lp (type, clauses,
 * cleanup) and a branch to target: one invoke's own pad in front of the
 * block its primal pad became, so that block may take PHIs per invoke. */
LLVMBasicBlockRef ad_ir_pad_in_front(LLVMValueRef fn, LLVMValueRef lp,
                                     LLVMBasicBlockRef target);
/* Told when `from` (a call made an invoke, a successor's PHI rebuilt) is
 * replaced by `to`, just before `from` is erased: the caller's maps. */
typedef void (*ad_ir_renamed_fn)(void *ctx, LLVMValueRef from, LLVMValueRef to);
/* The landing pad block the walk's invokes unwind to, made on first need;
 * NULL: failed (the maker has said why). */
typedef LLVMBasicBlockRef (*ad_ir_pad_fn)(void *ctx);
/* Replaces `call` by an invoke unwinding to `pad`; what followed it in its
 * block moves to a new block, the invoke's normal destination, returned
 * (NULL: out of memory); successors' PHIs name the new block. */
LLVMBasicBlockRef ad_ir_call_to_invoke(LLVMValueRef call, LLVMBasicBlockRef pad,
                                       ad_ir_renamed_fn renamed, void *ctx);
/* Every call that may unwind among the instructions after `before` in
 * `start` (all of it when NULL) and in the blocks after `last_old` becomes
 * an invoke to get_pad(ctx); *end (the block the work ends in) follows the
 * splits.  0; -1: get_pad failed; -2: out of memory. */
int ad_ir_rethread_unwind(LLVMBasicBlockRef start, LLVMValueRef before,
                          LLVMBasicBlockRef last_old, LLVMBasicBlockRef *end,
                          ad_ir_pad_fn get_pad, ad_ir_renamed_fn renamed,
                          void *ctx);

#endif

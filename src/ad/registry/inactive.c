/*
 * The "inactive" family: functions and intrinsics with no derivative effect
 * (printing, lifetime markers, ...), whose primal call is simply kept.
 * Data only: the dispatcher never runs an inactive rule's emitter.  And the
 * "noreturn" family, asked after every other: calls that never return
 * (end of file).
 *
 * The library rows follow the functions Enzyme's activity analysis knows
 * are inactive (its known-inactive list and the iostream prefixes it
 * matches): formatted output writes characters, string comparisons return
 * integers, and neither moves a float value into anything a tangent
 * follows.  C++ names are matched by mangled prefix, as Enzyme matches
 * them, since each overload and template instance has its own name.
 */
#include <stddef.h>
#include <string.h>

#include "ad/core/context.h"
#include "ad/ir/ir.h"
#include "ad/registry/registry.h"

static int emit_nothing(ad_fn_ctx *fc, const ad_call_rule *r, LLVMValueRef call,
                        LLVMValueRef clone) {
  (void)fc;
  (void)r;
  (void)call;
  (void)clone;
  return 0;
}

#define INACTIVE(n) {.name = n, .emit = emit_nothing, .inactive = 1}
static const ad_call_rule inactive_rules[] = {
    INACTIVE("printf"),
    INACTIVE("fprintf"),
    INACTIVE("snprintf"),
    INACTIVE("sprintf"),
    INACTIVE("vprintf"),
    INACTIVE("vfprintf"),
    INACTIVE("vsnprintf"),
    INACTIVE("vsprintf"),
    INACTIVE("puts"),
    INACTIVE("putchar"),
    INACTIVE("fputs"),
    INACTIVE("fputc"),
    INACTIVE("fflush"),
    INACTIVE("fwrite"),
    INACTIVE("putc"),
    /* reads of characters that return an integer */
    INACTIVE("strlen"),
    INACTIVE("strnlen"),
    INACTIVE("strcmp"),
    INACTIVE("strncmp"),
    INACTIVE("memcmp"),
    INACTIVE("bcmp"), /* memcmp(...) == 0 as clang -O2 writes it */
    /* C++ start-up and static-local guards */
    INACTIVE("__cxa_atexit"),
    INACTIVE("__cxa_guard_acquire"),
    INACTIVE("__cxa_guard_release"),
    INACTIVE("__cxa_guard_abort"),
    /* C++ exception handling (Itanium ABI): the exception object and the
     * unwinder carry no derivative (fwd/exceptions.c keeps the edges) */
    INACTIVE("__cxa_allocate_exception"),
    INACTIVE("__cxa_free_exception"),
    INACTIVE("__cxa_throw"),
    INACTIVE("__cxa_rethrow"),
    INACTIVE("__cxa_begin_catch"),
    INACTIVE("__cxa_end_catch"),
    INACTIVE("__cxa_get_exception_ptr"),
    INACTIVE("__cxa_call_unexpected"),
    INACTIVE("__cxa_bad_alloc"),
    INACTIVE("__gxx_personality_v0"),
    INACTIVE("_Unwind_Resume"),
    INACTIVE("__clang_call_terminate"),
    INACTIVE("_ZSt9terminatev"), /* std::terminate() */
    INACTIVE("llvm.eh.typeid.for"),
    INACTIVE("abort"),
    INACTIVE("exit"),
    INACTIVE("__assert_fail"),
    /* reverse mode's cleanup of an inner gradient's tape and shadows when
     * an exception leaves its augmented pass (rev/exceptions.c): forward
     * over reverse keeps the primal cleanup, whose device-shadow thunks
     * (function pointers) it could not differentiate; it runs only on the
     * way out of the derivative, whose tangents then go unused */
    INACTIVE("tanjit.rev.unwound"),
    INACTIVE("tanjit.rev.unwound.heap"),
    /* what derivative code reports before it traps (tangent/report.c: a
     * call through a pointer to no known target): text, and the target's
     * address; forward over reverse keeps the reverse code's reports */
    INACTIVE(AD_RUNTIME_REPORT_SYMBOL),
    INACTIVE(AD_RUNTIME_TARGET_REPORT_SYMBOL),
    INACTIVE("llvm.lifetime.start"),
    INACTIVE("llvm.lifetime.end"),
    INACTIVE("llvm.assume"),
    INACTIVE("llvm.experimental.noalias.scope.decl"),
    INACTIVE("llvm.stacksave"),
    INACTIVE("llvm.stackrestore"),
    INACTIVE("llvm.invariant.start"),
    INACTIVE("llvm.invariant.end"),
    INACTIVE("llvm.prefetch"),
    INACTIVE("llvm.var.annotation"),
    INACTIVE("llvm.donothing"),
    INACTIVE("llvm.trap"),
    INACTIVE("llvm.debugtrap"),
    INACTIVE("llvm.sideeffect"),
    INACTIVE("llvm.is.fpclass"),
    /* a float in, an integer out: an exponent, a rounded value or a
     * class, constant between the points where it jumps (Enzyme's
     * known-inactive list has the rounding ones) */
    INACTIVE("llvm.lround"),
    INACTIVE("llvm.llround"),
    INACTIVE("llvm.lrint"),
    INACTIVE("llvm.llrint"),
    INACTIVE("ilogb"), INACTIVE("ilogbf"), INACTIVE("ilogbl"),
    INACTIVE("lround"), INACTIVE("lroundf"), INACTIVE("lroundl"),
    INACTIVE("llround"), INACTIVE("llroundf"), INACTIVE("llroundl"),
    INACTIVE("lrint"), INACTIVE("lrintf"), INACTIVE("lrintl"),
    INACTIVE("llrint"), INACTIVE("llrintf"), INACTIVE("llrintl"),
    INACTIVE("__fpclassify"), INACTIVE("__fpclassifyf"),
    INACTIVE("__fpclassifyl"),
    INACTIVE("__isnan"), INACTIVE("__isnanf"), INACTIVE("__isnanl"),
    INACTIVE("__isinf"), INACTIVE("__isinff"), INACTIVE("__isinfl"),
    INACTIVE("__finite"), INACTIVE("__finitef"), INACTIVE("__finitel"),
    INACTIVE("__signbit"), INACTIVE("__signbitf"), INACTIVE("__signbitl"),
    INACTIVE("isnan"), INACTIVE("isinf"), INACTIVE("finite"),
    /* integer arithmetic (sizes and indices: Eigen's loop bounds at -O1 and
     * up): no float goes in or out */
    INACTIVE("llvm.smax"),
    INACTIVE("llvm.smin"),
    INACTIVE("llvm.umax"),
    INACTIVE("llvm.umin"),
    INACTIVE("llvm.abs"),
    INACTIVE("llvm.ctpop"),
    INACTIVE("llvm.ctlz"),
    INACTIVE("llvm.cttz"),
    INACTIVE("llvm.bswap"),
    INACTIVE("llvm.bitreverse"),
    /* Julia's GC bookkeeping: roots and safepoints move no values */
    INACTIVE("llvm.julia.gc_preserve_begin"),
    INACTIVE("llvm.julia.gc_preserve_end"),
    INACTIVE("julia.safepoint"),
    INACTIVE("julia.get_pgcstack"),
    /* libomp (clang -fopenmp): thread numbers, team sizes, locks and
     * barriers carry no value a derivative follows; reverse mode mirrors
     * the critical sections and barriers (rev/openmp.c), and the fork of a
     * parallel region is rev/openmp.c's too */
    INACTIVE("__kmpc_global_thread_num"),
    INACTIVE("__kmpc_for_static_fini"),
    INACTIVE("__kmpc_critical"),
    INACTIVE("__kmpc_critical_with_hint"),
    INACTIVE("__kmpc_end_critical"),
    INACTIVE("__kmpc_barrier"),
    INACTIVE("__kmpc_push_num_threads"),
    /* dynamic and guided schedules: the schedule's start and end (each
     * thread's chunks come from __kmpc_dispatch_next_*, below) */
    INACTIVE("__kmpc_dispatch_init_4"),
    INACTIVE("__kmpc_dispatch_init_4u"),
    INACTIVE("__kmpc_dispatch_init_8"),
    INACTIVE("__kmpc_dispatch_init_8u"),
    INACTIVE("__kmpc_dispatch_fini_4"),
    INACTIVE("__kmpc_dispatch_fini_4u"),
    INACTIVE("__kmpc_dispatch_fini_8"),
    INACTIVE("__kmpc_dispatch_fini_8u"),
    INACTIVE("__kmpc_dispatch_deinit"),
    INACTIVE("omp_get_thread_num"),
    INACTIVE("omp_get_num_threads"),
    INACTIVE("omp_get_max_threads"),
};

/* A worksharing loop's schedule (`__kmpc_for_static_init_4/8` and their
 * unsigned forms): the thread's bounds and stride written as integers
 * through its out-parameters, which the reverse reads back from the tape
 * like any loaded integer. */
#define STATIC_INIT(n, bound)                                             \
  {.rule = {.name = n, .emit = emit_nothing, .writes_pointer_args = 1,     \
            .inactive = 1},                                                \
   .arg_types = "-iiI" bound bound bound "ii"}
/* A dynamic or guided schedule's next chunk (`__kmpc_dispatch_next_4/8`
 * and their unsigned forms), written like a static schedule's bounds: the
 * last-chunk flag, the chunk's bounds and its stride.  Each thread's
 * chunks are the runtime's choice at run time, and the reverse of a
 * thread reads its own back from its tape. */
#define DISPATCH_NEXT(n, bound)                                           \
  {.rule = {.name = n, .emit = emit_nothing, .writes_pointer_args = 1,     \
            .inactive = 1},                                                \
   .arg_types = "-iI" bound bound bound}
static const ad_typed_rule inactive_typed_rules[] = {
    STATIC_INIT("__kmpc_for_static_init_4", "I"),
    STATIC_INIT("__kmpc_for_static_init_4u", "I"),
    STATIC_INIT("__kmpc_for_static_init_8", "Z"),
    STATIC_INIT("__kmpc_for_static_init_8u", "Z"),
    DISPATCH_NEXT("__kmpc_dispatch_next_4", "I"),
    DISPATCH_NEXT("__kmpc_dispatch_next_4u", "I"),
    DISPATCH_NEXT("__kmpc_dispatch_next_8", "Z"),
    DISPATCH_NEXT("__kmpc_dispatch_next_8u", "Z"),
};

static const ad_typed_rule *inactive_typed_lookup(const char *name) {
  for (size_t i = 0;
       i < sizeof inactive_typed_rules / sizeof *inactive_typed_rules; i++)
    if (strcmp(name, inactive_typed_rules[i].rule.name) == 0)
      return &inactive_typed_rules[i];
  return NULL;
}

/* std::ostream and its helpers (libstdc++'s mangled names): writing to a
 * stream formats characters.  Each row is a prefix of mangled names. */
static const ad_call_rule inactive_prefix_rules[] = {
    INACTIVE("_ZNSolsE"),        /* ostream::operator<<(T) */
    INACTIVE("_ZNSo9_M_insert"), /* ostream::_M_insert<T> */
    INACTIVE("_ZNSo3put"),
    INACTIVE("_ZNSo5write"),
    INACTIVE("_ZNSo5flush"),
    INACTIVE("_ZStlsISt11char_traitsIcEERSt13basic_ostream"), /* << char* */
    INACTIVE("_ZStlsIcSt11char_traitsIcESaIcEERSt13basic_ostream"), /* << string */
    INACTIVE("_ZSt16__ostream_insert"),
    INACTIVE("_ZSt4endl"),
    INACTIVE("_ZSt5flush"),
    INACTIVE("_ZNKSt5ctypeIcE13_M_widen_init"),
    INACTIVE("_ZNSt8ios_base"),
    INACTIVE("_ZNSt9basic_ios"),
    INACTIVE("_ZNKSt9basic_ios"),
    INACTIVE("_ZNSt6locale"),
    /* std::unordered_map's hashing of keys (std::_Hash_bytes) and the
     * std::allocator<char> of its string keys, in Enzyme's known-inactive
     * list too: characters in, an integer or nothing out */
    INACTIVE("_ZSt11_Hash_bytes"),
    INACTIVE("_ZNSaIcEC1E"),
    INACTIVE("_ZNSaIcEC2E"),
    INACTIVE("_ZNSaIcED1E"),
    INACTIVE("_ZNSaIcED2E"),
    /* its rehash policy (std::__detail::_Prime_rehash_policy: bucket
     * counts from element counts and the load factor), inactive in
     * Enzyme's list as well */
    INACTIVE("_ZNKSt8__detail20_Prime_rehash_policy"),
    INACTIVE("_ZNSt8__detail20_Prime_rehash_policy"),
    /* std::string and std::wstring members (libstdc++'s two ABIs, libc++):
     * whose bodies an -O0 module lacks (the library's extern templates).
     * They move characters and return sizes, positions, comparisons or
     * characters; the primal call still does that work.  Only the char
     * and wchar_t instances: a basic_string of another element type is not
     * known to hold no floats. */
    INACTIVE("_ZNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEE"),
    INACTIVE("_ZNKSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEE"),
    INACTIVE("_ZNSt7__cxx1112basic_stringIwSt11char_traitsIwESaIwEE"),
    INACTIVE("_ZNKSt7__cxx1112basic_stringIwSt11char_traitsIwESaIwEE"),
    INACTIVE("_ZNSs"),  /* std::string, the pre-C++11 ABI */
    INACTIVE("_ZNKSs"),
    INACTIVE("_ZNSbIwSt11char_traitsIwESaIwEE"), /* std::wstring, likewise */
    INACTIVE("_ZNKSbIwSt11char_traitsIwESaIwEE"),
    INACTIVE("_ZNSt3__112basic_stringIcNS_11char_traitsIcEENS_9allocatorIcEEE"),
    INACTIVE("_ZNKSt3__112basic_stringIcNS_11char_traitsIcEENS_9allocatorIcEEE"),
    /* string concatenation and std::to_string: characters out */
    INACTIVE("_ZStplIcSt11char_traitsIcESaIcEENSt7__cxx1112basic_string"),
    INACTIVE("_ZNSt7__cxx119to_string"),
    /* std::hash<T>::operator(): a size_t from any key */
    INACTIVE("_ZNKSt4hash"),
};

/* Functions of namespace std matched by the start of their identifier, the
 * mangled name being `_ZSt<length><identifier>...`: libstdc++'s
 * std::__throw_length_error, __throw_out_of_range_fmt, __throw_bad_alloc,
 * ...: they raise (or, without exceptions, abort) and return nothing. */
static const ad_call_rule inactive_std_identifier_rules[] = {
    INACTIVE("__throw_"),
};

/* The identifier of a function of namespace std (`_ZSt`, its length, the
 * identifier), or NULL for any other name. */
static const char *std_identifier(const char *name) {
  if (strncmp(name, "_ZSt", 4) != 0)
    return NULL;
  const char *p = name + 4;
  if (*p < '1' || *p > '9')
    return NULL;
  while (*p >= '0' && *p <= '9')
    p++;
  return p;
}

static const ad_call_rule *inactive_lookup(const char *name) {
  const ad_typed_rule *typed = inactive_typed_lookup(name);
  if (typed)
    return &typed->rule;
  for (size_t i = 0; i < sizeof inactive_rules / sizeof *inactive_rules; i++)
    if (ad_name_matches(name, inactive_rules[i].name))
      return &inactive_rules[i];
  for (size_t i = 0;
       i < sizeof inactive_prefix_rules / sizeof *inactive_prefix_rules; i++) {
    const char *prefix = inactive_prefix_rules[i].name;
    if (strncmp(name, prefix, strlen(prefix)) == 0)
      return &inactive_prefix_rules[i];
  }
  const char *std_name = std_identifier(name);
  for (size_t i = 0; std_name && i < sizeof inactive_std_identifier_rules /
                                          sizeof *inactive_std_identifier_rules;
       i++) {
    const char *prefix = inactive_std_identifier_rules[i].name;
    if (strncmp(std_name, prefix, strlen(prefix)) == 0)
      return &inactive_std_identifier_rules[i];
  }
  return NULL;
}

const ad_rule_family ad_inactive_family = {
    .name = "inactive",
    .lookup = inactive_lookup,
    .typed_lookup = inactive_typed_lookup,
};

/*
 * The "noreturn" family, asked last: a call after which control never goes
 * on (ad_call_never_returns: a noreturn callee, or `unreachable` next, as
 * every Julia domain or bounds check ends: `throw_complex_domainerror(:sqrt,
 * x)`, `ijl_bounds_error_ints(A, idx, n)`) to a function with no body and
 * no rule.  Nothing after such a call runs, so no derivative it could
 * produce (a tangent, an adjoint for its float arguments, a shadow of the
 * arrays it is given) is ever read: the primal call alone is kept, in
 * both modes, and its arguments need no shadows.  Enzyme's activity
 * analysis likewise gives code that can only end in `unreachable` no
 * derivative.  An invoke is not covered: its unwind edge goes on in the
 * function, and a callee without a body may leave there what that code
 * reads.  A callee with a body is differentiated as any other (its
 * throwing path then ends at its own call of this kind).
 */
static const ad_call_rule noreturn_rule = {
    .name = "noreturn", .emit = emit_nothing, .inactive = 1};

static const ad_call_rule *noreturn_lookup(const ad_engine *e,
                                           LLVMValueRef call) {
  (void)e;
  LLVMValueRef fn = ad_called_function(call);
  if (!fn || LLVMCountBasicBlocks(fn) > 0 || !LLVMIsACallInst(call))
    return NULL;
  return ad_call_never_returns(call) ? &noreturn_rule : NULL;
}

const ad_rule_family ad_noreturn_family = {
    .name = "noreturn",
    .lookup_call = noreturn_lookup,
};

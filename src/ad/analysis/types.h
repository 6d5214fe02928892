/*
 * Type analysis, the query side (type_lattice.c, type_memory.c and
 * type_transfer.c do the work): what each value holds and, for a pointer
 * (or an integer that is one), what each byte offset of the memory it
 * points into holds.  Activity analysis asks it
 * which integers carry a pointer or a float; the copy rule asks it, through
 * ad_copy_layout_of (below), how a copy splits into segments; the tests
 * in tests/types ask it directly.
 *
 * Kinds form a lattice: unknown < {integer, pointer, float<bits>} <
 * conflict.  Two facts about the same value or bytes join:
 *   integer + pointer = pointer   (an integer that is sometimes a pointer
 *                                  keeps a shadow: the safe side)
 *   float + integer, float + pointer, float32 + float64 = conflict
 *                                 (float bits used as integers, or one
 *                                  union's bytes read both ways: no
 *                                  derivative is defined)
 * An active value whose kind is conflict is an error (activity.c) naming
 * the value and the function.  Unknown integers keep a shadow: copying
 * shadow bits is right whether they are pointers, float bits or integers,
 * so only positive evidence (integer) removes it.  An integer member of an
 * LLVM aggregate type narrower than a pointer is an integer.
 *
 * TBAA metadata (type_tbaa.c) is a weaker source: its facts fill what the
 * IR leaves unknown and give way to the IR's, and two tags that disagree
 * make a conflict that reads as unknown.
 */
#ifndef TANJIT_AD_ANALYSIS_TYPES_H
#define TANJIT_AD_ANALYSIS_TYPES_H

#include <llvm-c/Core.h>
#include <llvm-c/Target.h>

#include "ad/core/context.h"

typedef enum ad_tkind {
  AD_T_UNKNOWN = 0,
  AD_T_INTEGER,
  AD_T_POINTER,
  AD_T_FLOAT,
  AD_T_CONFLICT
} ad_tkind;

typedef struct ad_types ad_types;

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
  unsigned bits; /* AD_BYTES_FLOAT: the floats' width (segments of two
                    widths never merge); 0 otherwise */
  /* AD_BYTES_UNKNOWN: bytes the types the copy's ends were declared with
   * put in no member (a struct's holes, its tail, an x86_fp80's last 6
   * bytes): padding, whatever their size.  0 otherwise. */
  unsigned char hole;
} ad_segment;
typedef struct ad_copy_layout {
  ad_segment *segs; /* sorted, non-overlapping; malloc'd */
  size_t n;
  /* The pattern repeats every `period` bytes (an array of structs copied
   * with a run-time length); 0: the segments cover the copy once. */
  unsigned long long period;
} ad_copy_layout;
/* copy_layout.c: the layout of the `len` bytes a copy call moves from `src`
 * to `dst` (the primal operands), from the analysis of fc's function (run
 * once, kept in fc->types).  Never fails for lack of knowledge: unknown
 * bytes are one AD_BYTES_UNKNOWN segment.  0, or -1 (out of memory, error
 * in fc). */
int ad_copy_layout_of(ad_fn_ctx *fc, LLVMValueRef call, LLVMValueRef dst,
                      LLVMValueRef src, LLVMValueRef len, ad_copy_layout *out);
void ad_copy_layout_free(ad_copy_layout *l);
/* Whether unknown segment i of l reads as padding (a struct's holes, the
 * tail of an x86_fp80): a hole of the declared types (its `hole`), or
 * fewer than 8 bytes that follow a known segment and end at the next
 * known one or at the end of the layout. */
int ad_copy_segment_is_padding(const ad_copy_layout *l, size_t i);

/*
 * Analyzes `fn` together with every function with a body it calls
 * (directly or not), to a fixpoint.  `e` (may be NULL) resolves call names
 * (enzyme_math, ejlstr$ renames); `td` (may be NULL: the module's
 * data layout is used) sizes types.  NULL on out of memory.
 */
ad_types *ad_types_analyze(const ad_engine *e, LLVMModuleRef m,
                           LLVMTargetDataRef td, LLVMValueRef fn);
/* The same, with what the caller knows of integer parameters: parameter
 * i holds the bits of a float of param_float_bits[i] bits (0: nothing
 * known).  A reverse-mode callee given a float's bits as an integer (its
 * caller's analysis saw them, context-insensitive analysis of the callee
 * alone may not) starts from it.  param_float_bits may be NULL. */
ad_types *ad_types_analyze_params(const ad_engine *e, LLVMModuleRef m,
                                  LLVMTargetDataRef td, LLVMValueRef fn,
                                  const unsigned *param_float_bits);
/* The same, with fn's callers (`levels` levels up) joining the analysis
 * as roots, so what fn's parameters point to is known as it is in them (a
 * copy constructor's memcpy of `*other` at -O0).  Costlier by far on big
 * -O0 C++ modules: copy_layout.c asks for it only when the plain analysis
 * leaves a copy's bytes unknown, NEAR first, FAR only if NEAR leaves them
 * unknown (libstdc++'s std::copy of a std::vector<double> at -O0 does its
 * memmove ten calls below the function that reads the doubles). */
enum { AD_TYPES_NEAR_CALLERS = 4, AD_TYPES_FAR_CALLERS = 16 };
ad_types *ad_types_analyze_in_callers(const ad_engine *e, LLVMModuleRef m,
                                      LLVMTargetDataRef td, LLVMValueRef fn,
                                      unsigned levels);
/* The same with each caller's other callees followed `reach` calls deep
 * (ad_types_analyze_in_callers: AD_TYPES_CALLER_REACH).  copy_layout.c
 * asks AD_TYPES_DEEP_CALLER_REACH of the far callers last, where every
 * other analysis leaves bytes unknown: at -O0 the store that says what
 * they are may lie that deep below a caller (std::variant<Circle, Rect>
 * built from a Circle in f, its double stored eight calls down the
 * variant's constructors, moved into a std::vector by a memcpy in
 * __new_allocator::construct, five calls below f). */
enum { AD_TYPES_CALLER_REACH = 6, AD_TYPES_DEEP_CALLER_REACH = 12 };
ad_types *ad_types_analyze_in_callers_reaching(const ad_engine *e,
                                               LLVMModuleRef m,
                                               LLVMTargetDataRef td,
                                               LLVMValueRef fn,
                                               unsigned levels,
                                               unsigned reach);
/* The same on the call paths alone: fn and its callees as above, its
 * callers `levels` levels up, but none of the callers' other callees.
 * The context-insensitive analysis merges every object passed to one
 * shared callee (std::function's _Any_data::_M_access(), operator() and
 * _Function_base for every lambda a caller stores); on the paths from
 * the callers to fn, those that do not lie on them are apart.  Less
 * code, fewer facts: copy_layout.c takes only the floats and pointers it
 * proves, where the wider analyses leave bytes unknown (an integer seen
 * on the paths alone may be a float's bits that code off them reads). */
ad_types *ad_types_analyze_on_call_paths(const ad_engine *e, LLVMModuleRef m,
                                         LLVMTargetDataRef td, LLVMValueRef fn,
                                         unsigned levels);
void ad_types_free(ad_types *t); /* NULL-tolerant */

/* The kind of `v` itself (offset < 0), or of the bytes at `offset` of the
 * memory `v` points into (offset >= 0; unknown when `v` has no known
 * address).  *bits (may be NULL) gets a float's width. */
ad_tkind ad_types_kind(const ad_types *t, LLVMValueRef v, long long offset,
                       unsigned *bits);
/* The same, printable: "unknown", "integer", "pointer", "float32",
 * "float64", ..., "conflict".  A static string. */
const char *ad_types_query(const ad_types *t, LLVMValueRef v,
                           long long offset);
const char *ad_tkind_name(ad_tkind k, unsigned bits);

/* Whether store `store` writes a constant integer (vector) into bytes type
 * analysis says hold a float: a float constant written as its bits (clang
 * -O1 initializes `struct { double v[1]; } x = {{1.0}}` with `store i64
 * 4607182418800017408`).  Its shadow is zero, not the constant (which an
 * integer's shadow would be). */
int ad_types_stores_float_constant(const ad_types *t, LLVMTargetDataRef td,
                                   LLVMValueRef store);
/* Whether store `store` writes a constant integer that cannot be an
 * address: 64 bits whose top 16 are neither all clear nor all set (no
 * user-space pointer on x86-64 or AArch64, a double's bits mostly), or
 * any constant into bytes type analysis knows nothing of.  clang -O1
 * stores a lambda's captured double into std::function's buffer as its
 * bits (`store i64 4609434218613702656`), bytes the functors holding
 * references make pointers, and only an indirect call reads the double
 * back.  Forward mode gives such a store a zero shadow, as a float's:
 * copying it made the constant its own tangent.  No shadow integer is
 * read for anything else (control flow and sizes read primals); a
 * constant that may be an address (a frontend's type tag) is still
 * copied. */
int ad_types_stores_no_address(const ad_types *t, LLVMTargetDataRef td,
                               LLVMValueRef store);

/* Whether integer instruction `inst` only moves whole bytes (a shift by a
 * multiple of 8, a truncation to whole bytes: clang's way of taking a
 * std::complex<float>'s halves out of an i64), which says nothing of what
 * the bytes hold. */
int ad_types_moves_bytes(LLVMValueRef inst);

/* The layout of a copy of `len` bytes from `src` to `dst` (see
 * ad_copy_layout_of).  0, or -1 on out of memory. */
int ad_types_copy_layout(const ad_types *t, LLVMValueRef dst,
                         LLVMValueRef src, LLVMValueRef len,
                         ad_copy_layout *out);

#endif

/*
 * Type analysis: what TBAA metadata says about memory.  A frontend that
 * compiles with strict aliasing (clang, from -O1 and at Enzyme's O0TBAA,
 * -O1 without LLVM's passes) tags each load and store with the type of the
 * bytes it accesses (`!tbaa !{!base, !access, i64 offset}`), and each
 * llvm.memcpy of a C-like struct with its fields (`!tbaa.struct !{i64
 * offset, i64 size, !tag, ...}`).  An i64 load tagged "double", or a copy
 * of a struct of doubles whose function never touches its fields, is
 * thereby known where the IR alone says nothing.
 *
 * The facts are noted weak (ta_weak): they fill bytes the IR leaves
 * unknown and give way to what the IR proves (ta_join), so metadata that
 * disagrees with the code is never the cause of a conflict or of a wrong
 * kind; nor do they drive inference from integer arithmetic (a uint64_t
 * tagged "long" may be a handle the IR proves is a pointer:
 * type_transfer.c's visit_int_arith).
 *
 * Type nodes come in two formats: clang's default, !{!"name", !parent,
 * i64 0} for a scalar and !{!"name", !member, i64 offset, ...} for a
 * struct; and the one -new-struct-path-tbaa selects, !{!parent, i64 size,
 * !"name", !member, i64 offset, i64 size, ...}.  A scalar's name says what
 * it is (names[] below); a name not there is looked through: its members
 * (or, for a scalar, its parent: clang's "p1 double" is an "any pointer")
 * are read instead, and names that reach the root unread ("omnipotent
 * char", Julia's jtbaa_*, Flang's "any data access") say nothing.
 */
#include <stdlib.h>
#include <string.h>

#include "common/alloc.h"
#include "ad/analysis/type_model.h"
#include "ad/ir/ir.h"

/* Scalar type names as clang writes them (signed and unsigned share one);
 * size 0: a pointer's. */
static const struct tbaa_scalar {
  const char *name;
  ad_tkind kind;
  unsigned bits;             /* floats */
  unsigned long long size;   /* bytes of one element */
} names[] = {
    {"double", AD_T_FLOAT, 64, 8},
    {"float", AD_T_FLOAT, 32, 4},
    {"_Float16", AD_T_FLOAT, 16, 2},
    {"__fp16", AD_T_FLOAT, 16, 2},
    {"__float128", AD_T_FLOAT, 128, 16},
    {"any pointer", AD_T_POINTER, 0, 0},
    {"vtable pointer", AD_T_POINTER, 0, 0},
    {"bool", AD_T_INTEGER, 0, 1},
    {"_Bool", AD_T_INTEGER, 0, 1},
    {"short", AD_T_INTEGER, 0, 2},
    {"int", AD_T_INTEGER, 0, 4},
    {"long", AD_T_INTEGER, 0, 0},
    {"long long", AD_T_INTEGER, 0, 8},
    {"__int128", AD_T_INTEGER, 0, 16},
    {"wchar_t", AD_T_INTEGER, 0, 4},
    {"char16_t", AD_T_INTEGER, 0, 2},
    {"char32_t", AD_T_INTEGER, 0, 4},
};

enum { MAX_TBAA_DEPTH = 16, MAX_TBAA_OPERANDS = 4096, MAX_TBAA_NOTES = 256,
       SMALL_NODE = 16 };

/* The operands of metadata node `md`: in `small` (SMALL_NODE of them) or
 * malloc'd (free with release_operands); *n gets their number, 0 when md
 * is no node, is larger than MAX_TBAA_OPERANDS or memory ran out (then
 * nothing is learned from it). */
static LLVMValueRef *node_operands(LLVMValueRef md, LLVMValueRef *small,
                                   unsigned *n) {
  *n = 0;
  if (!md || !LLVMIsAMDNode(md))
    return small;
  unsigned k = LLVMGetMDNodeNumOperands(md);
  if (k == 0 || k > MAX_TBAA_OPERANDS)
    return small;
  LLVMValueRef *ops = k <= SMALL_NODE ? small : tj_malloc(k * sizeof *ops);
  if (!ops)
    return small;
  LLVMGetMDNodeOperands(md, ops);
  *n = k;
  return ops;
}

static void release_operands(LLVMValueRef *ops, LLVMValueRef *small) {
  if (ops != small)
    free(ops);
}

static int const_int(LLVMValueRef v, unsigned long long *out) {
  if (!v || !LLVMIsAConstantInt(v))
    return 0;
  *out = LLVMConstIntGetZExtValue(v);
  return 1;
}

static const struct tbaa_scalar *scalar_named(LLVMValueRef s) {
  unsigned len = 0;
  const char *name = s && LLVMIsAMDString(s) ? LLVMGetMDString(s, &len) : NULL;
  if (!name)
    return NULL;
  for (size_t i = 0; i < sizeof names / sizeof *names; i++)
    if (strlen(names[i].name) == len && memcmp(names[i].name, name, len) == 0)
      return &names[i];
  return NULL;
}

/* long double's format is the target's: x86's 80-bit one (stored in 10
 * bytes of 16), AArch64 and RISC-V's IEEE quad; elsewhere (it may be a
 * double, or IBM's pair of doubles) nothing is said. */
static int long_double_of(LLVMValueRef inst, struct tbaa_scalar *out) {
  LLVMModuleRef m = LLVMGetGlobalParent(
      LLVMGetBasicBlockParent(LLVMGetInstructionParent(inst)));
  const char *triple = LLVMGetTarget(m);
  if (!triple)
    return 0;
  out->name = "long double";
  out->kind = AD_T_FLOAT;
  if (strncmp(triple, "x86_64", 6) == 0 ||
      (triple[0] == 'i' && strncmp(triple + 2, "86", 2) == 0)) {
    if (strstr(triple, "msvc"))
      return 0; /* a double there */
    out->bits = 80;
    out->size = 10;
    return 1;
  }
  if ((strncmp(triple, "aarch64", 7) == 0 && !strstr(triple, "apple") &&
       !strstr(triple, "darwin") && !strstr(triple, "windows")) ||
      strncmp(triple, "riscv64", 7) == 0) {
    out->bits = 128;
    out->size = 16;
    return 1;
  }
  return 0;
}

/* Notes scalar `s` over [off, off+len) of obj: one element after the other
 * (len 0: one element).  An x86 long double takes 16 bytes, 10 of them
 * its value. */
static void note_scalar(ad_types *t, const struct tbaa_scalar *s, int obj,
                        long long off, unsigned long long len) {
  unsigned long long size = s->size ? s->size : LLVMPointerSize(t->td);
  unsigned long long stride = s->bits == 80 ? 16 : size;
  if (s->kind == AD_T_INTEGER && s->size == 0)
    size = stride = LLVMPointerSize(t->td); /* "long": LP64's */
  if (len == 0)
    len = size;
  tfact f = ta_weak(ta_fact(s->kind, s->bits));
  for (unsigned long long at = 0, k = 0;
       at + size <= len && k < MAX_TBAA_NOTES; at += stride, k++)
    ta_mem_note(t, obj, off + (long long)at, size, f);
}

static void note_node(ad_types *t, LLVMValueRef inst, LLVMValueRef node,
                      int obj, long long off, unsigned long long len,
                      int depth);

/* Members of a type node: operands [first, n) in groups of `group` (type,
 * offset[, size]); a member without a size reaches the next one's offset
 * (or the end). */
static void note_members(ad_types *t, LLVMValueRef inst, LLVMValueRef *ops,
                         unsigned n, unsigned first, unsigned group, int obj,
                         long long off, unsigned long long len, int depth) {
  for (unsigned i = first; i + group <= n; i += group) {
    unsigned long long at, size = 0;
    if (!const_int(ops[i + 1], &at) || (len && at >= len))
      continue;
    if (group == 3) {
      if (!const_int(ops[i + 2], &size))
        continue;
    } else {
      unsigned long long next;
      if (i + group + 1 < n && const_int(ops[i + group + 1], &next) &&
          next > at)
        size = next - at;
      else if (len)
        size = len - at;
    }
    if (len && at + size > len)
      size = len - at;
    note_node(t, inst, ops[i], obj, off + (long long)at, size, depth + 1);
  }
}

/* What type node `node` says of [off, off+len) of obj (len 0: the
 * extent of the type). */
static void note_node(ad_types *t, LLVMValueRef inst, LLVMValueRef node,
                      int obj, long long off, unsigned long long len,
                      int depth) {
  LLVMValueRef small[SMALL_NODE];
  if (depth > MAX_TBAA_DEPTH)
    return;
  unsigned n;
  LLVMValueRef *ops = node_operands(node, small, &n);
  if (n == 0)
    return;
  int new_format = LLVMIsAMDNode(ops[0]) && n >= 3;
  LLVMValueRef name = new_format ? ops[2] : ops[0];
  const struct tbaa_scalar *s = scalar_named(name);
  struct tbaa_scalar ld;
  if (!s && name && LLVMIsAMDString(name)) {
    unsigned l = 0;
    const char *str = LLVMGetMDString(name, &l);
    if (l == 11 && memcmp(str, "long double", 11) == 0 &&
        long_double_of(inst, &ld))
      s = &ld;
  }
  if (s) {
    note_scalar(t, s, obj, off, len);
  } else if (new_format) {
    unsigned long long size;
    if (!len && const_int(ops[1], &size))
      len = size;
    note_members(t, inst, ops, n, 3, 3, obj, off, len, depth);
  } else {
    note_members(t, inst, ops, n, 1, 2, obj, off, len, depth);
  }
  release_operands(ops, small);
}

/* What access tag `tag` says of the `len` bytes at (obj, off): the access
 * type's (the base type and the offset in it only say where the bytes sit
 * in a larger object).  A tag of the oldest format is itself a type node. */
static void note_tag(ad_types *t, LLVMValueRef inst, LLVMValueRef tag,
                     int obj, long long off, unsigned long long len) {
  LLVMValueRef small[SMALL_NODE];
  unsigned n;
  LLVMValueRef *ops = node_operands(tag, small, &n);
  if (n >= 3 && LLVMIsAMDNode(ops[0]))
    note_node(t, inst, ops[1], obj, off, len, 0);
  else if (n > 0)
    note_node(t, inst, tag, obj, off, len, 0);
  release_operands(ops, small);
}

static unsigned md_kind(LLVMValueRef inst, const char *name) {
  return LLVMGetMDKindIDInContext(LLVMGetTypeContext(LLVMTypeOf(inst)), name,
                                  (unsigned)strlen(name));
}

static int address_of(ad_types *t, LLVMValueRef p, int *obj, long long *off) {
  if (!ta_addr(t, p, obj, off, 0))
    *obj = ta_root(t, p), *off = 0;
  return *obj >= 0;
}

/* The memory intrinsic `call` is (1 copy, 2 set) or 0. */
static int memory_intrinsic(LLVMValueRef call) {
  LLVMValueRef fn = ad_called_function(call);
  if (!fn || !LLVMGetIntrinsicID(fn))
    return 0;
  size_t len;
  const char *name = LLVMGetValueName2(fn, &len);
  if (strncmp(name, "llvm.memcpy", 11) == 0 ||
      strncmp(name, "llvm.memmove", 12) == 0)
    return 1;
  if (strncmp(name, "llvm.memset", 11) == 0)
    return 2;
  return 0;
}

void ta_tbaa_learn(ad_types *t, LLVMValueRef inst) {
  LLVMOpcode op = LLVMGetInstructionOpcode(inst);
  if (op != LLVMLoad && op != LLVMStore && op != LLVMCall)
    return;
  if (!LLVMHasMetadata(inst))
    return;
  LLVMValueRef tag = LLVMGetMetadata(inst, md_kind(inst, "tbaa"));
  int obj;
  long long off;
  if (op == LLVMLoad || op == LLVMStore) {
    LLVMTypeRef ty = op == LLVMLoad ? LLVMTypeOf(inst)
                                    : LLVMTypeOf(LLVMGetOperand(inst, 0));
    if (tag && address_of(t, LLVMGetOperand(inst, op == LLVMLoad ? 0 : 1),
                          &obj, &off))
      note_tag(t, inst, tag, obj, off, LLVMStoreSizeOfType(t->td, ty));
    return;
  }
  int kind = memory_intrinsic(inst);
  if (!kind)
    return;
  LLVMValueRef fields = LLVMGetMetadata(inst, md_kind(inst, "tbaa.struct"));
  unsigned long long len = 0;
  if (!const_int(LLVMGetOperand(inst, 2), &len))
    len = 0;
  for (unsigned side = 0; side < (kind == 1 ? 2u : 1u); side++) {
    if (!address_of(t, LLVMGetOperand(inst, side), &obj, &off))
      continue;
    LLVMValueRef small[SMALL_NODE];
    unsigned n;
    LLVMValueRef *ops = node_operands(fields, small, &n);
    for (unsigned i = 0; i + 3 <= n; i += 3) {
      unsigned long long at, size;
      if (const_int(ops[i], &at) && const_int(ops[i + 1], &size) &&
          (!len || at + size <= len))
        note_tag(t, inst, ops[i + 2], obj, off + (long long)at, size);
    }
    release_operands(ops, small);
    if (tag)
      note_tag(t, inst, tag, obj, off, len);
  }
}

/*
 * Type analysis inside: the representation its three parts share
 * (type_lattice.c: kinds and joins; type_memory.c: values, abstract objects
 * and addresses; type_transfer.c: what instructions and calls teach, to a
 * fixpoint) and copy_layout.c reads.  Private to src/ad/analysis.
 */
#ifndef TANJIT_AD_ANALYSIS_TYPE_MODEL_H
#define TANJIT_AD_ANALYSIS_TYPE_MODEL_H

#include <llvm-c/Core.h>
#include <llvm-c/Target.h>

#include "ad/analysis/types.h"
#include "ad/core/map.h"

/* MAX_CALL_DEPTH: callees are analyzed with the function up to this many
 * calls away from it; one farther is treated as a call to a function with
 * no body (nothing learned: "unknown", which the engine treats
 * conservatively).  Without the bound every derivative of a chain of N
 * calls would analyze the rest of the chain: N^2 work in all (issue 10). */
enum { MAX_ROUNDS = 64, MAX_TYPE_ENTRIES = 1024, MAX_DEPTH = 32,
       MAX_CALL_DEPTH = 16 };

typedef struct tfact {
  unsigned char kind;  /* ad_tkind */
  /* what only TBAA metadata says (type_tbaa.c): the IR's own facts win
   * over it, where the two disagree (ta_join) */
  unsigned char weak;
  unsigned short bits; /* float width */
} tfact;

typedef struct tentry {
  long long off;
  unsigned long long size;
  tfact f;
} tentry;

/* An array inside an object (a member `double d[3]`, or std::array's),
 * which a GEP indexed at a variable position: its `count` elements of `es`
 * bytes from `start` hold the same layout, so a fact about one element is a
 * fact about each (type_memory.c replicates it). */
typedef struct tregion {
  long long start;
  unsigned long long es, count;
} tregion;

/* A pointer-sized slot of an object that pointers are stored to and loaded
 * from (-O0 spills `this`, iterators and references to allocas): every
 * value stored there and every value loaded from it is one thing, unified
 * with `rep` (the first seen), as a PHI's incoming values are. */
typedef struct tslot {
  long long off;
  LLVMValueRef rep;
} tslot;

typedef struct tobj {
  tentry *e;
  size_t n, cap;
  tregion *r;
  size_t nr, capr;
  tslot *s;
  size_t ns, caps;
  unsigned long long period; /* 0: not periodic */
  int collapsed;             /* one summary fact for every byte */
  tfact summary;
  /* type_memory.c's index of e by (off, size) for objects with many
   * entries: 1 + the entry's index per slot (0: empty), `indexed` the
   * entries it holds (rebuilt when e shrank or was replaced) */
  size_t *ix;
  size_t ixcap, indexed;
} tobj;

typedef struct tval {
  tfact f; /* integers only; other types take their kind from the type */
  int obj; /* -1: no known address */
  long long off;
} tval;

struct ad_types {
  const ad_engine *e;
  LLVMTargetDataRef td;
  int own_td;
  int in_generated; /* the function being visited is tanjit's own code */
  ad_map index; /* value -> 1 + index into vals */
  tval *vals;
  size_t nvals, capvals;
  tobj *objs;
  size_t nobjs, capobjs;
  ad_map fnset; /* functions analyzed together -> 1 + calls from the root */
  /* call -> what its rule says of its arguments (malloc'd call_types):
   * the fixpoint visits each call every round, names are resolved once */
  ad_map call_memo;
  LLVMValueRef *fns;
  size_t nfns, capfns;
  /* pairs of slot representatives two objects' exchange found different:
   * unified after the round (unifying inside an exchange could recurse
   * through self-referential objects without end) */
  LLVMValueRef *pending;
  size_t npending, cappending;
  int note_depth; /* replication's nesting (type_memory.c) */
  /* The fixpoint reached (or half its rounds spent) with every byte
   * offset of unknown stride left out: the GEP or pointer arithmetic
   * gave its result no address.  Such an offset is mostly a distance
   * between two pointers whose objects the other facts make periodic
   * (`gep i8, %new, (ptrtoint %pos - ptrtoint %begin)`); taken at once
   * as stride 1, it made its object periodic by a byte, its doubles
   * collapsed, and every object exchanging facts with it took that
   * period.  Once settled, what is still unknown is taken as stride 1.
   * `deferred`: some offset was left out (else no round is added). */
  int settled, deferred;
  int changed, oom;
};

tfact ta_fact(ad_tkind k, unsigned bits);
tfact ta_weak(tfact f);
tfact ta_strong(tfact f); /* f if the IR's own, else unknown */
tfact ta_join(tfact a, tfact b);
int ta_same(tfact a, tfact b);
unsigned long long ta_gcd(unsigned long long a, unsigned long long b);
int ta_is_int_type(LLVMTypeRef ty);
const tval *ta_vget(const ad_types *t, LLVMValueRef v);
void ta_note(ad_types *t, LLVMValueRef v, tfact f);
tfact ta_value_fact(const ad_types *t, LLVMValueRef v);
long long ta_norm(const tobj *o, long long off);
void ta_mem_note(ad_types *t, int obj, long long off, unsigned long long size,
                 tfact f);
tfact ta_mem_get(const ad_types *t, int obj, long long off,
                 unsigned long long size, int raw);
/* The join of every fact about bytes [off, off+size), conflicts kept: no
 * entry of exactly those bytes hides a wider one it disagrees with (a
 * byte read as a char inside a double is neither), as a copy's bytes must
 * be read (copy_layout.c). */
tfact ta_mem_get_all(const ad_types *t, int obj, long long off,
                     unsigned long long size);
void ta_set_period(ad_types *t, int obj, unsigned long long p);
void ta_record_type(ad_types *t, int obj, long long off, LLVMTypeRef ty,
                    tfact ifact, int depth, int *budget);
void ta_exchange(ad_types *t, int a, long long aoff, int b, long long boff,
                 long long len);
/* v = stride * X + c for some integer X (stride 0: v is c); t (may be
 * NULL) gives the addresses a difference of pointers is taken between.
 * 0 when the stride is 1 for want of knowledge (an argument, a load, a
 * difference of addresses not known yet: see type_transfer.c's
 * `settled`), else 1. */
int ta_linear(const ad_types *t, LLVMValueRef v, unsigned long long *stride,
              long long *c, int depth);
enum { MAX_GEP_MEMBERS = 4, MAX_REGION_COUNT = 64 };
int ta_gep_offset(ad_types *t, LLVMValueRef gep, unsigned long long *stride,
                  long long *c, tregion *members, unsigned *nmembers);
void ta_add_region(ad_types *t, int obj, long long start,
                   unsigned long long es, unsigned long long count);
LLVMValueRef ta_slot_rep(const ad_types *t, int obj, long long off);
void ta_slot_note(ad_types *t, int obj, long long off, LLVMValueRef v);
void ta_run_pending(ad_types *t);
int ta_addr(ad_types *t, LLVMValueRef v, int *obj, long long *off, int depth);
void ta_set_addr(ad_types *t, LLVMValueRef v, int obj, long long off);
int ta_root(ad_types *t, LLVMValueRef v);
void ta_unify(ad_types *t, LLVMValueRef a, LLVMValueRef b);
void ta_access(ad_types *t, LLVMValueRef p, LLVMValueRef v, LLVMTypeRef ty,
               int own_type);
/* type_tbaa.c: what the !tbaa / !tbaa.struct of a load, store or memory
 * intrinsic promise about the bytes it touches, noted weak. */
void ta_tbaa_learn(ad_types *t, LLVMValueRef inst);

/* The width of a float scalar type (half and bfloat 16, x86_fp80 80,
 * fp128 and ppc_fp128 128); 0 for any other type. */
unsigned ta_scalar_float_bits(LLVMTypeRef ty);

#endif
